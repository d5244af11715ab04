import { describe, expect, it } from 'vitest'
import { bandOf, distanceBps, FillRate } from '../../src/analytics/fillRate.ts'
import { MarketMakingAnalytics, tradesCsv } from '../../src/analytics/marketMaking.ts'
import { MarkoutTracker } from '../../src/analytics/markouts.ts'
import { inventoryHalfLifeMs, riskRatios } from '../../src/analytics/ratios.ts'
import { RoundTrips, roundTripsOfFills } from '../../src/analytics/roundTrips.ts'

describe('markouts', () => {
  it('measures the spread captured at the fill and the move after it, signed for us', () => {
    const m = new MarkoutTracker()
    // Bought at 99.9 with the mid at 100 (10.01 bps captured); the mid then falls to 99.8 (−10.01 bps).
    m.fill({ iid: 1, t: 1_000, price: 99.9, qty: 1, buy: true, fee: 0 })
    m.price(1, 1_000, 100)
    m.price(1, 2_000, 99.95)
    m.price(1, 11_000, 99.9)
    m.price(1, 61_000, 99.8)
    const s = m.summary()
    expect(s.capturedBps).toBeCloseTo((0.1 / 99.9) * 1e4, 9)
    expect(s.markoutBps[1_000]).toBeCloseTo((0.05 / 99.9) * 1e4, 9)
    expect(s.markoutBps[10_000]).toBeCloseTo(0, 9)
    expect(s.markoutBps[60_000]).toBeCloseTo((-0.1 / 99.9) * 1e4, 9)
    expect(s.adverseSelectionBps).toBeCloseTo((0.2 / 99.9) * 1e4, 9)
  })

  it('a sell that the market runs away from has a positive markout; unreached horizons stay unknown', () => {
    const m = new MarkoutTracker()
    m.fill({ iid: 2, t: 0, price: 101, qty: 2, buy: false, fee: 0 })
    m.price(2, 0, 100)
    m.price(2, 1_000, 99)
    const s = m.summary()
    expect(s.markoutBps[1_000]).toBeGreaterThan(0)
    expect(s.markoutBps[60_000]).toBeUndefined()
    expect(s.adverseSelectionBps).toBeUndefined()
  })

  it('adverse selection pairs each fill with its own 60 s mid (a fill the run ended before is left out)', () => {
    const m = new MarkoutTracker()
    m.fill({ iid: 1, t: 0, price: 100, qty: 1, buy: true, fee: 0 })
    m.price(1, 0, 100.1) // +10 bps captured
    m.price(1, 60_000, 99.9) // −10 bps at 60 s
    m.fill({ iid: 1, t: 60_000, price: 100, qty: 1, buy: true, fee: 0 })
    m.price(1, 61_000, 100.5) // the second: +50 bps captured, no 60 s mid
    const s = m.summary()
    expect(s.capturedBps).toBeCloseTo(30, 9)
    expect(s.markoutBps[60_000]).toBeCloseTo(-10, 9)
    // Over the first fill only: 10 − (−10) = 20 bps (not 30 − (−10)).
    expect(s.adverseSelectionBps).toBeCloseTo(20, 9)
    expect(s.measured).toEqual({ captured: 2, at: { 1000: 2, 10000: 1, 60000: 1 }, adverse: 1 })
  })
})

describe('round trips', () => {
  it('matches first in, first out, after fees', () => {
    const r = new RoundTrips()
    r.fill({ iid: 1, t: 0, price: 100, qty: 2, buy: true, fee: 0.02 })
    r.fill({ iid: 1, t: 1_000, price: 101, qty: 1, buy: false, fee: 0.01 }) // +1 − 0.02 = +0.98
    r.fill({ iid: 1, t: 3_000, price: 99, qty: 2, buy: false, fee: 0.02 }) // −1 − 0.02, then opens a short
    r.fill({ iid: 1, t: 4_000, price: 98, qty: 1, buy: true, fee: 0.01 }) // +1 − 0.02
    const s = r.stats()
    expect(s.trips).toBe(3)
    expect(s.wins).toBe(2)
    expect(s.winRate).toBeCloseTo(2 / 3, 12)
    expect(s.grossProfit).toBeCloseTo(0.98 + 0.98, 9)
    expect(s.grossLoss).toBeCloseTo(1.02, 9)
    expect(s.profitFactor).toBeCloseTo(1.96 / 1.02, 9)
    expect(s.meanHoldMs).toBeCloseTo((1_000 + 3_000 + 1_000) / 3, 9)
  })
})

describe('round trips of journal fills', () => {
  it('reads the venue sides and decimal strings; a fill without a side is skipped', () => {
    const s = roundTripsOfFills(
      [
        { ts: 0, iid: 1, price: '100', qty: '1', side: 'long', fee: '0' },
        { ts: 5, iid: 1, price: '99', qty: '1', side: undefined, fee: '0' },
        { ts: 9, iid: 1, price: '102', qty: '1', side: 'short', fee: '0.5' },
      ],
      (side) => side === 'long',
    )
    expect(s).toMatchObject({ trips: 1, wins: 1, grossProfit: 1.5, meanHoldMs: 9 })
  })
})

describe('ratios', () => {
  it('Sharpe, Sortino and Calmar of a PnL path; undefined when flat', () => {
    const pts = [0, 1, 0.5, 1.5, 1, 2].map((v, i) => ({ t: i * 60_000, v }))
    const r = riskRatios(pts, 0.5)
    const d = [1, -0.5, 1, -0.5, 1]
    const mean = 0.4
    const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / 4)
    const perYear = Math.sqrt((5 * 365 * 86_400_000) / 300_000)
    expect(r.sharpe).toBeCloseTo((mean / sd) * perYear, 6)
    expect(r.sortino).toBeCloseTo((mean / Math.sqrt(0.5 / 5)) * perYear, 6)
    expect(r.calmar).toBeCloseTo((2 * (365 * 86_400_000)) / 300_000 / 0.5, 3)
    expect(
      riskRatios(
        pts.map((p) => ({ ...p, v: 1 })),
        0,
      ).sharpe,
    ).toBeUndefined()
  })

  it('inventory half-life of a position that halves every step is one step', () => {
    const pts = Array.from({ length: 8 }, (_, i) => ({ t: i * 1_000, q: 64 / 2 ** i }))
    expect(inventoryHalfLifeMs(pts)).toBeCloseTo(1_000, 6)
    expect(inventoryHalfLifeMs(pts.map((p) => ({ ...p, q: 5 })))).toBeUndefined()
  })
})

describe('fill rate by distance', () => {
  it('counts resting time and fills per band', () => {
    expect(bandOf(0)).toBe(0)
    expect(bandOf(4.9)).toBe(1)
    expect(bandOf(75)).toBe(5)
    expect(distanceBps(99, true, 100)).toBeCloseTo(100, 9)
    const f = new FillRate()
    f.resting([1, 3], 3_600_000)
    f.fill(1)
    f.fill(1)
    const b = f.bands()
    expect(b[0]).toMatchObject({ restingMs: 3_600_000, fills: 2, perHour: 2 })
    expect(b[1]).toMatchObject({ fills: 0, perHour: 0 })
    expect(b[2]?.perHour).toBeUndefined()
  })
})

describe('the run analytics and the per-trade CSV', () => {
  it('gathers fills, quotes and mids; writes one CSV row per fill with units in the header', () => {
    const a = new MarketMakingAnalytics(new Map([[1, 'BTC-USDC']]))
    a.price(1, 0, 100)
    a.quote(1, 7, { price: 99.9, buy: true })
    a.price(1, 1_000, 100)
    a.fill({ iid: 1, t: 1_000, price: 99.9, qty: 1, buy: true, fee: 0.01 })
    a.quote(1, 7, undefined)
    for (let t = 1_000; t <= 61_000; t += 1_000) a.price(1, t, 100)
    const r = a.finish({ pnl: [], maxDrawdown: 0, positions: [] })
    expect(r.tradesTotal).toBe(1)
    expect(r.fillRate[2]?.fills).toBe(1) // 10 bps from the mid
    expect(r.fillRate[2]?.restingMs).toBe(1_000)
    const csv = tradesCsv(r.trades).split('\n')
    expect(csv[0]).toBe(
      'time_utc,symbol,side,price,qty_contracts,fee_quote,mid_at_fill,captured_bps,markout_1s_bps,markout_10s_bps,markout_60s_bps',
    )
    expect(csv[1]).toBe(
      '1970-01-01T00:00:01.000Z,BTC-USDC,buy,99.9,1,0.010000,100,10.010,10.010,10.010,10.010',
    )
  })
})
