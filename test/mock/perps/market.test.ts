import { describe, expect, it } from 'vitest'
import { isIntegerValue, significantFigures } from '../../../src/decimal.ts'
import { applyFill, liquidationPriceTicks, newPosition } from '../../../src/mock/perps/account/positions.ts'
import { createPerpsExchange } from '../../../src/mock/perps/exchange.ts'
import {
  DEFAULT_INSTRUMENTS,
  defineInstrument,
  generateInstruments,
} from '../../../src/mock/perps/instruments.ts'
import { KlineRing } from '../../../src/mock/perps/market/klines.ts'
import { quantizePrice } from '../../../src/mock/perps/money.ts'
import { Instruments, Statistics } from '../../../src/perps/schemas/info.ts'
import { manualClock, START } from './helpers.ts'

const validPrice = (s: string): boolean => isIntegerValue(s) || significantFigures(s) <= 5

describe('instruments', () => {
  it('generates N instruments with unique ids and decimals that fit their prices', () => {
    const list = generateInstruments(1_000)
    expect(list).toHaveLength(1_000)
    expect(new Set(list.map((i) => i.id)).size).toBe(1_000)
    expect(new Set(list.map((i) => i.baseAsset)).size).toBe(1_000)
    expect(list.slice(0, DEFAULT_INSTRUMENTS.length)).toEqual(DEFAULT_INSTRUMENTS)
    for (const i of list) {
      expect(validPrice(i.initialPrice)).toBe(true)
      const w = i.indexSources.reduce((s, x) => s + Number(x.weight), 0)
      expect(w).toBeCloseTo(1, 12)
    }
    expect(generateInstruments(100, 3)).toEqual(generateInstruments(100, 3))
    expect(() => defineInstrument({ ...DEFAULT_INSTRUMENTS[0]!, fundingInterval: 'hourly' })).toThrow(
      /fundingInterval/,
    )
  })

  it('serves the full Instrument shape and filters by id, type and category', () => {
    const ex = createPerpsExchange({ clock: manualClock(), historyMinutes: 0 })
    const all = Instruments.parse(ex.instruments())
    expect(all).toHaveLength(DEFAULT_INSTRUMENTS.length)
    expect(ex.instruments({ instrumentId: 4 }).map((i) => i.symbol)).toEqual(['NVDA-USDC'])
    expect(ex.instruments({ category: 'crypto' }).map((i) => i.base_asset)).toEqual(['BTC', 'ETH', 'SOL'])
    expect(ex.instruments({ instrumentType: 'perpetual' })).toHaveLength(DEFAULT_INSTRUMENTS.length)
  })
})

describe('prices and klines', () => {
  it('quantizes to whole ticks with at most 5 significant figures unless integer', () => {
    expect(quantizePrice(65_000.34, 1)).toBe(65_000n * 10n)
    expect(quantizePrice(123_456.7, 1)).toBe(1_234_570n)
    expect(quantizePrice(3_001.256, 2)).toBe(300_130n)
    expect(quantizePrice(0.123456, 6)).toBe(123_460n)
    expect(quantizePrice(0, 2)).toBe(1n)
  })

  it('keeps every simulated price valid and statistics within the last 24 h of 1-minute klines', () => {
    const clock = manualClock()
    const ex = createPerpsExchange({ clock, instruments: generateInstruments(8) })
    clock.advance(90 * 60_000)
    const stats = Statistics.parse(ex.statistics())
    for (const s of stats) {
      expect(s.klines.length).toBeLessThanOrEqual(1_440)
      expect(s.klines.length).toBeGreaterThanOrEqual(1_439)
      const first = s.klines[0]!
      const last = s.klines[s.klines.length - 1]!
      expect(last[0]).toBe(Math.floor(clock.now() / 60_000) * 60_000)
      expect(first[0]).toBeGreaterThanOrEqual(clock.now() - 24 * 3_600_000)
      expect(s.open_price).toBe(first[1])
      for (const k of s.klines) {
        for (const p of [k[1], k[2], k[3], k[4]]) expect(validPrice(p)).toBe(true)
        expect(Number(k[2])).toBeGreaterThanOrEqual(Math.max(Number(k[1]), Number(k[4])))
        expect(Number(k[3])).toBeLessThanOrEqual(Math.min(Number(k[1]), Number(k[4])))
      }
      const total = s.klines.reduce((sum, k) => sum + Number(k[5]), 0)
      expect(Number(s.volume)).toBeCloseTo(total, 3)
    }
    expect(ex.statistics(3).map((s) => s.instrument_id)).toEqual([3])
    const idx = ex.index('BTC')
    expect(idx.constituents.map((c) => c.source)).toEqual(['chainlink', 'pyth', 'redstone'])
    expect(idx.ts).toBe(clock.now())
  })

  it('fills skipped minutes flat and never holds more than its capacity', () => {
    const ring = new KlineRing(5)
    ring.record(0, 100, 1, 1)
    ring.record(30_000, 105, 2, 1)
    ring.record(3 * 60_000 + 1, 90, 3, 2)
    expect(ring.toWire(0, 0, 0)).toEqual([
      [0, '100', '105', '100', '105', '3', 2],
      [60_000, '105', '105', '105', '105', '0', 0],
      [120_000, '105', '105', '105', '105', '0', 0],
      [180_000, '105', '105', '90', '90', '3', 2],
    ])
    ring.record(100 * 60_000, 80, 1, 1)
    const wire = ring.toWire(0, 0, 0)
    expect(wire).toHaveLength(5)
    expect(wire.map((k) => k[0])).toEqual([96, 97, 98, 99, 100].map((m) => m * 60_000))
  })

  it('gives only the newest klines when asked: the same tuples as the tail of the whole answer', () => {
    const ring = new KlineRing(10)
    for (let m = 0; m < 6; m++) ring.record(m * 60_000, 100 + m, 1, 1)
    const all = ring.toWire(0, 0, 0)
    expect(ring.toWire(0, 0, 0, 2)).toEqual(all.slice(-2))
    expect(ring.toWire(0, 0, 0, 1)).toEqual(all.slice(-1))
    expect(ring.toWire(0, 0, 0, 50)).toEqual(all)
    // The window still applies: the newest 3 of those from minute 4 on are the two there are.
    expect(ring.toWire(4 * 60_000, 0, 0, 3)).toEqual(all.slice(-2))
  })

  it('reuses the wire tuples of closed klines, never of the newest, and drops them when a slot is reused', () => {
    const ring = new KlineRing(3)
    ring.record(0, 100, 1, 1)
    ring.record(60_000, 101, 1, 1)
    const first = ring.toWire(0, 1, 0)
    const again = ring.toWire(0, 1, 0)
    expect(again[0]).toBe(first[0])
    ring.record(60_001, 104, 2, 1)
    ring.addVolume(5, 1)
    const later = ring.toWire(0, 1, 0)
    expect(later[0]).toBe(first[0])
    expect(later[1]).toEqual([60_000, '10', '10.4', '10', '10.4', '8', 3])
    // Other decimals: fresh tuples.
    expect(ring.toWire(0, 2, 0)[0]).toEqual([0, '1', '1', '1', '1', '1', 1])
    ring.record(120_000, 90, 1, 1)
    ring.record(180_000, 80, 1, 1)
    expect(ring.toWire(0, 1, 0).map((k) => [k[0], k[4]])).toEqual([
      [60_000, '10.4'],
      [120_000, '9'],
      [180_000, '8'],
    ])
  })

  it('bounds catch-up work when the clock jumps by a month', () => {
    const clock = manualClock()
    const ex = createPerpsExchange({
      clock,
      instruments: generateInstruments(50),
      historyMinutes: 10,
      maxInstrumentStepsPerAdvance: 200_000,
    })
    // CPU time, not wall time: a loaded machine stretches the wall clock, not the work (issue 34).
    const cpu0 = process.cpuUsage()
    clock.advance(30 * 86_400_000)
    ex.sync()
    const cpu = process.cpuUsage(cpu0)
    expect((cpu.user + cpu.system) / 1_000).toBeLessThan(5_000)
    expect(ex.simTime).toBe(clock.now())
    const s = ex.statistics(1)[0]!
    expect(s.klines.length).toBe(1_440)
    // A backwards clock is ignored.
    clock.set(START)
    ex.sync()
    expect(ex.simTime).toBe(START + 30 * 86_400_000)
  })
})

describe('position math', () => {
  it('averages entries, realizes PnL on reduction and flips cleanly', () => {
    const pos = newPosition(1)
    expect(applyFill(pos, 10n, 100n)).toBe(0n)
    expect(applyFill(pos, 10n, 110n)).toBe(0n)
    expect(pos).toMatchObject({ size: 20n, cost: 2_100n })
    // Sell 5 at 120 against an average of 105: +75.
    expect(applyFill(pos, -5n, 120n)).toBe(75n)
    expect(pos).toMatchObject({ size: 15n, cost: 1_575n })
    // Sell 20 at 100: closes 15 (−75) and opens a 5 short at 100.
    expect(applyFill(pos, -20n, 100n)).toBe(-75n)
    expect(pos).toMatchObject({ size: -5n, cost: -500n })
  })

  it('solves the liquidation price exactly (long and short)', () => {
    // Long 100 @ 100 with equity 1,000, 20×: P = 9,000 / 97.5 = 92.3077 → 9,231 ticks at 2 decimals.
    expect(
      liquidationPriceTicks({
        size: 100n,
        qd: 0,
        pd: 2,
        markTicks: 10_000n,
        leverage: 20,
        equityMicros: 1_000_000_000n,
        otherMaintenanceMicros: 0n,
      }),
    ).toBe(9_231n)
    // Short 100 @ 100: P = 11,000 / 102.5 = 107.317 → 10,732.
    expect(
      liquidationPriceTicks({
        size: -100n,
        qd: 0,
        pd: 2,
        markTicks: 10_000n,
        leverage: 20,
        equityMicros: 1_000_000_000n,
        otherMaintenanceMicros: 0n,
      }),
    ).toBe(10_732n)
    // Over-collateralized long: no positive liquidation price.
    expect(
      liquidationPriceTicks({
        size: 1n,
        qd: 0,
        pd: 2,
        markTicks: 10_000n,
        leverage: 2,
        equityMicros: 1_000_000_000n,
        otherMaintenanceMicros: 0n,
      }),
    ).toBe(0n)
  })
})
