import { describe, expect, it } from 'vitest'
import { buildReport, type ReportInput } from '../../src/journal/report.ts'

const D0 = Date.UTC(2026, 10, 20)
const H = 3_600_000

const input = (over: Partial<ReportInput> = {}): ReportInput => ({
  since: D0,
  until: D0 + 48 * H - 1,
  fills: [
    { ts: D0 + H, iid: 1, price: '100', qty: '2', taker: false, fee: '-0.02', realizedPnl: '0' },
    { ts: D0 + 2 * H, iid: 1, price: '90', qty: '-2', taker: true, fee: '0.09', realizedPnl: '-20' },
    { ts: D0 + 25 * H, iid: 2, price: '10', qty: '5', taker: false, fee: '-0.01', realizedPnl: '3.5' },
  ],
  funding: [
    { ts: D0 + 3 * H, iid: 1, amount: '0.5' },
    { ts: D0 + 26 * H, iid: 2, amount: '-0.25' },
  ],
  snapshots: [
    // Before the window: instrument 2 carried an unrealized 1.
    { minute: D0 - 60_000, iid: 2, unrealizedPnl: '1', mode: 'quoting' },
    { minute: D0 + H, iid: 1, unrealizedPnl: '0', mode: 'quoting' },
    { minute: D0 + H + 60_000, iid: 1, unrealizedPnl: '-4', mode: 'quoting' },
    { minute: D0 + H + 120_000, iid: 1, unrealizedPnl: '-1', mode: 'halted' },
    { minute: D0 + 25 * H, iid: 2, unrealizedPnl: '2', mode: 'quoting' },
  ],
  alerts: [
    { at: D0 + H, resolved: false },
    { at: D0 + 2 * H, resolved: true },
    { at: D0 + 30 * H, resolved: false },
  ],
  symbols: new Map([[1, 'BTC-PERP']]),
  ...over,
})

describe('buildReport', () => {
  it('per day: flows summed exactly, unrealized as the change over the day, net, maker share, alerts', () => {
    const [day1, day2, total] = buildReport(input(), 'day')
    expect(day1).toMatchObject({
      key: '2026-11-20',
      realizedPnl: '-20',
      fees: '0.07',
      funding: '0.5',
      volume: '380',
      fills: 2,
      makerShare: 0.5,
      // Instrument 1 ends the day at -1 (from none: 0); instrument 2 has no snapshot that day.
      unrealizedPnl: '-1',
      netPnl: '-21.57',
      alertsRaised: 1,
      alertsResolved: 1,
      quotingHours: 2 / 60,
      haltedHours: 1 / 60,
    })
    expect(day2).toMatchObject({
      key: '2026-11-21',
      realizedPnl: '3.5',
      fees: '-0.01',
      funding: '-0.25',
      // Instrument 2: 2 at the end of day 2, 1 before it (the snapshot before the window).
      unrealizedPnl: '1',
      netPnl: '4.76',
      alertsRaised: 1,
    })
    expect(total).toMatchObject({ key: 'total', fills: 3, netPnl: '-16.81', realizedPnl: '-16.5' })
  })

  it('max drawdown is the largest fall of flows + unrealized from a peak', () => {
    const [day1] = buildReport(input(), 'day')
    // Day 1 equity: +0.02 (maker rebate) → unrealized 0 → -4 (peak 0.02: fall 4.02) → -1 → fill -20.09 …
    // after the second fill: 0.02 - 20.09 - 1 = -21.07; funding -0.5 → -21.57: fall from 0.02 = 21.59.
    expect(day1?.maxDrawdown).toBe('21.59')
  })

  it('per instrument: symbols where known, #id otherwise; alerts only in the total', () => {
    const rows = buildReport(input(), 'instrument')
    expect(rows.map((r) => r.key)).toEqual(['BTC-PERP', '#2', 'total'])
    expect(rows[0]).toMatchObject({ fills: 2, unrealizedPnl: '-1', alertsRaised: 0 })
    expect(rows[1]).toMatchObject({ fills: 1, unrealizedPnl: '1' })
    expect(rows[2]).toMatchObject({ alertsRaised: 2 })
  })

  it('an empty window is a total of zeros', () => {
    const rows = buildReport(input({ fills: [], funding: [], snapshots: [], alerts: [] }), 'instrument')
    expect(rows).toEqual([
      {
        key: 'total',
        realizedPnl: '0',
        unrealizedPnl: '0',
        fees: '0',
        funding: '0',
        netPnl: '0',
        volume: '0',
        fills: 0,
        makerShare: undefined,
        maxDrawdown: '0',
        quotingHours: 0,
        haltedHours: 0,
        alertsRaised: 0,
        alertsResolved: 0,
      },
    ])
  })
})
