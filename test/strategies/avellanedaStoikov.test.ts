import { describe, expect, it } from 'vitest'
import type { Kline } from '../../src/perps/schemas/info.ts'
import { avellanedaStoikovBps, ewmaVolatility, fillIntensity } from '../../src/strategy/estimators.ts'
import { avellanedaStoikovQuote, strategy } from '../../strategies/avellanedaStoikov.ts'
import { makeSnapshot, NOW } from '../strategy/fixtures.ts'

const params = (over: Record<string, unknown> = {}) =>
  strategy.paramsSchema.parse({ size: '1', positionCap: '10', ...over })

/** Minutes whose prints reached `up` above and `down` below the open (fractions); closes zigzag by `r`. */
function minutes(n: number, reach: (i: number) => [number, number], r = 0.001): Kline[] {
  return Array.from({ length: n }, (_, i): Kline => {
    const o = i % 2 === 0 ? 100 : 100 * (1 + r)
    const c = i % 2 === 0 ? 100 * (1 + r) : 100
    const [up, down] = reach(i)
    const h = Math.max(o * (1 + up), c)
    const l = Math.min(o * (1 - down), c)
    return [NOW - (n - i) * 60_000, String(o), String(h), String(l), String(c), '1', 1]
  })
}

describe('estimators', () => {
  it('EWMA volatility of ±r minute returns is r per √minute, in per-√second units', () => {
    const k = minutes(40, () => [0, 0], 0.001)
    expect(ewmaVolatility(k, 15, 10)).toBeCloseTo(Math.log(1.001) / Math.sqrt(60), 8)
    expect(ewmaVolatility(k.slice(0, 5), 15, 10)).toBeUndefined()
  })

  it('weighs the newest returns most', () => {
    const calmThenWild = [...minutes(30, () => [0, 0], 0.0001), ...minutes(10, () => [0, 0], 0.01)]
    const short = ewmaVolatility(calmThenWild, 2, 5) ?? 0
    const long = ewmaVolatility(calmThenWild, 200, 5) ?? 0
    expect(short).toBeGreaterThan(long)
  })

  it('fits the decay of fill intensity with distance from exponential excursions', () => {
    // Excursions at the quantiles of an exponential law with rate k0: P(excursion ≥ δ) = e^(−k0·δ).
    const k0 = 2_000
    const n = 200
    const q = (i: number) => -Math.log(1 - (i + 0.5) / n) / k0
    const fit = fillIntensity(
      minutes(n / 2, (i) => [q(2 * i), q(2 * i + 1)], 0),
      n,
    )
    expect(fit).toBeDefined()
    expect(fit?.k).toBeGreaterThan(k0 * 0.6)
    expect(fit?.k).toBeLessThan(k0 * 1.6)
    // Faster-thinning prints (larger k0) fit a larger k.
    const steeper = fillIntensity(
      minutes(n / 2, (i) => [q(2 * i) / 3, q(2 * i + 1) / 3], 0),
      n,
    )
    expect(steeper?.k ?? 0).toBeGreaterThan((fit?.k ?? 0) * 2)
  })

  it('has no fit from flat minutes', () => {
    expect(
      fillIntensity(
        minutes(30, () => [0, 0], 0),
        30,
      ),
    ).toBeUndefined()
  })

  it('the model: reservation leans against inventory; spread grows with volatility and with slower decay', () => {
    const base = { inventory: 0, gamma: 40, sigma: 0.0002, horizonS: 60, k: 1_000 }
    const flat = avellanedaStoikovBps(base)
    expect(flat.reservationShiftBps).toBeCloseTo(0, 12)
    expect(avellanedaStoikovBps({ ...base, inventory: 5 }).reservationShiftBps).toBeLessThan(-0.5)
    expect(avellanedaStoikovBps({ ...base, inventory: -5 }).reservationShiftBps).toBeGreaterThan(0.5)
    expect(avellanedaStoikovBps({ ...base, sigma: 0.001 }).halfSpreadBps).toBeGreaterThan(flat.halfSpreadBps)
    expect(avellanedaStoikovBps({ ...base, k: 5_000 }).halfSpreadBps).toBeLessThan(flat.halfSpreadBps)
    // (2/γ)·ln(1 + γ/k)/2 + γσ²T/2 in bps.
    expect(flat.halfSpreadBps).toBeCloseTo(((2 / 40) * Math.log(1.04) + 40 * 4e-8 * 60) * 5_000, 9)
  })
})

describe('avellaneda-stoikov: quotes', () => {
  const stats = (k: Kline[]) => ({ volume: '1', openPrice: '100', klines: k })
  const market = minutes(60, (i) => [(i % 7) * 0.0003, (i % 5) * 0.0004], 0.001)

  it('quotes both sides around the index when flat', () => {
    const q = strategy.quote(makeSnapshot({ statistics: stats(market) }), params())
    const bid = q.find((x) => x.side === 'buy')
    const ask = q.find((x) => x.side === 'sell')
    expect(Number(bid?.price)).toBeLessThan(100)
    expect(Number(ask?.price)).toBeGreaterThan(100)
    expect(100 - Number(bid?.price)).toBeCloseTo(Number(ask?.price) - 100, 1)
  })

  it('long inventory lowers both quotes; short raises them (capped at maxSkewBps)', () => {
    const p = params({ gamma: 2_000, maxSkewBps: 30 })
    const at = (positionSize: string | undefined) =>
      strategy.quote(makeSnapshot({ statistics: stats(market), positionSize }), p).map((x) => Number(x.price))
    const [flatBid = 0, flatAsk = 0] = at(undefined)
    const [longBid = 0, longAsk = 0] = at('5')
    const [shortBid = 0, shortAsk = 0] = at('-5')
    expect(longBid).toBeLessThan(flatBid)
    expect(longAsk).toBeLessThan(flatAsk)
    expect(shortBid).toBeGreaterThan(flatBid)
    expect(shortAsk).toBeGreaterThan(flatAsk)
    expect(avellanedaStoikovQuote(market, 1e9, p).shiftBps).toBe(-30)
  })

  it('without klines it guesses: at least halfway to maxSpreadBps', () => {
    const m = avellanedaStoikovQuote(undefined, 0, params({ minSpreadBps: 2, maxSpreadBps: 100 }))
    expect(m.estimated).toBe(false)
    expect(m.halfSpreadBps).toBeGreaterThanOrEqual(51)
    expect(strategy.quote(makeSnapshot({ index: undefined }), params())).toEqual([])
  })
})
