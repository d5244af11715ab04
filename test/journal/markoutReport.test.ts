/**
 * The report's markouts are the analytics' (src/analytics/markouts.ts): the same fills and mids give
 * the same figures whether the simulator's online tracker sees the mids as prices or the report reads
 * them from the journal; per row, a fill counts in its own row only.
 */
import { describe, expect, it } from 'vitest'
import { MarkoutTracker } from '../../src/analytics/markouts.ts'
import { fillMarkoutsBps, markoutRows, markoutsOf } from '../../src/journal/reading/markoutReport.ts'
import type { ReportFill, ReportInput } from '../../src/journal/reading/report.ts'

const DAY = 86_400_000
const T0 = Date.UTC(2026, 11, 6)

/** Our fills on three instruments, each with its mids at 0, 1, 10, 60 s (some unknown). */
const FILLS: ReportFill[] = [
  {
    ts: T0 + 1_000,
    iid: 1,
    price: '100',
    qty: '2',
    side: 'long',
    mids: ['100.05', '100.1', '99.9', '100.3'],
  },
  {
    ts: T0 + 2_000,
    iid: 2,
    price: '50',
    qty: '-4',
    side: 'short',
    mids: ['49.98', '49.9', '50.2', undefined],
  },
  {
    ts: T0 + DAY + 5_000,
    iid: 3,
    price: '2000',
    qty: '0.5',
    side: 'long',
    mids: [undefined, '2001', '1990', '2010'],
  },
].map((f, i) => ({
  ...f,
  taker: false,
  fee: '0',
  realizedPnl: '0',
  tradeId: `t${i}`,
  orderId: i,
}))

/** The simulator's path: one tracker, fills in, then each mid as the instrument's price at its moment. */
function online(fills: readonly ReportFill[]) {
  const tracker = new MarkoutTracker()
  const horizons = [0, 1_000, 10_000, 60_000]
  for (const f of fills) {
    const buy = f.side === 'long'
    tracker.fill({ iid: f.iid, t: f.ts, price: Number(f.price), qty: Math.abs(Number(f.qty)), buy, fee: 0 })
    horizons.forEach((h, k) => {
      const mid = f.mids?.[k]
      if (mid !== undefined) tracker.price(f.iid, f.ts + h, Number(mid))
    })
  }
  return tracker.summary()
}

describe("the report's markouts", () => {
  it('equal what the analytics compute from the same mids', () => {
    // Each fill is on its own instrument, so the online tracker's steps touch that fill alone.
    const measured = markoutsOf(FILLS.slice(0, 2))
    const expected = online(FILLS.slice(0, 2))
    expect(measured.capturedBps).toBeCloseTo(expected.capturedBps ?? Number.NaN, 12)
    for (const h of [1_000, 10_000, 60_000])
      expect(measured.markoutBps[h]).toBeCloseTo(expected.markoutBps[h] ?? Number.NaN, 12)
    expect(measured.adverseSelectionBps).toBeCloseTo(expected.adverseSelectionBps ?? Number.NaN, 12)
    // By hand: captured (notional 200 at +5 bps, 200 at +4 bps) = +4.5 bps; 60 s only the first, +30
    // bps; adverse selection over the fills measured at both (the first): 5 − 30 = −25 bps.
    expect(measured.capturedBps).toBeCloseTo(4.5, 9)
    expect(measured.markoutBps[60_000]).toBeCloseTo(30, 9)
    expect(measured.adverseSelectionBps).toBeCloseTo(-25, 9)
    expect(measured.measured).toEqual({ captured: 2, at: { 1000: 2, 10000: 2, 60000: 1 }, adverse: 1 })
  })

  it('per trade: the same formula, bps for us', () => {
    expect(fillMarkoutsBps(FILLS[0] as ReportFill).map((x) => x?.toFixed(6))).toEqual([
      '5.000000',
      '10.000000',
      '-10.000000',
      '30.000000',
    ])
    // A sell: the mid falling is good for us.
    expect(fillMarkoutsBps(FILLS[1] as ReportFill).map((x) => x?.toFixed(6))).toEqual([
      '4.000000',
      '20.000000',
      '-40.000000',
      undefined,
    ])
  })

  it('per day and per instrument, each fill counts in its own row; unknown stays unknown', () => {
    const input: ReportInput = {
      since: T0,
      until: T0 + 2 * DAY - 1,
      fills: FILLS,
      funding: [],
      snapshots: [],
      alerts: [],
      symbols: new Map([
        [1, 'BTC-PERP'],
        [2, 'ETH-PERP'],
        [3, 'SOL-PERP'],
      ]),
    }
    const byDay = markoutRows(input, 'day')
    expect(byDay.map((r) => [r.key, r.summary.fills])).toEqual([
      ['2026-12-06', 2],
      ['2026-12-07', 1],
      ['total', 3],
    ])
    const second = byDay[1]?.summary
    expect(second?.capturedBps).toBeUndefined()
    expect(second?.adverseSelectionBps).toBeUndefined()
    expect(second?.measured.captured).toBe(0)
    expect(second?.markoutBps[1_000]).toBeCloseTo(5, 9)
    expect(byDay[2]?.summary.measured).toEqual({
      captured: 2,
      at: { 1000: 3, 10000: 3, 60000: 2 },
      adverse: 1,
    })
    const byInstrument = markoutRows(input, 'instrument')
    expect(byInstrument.map((r) => r.key)).toEqual(['BTC-PERP', 'ETH-PERP', 'SOL-PERP', 'total'])
    expect(byInstrument[0]?.summary.capturedBps).toBeCloseTo(5, 9)
  })
})
