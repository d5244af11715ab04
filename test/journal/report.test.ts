import { describe, expect, it } from 'vitest'
import { buildReport, type ReportInput, summarizeTransfers } from '../../src/journal/reading/report.ts'

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
        inventoryPnl: '0',
        endPosition: '',
      },
    ])
  })

  it('hours are wall hours: a minute counts once for the account, and a run’s last minute for its part', () => {
    const m = D0 + 10 * H
    const snaps = [
      // Two instruments quoting in the same two minutes: 2 wall minutes, not 4 instrument-minutes.
      { minute: m, iid: 1, unrealizedPnl: '0', mode: 'quoting' },
      { minute: m, iid: 2, unrealizedPnl: '0', mode: 'quoting' },
      { minute: m + 60_000, iid: 1, unrealizedPnl: '0', mode: 'quoting' },
      { minute: m + 60_000, iid: 2, unrealizedPnl: '0', mode: 'quoting.widened' },
      // The stop 12 s into the next minute: 12 s halted, not a whole minute.
      { minute: m + 120_000, iid: 1, unrealizedPnl: '0', mode: 'halted', spanMs: 12_000 },
    ]
    const rows = buildReport(input({ fills: [], funding: [], snapshots: snaps }), 'instrument')
    const total = rows.at(-1)
    expect(total?.quotingHours).toBeCloseTo(2 / 60, 12)
    expect(total?.haltedHours).toBeCloseTo(12 / 3_600, 12)
    expect(rows[0]?.quotingHours).toBeCloseTo(2 / 60, 12)
    expect(rows[1]?.quotingHours).toBeCloseTo(2 / 60, 12)
  })

  it('the opening inventory’s change in value is shown apart and never in net; end positions per instrument', () => {
    const rows = buildReport(
      input({
        fills: [
          {
            ts: D0 + H + 1,
            iid: 1,
            price: '100',
            qty: '0.5',
            taker: false,
            fee: '0',
            realizedPnl: '0',
            side: 'short',
          },
        ],
        funding: [],
        snapshots: [
          { minute: D0 + H, iid: 1, unrealizedPnl: '500', inventoryPnl: '0', position: '2', mode: 'quoting' },
          {
            minute: D0 + 2 * H,
            iid: 1,
            unrealizedPnl: '800',
            inventoryPnl: '300',
            position: '1.5',
            mode: 'quoting',
          },
        ],
        alerts: [],
      }),
      'day',
    )
    const total = rows.at(-1)
    expect(total).toMatchObject({
      unrealizedPnl: '500',
      inventoryPnl: '300',
      netPnl: '500',
      endPosition: 'BTC-PERP 1.5',
    })
    // The first day's end: the last snapshot (1.5), the fill came before it.
    expect(rows[0]?.endPosition).toBe('BTC-PERP 1.5')
  })

  it('the end position counts a fill once: the stop’s snapshot was read after it', () => {
    const m = D0 + 5 * H
    const rows = buildReport(
      input({
        fills: [
          {
            ts: m + 20_000,
            iid: 1,
            price: '1',
            qty: '0.5',
            taker: false,
            fee: '0',
            realizedPnl: '0',
            side: 'long',
          },
        ],
        funding: [],
        snapshots: [
          { minute: m, iid: 1, unrealizedPnl: '0', position: '1', mode: 'quoting' },
          // The stop, 40 s into the minute: the position after the fill.
          { minute: m, iid: 1, unrealizedPnl: '0', position: '1.5', mode: 'quoting', spanMs: 40_000 },
        ],
        alerts: [],
      }),
      'instrument',
    )
    expect(rows.at(-1)?.endPosition).toBe('BTC-PERP 1.5')
  })

  it('per run: each run of the account its own row, within the window', () => {
    const rows = buildReport(
      input({
        runs: [
          { runId: 'aaaaaaaa-1', startedAt: D0 + H / 2, stoppedAt: D0 + 3 * H },
          { runId: 'bbbbbbbb-2', startedAt: D0 + 24 * H, stoppedAt: undefined },
        ],
      }),
      'run',
    )
    expect(rows.map((r) => [r.key, r.fills])).toEqual([
      [`${new Date(D0 + H / 2).toISOString().slice(0, 19)}Z aaaaaaaa`, 2],
      [`${new Date(D0 + 24 * H).toISOString().slice(0, 19)}Z bbbbbbbb`, 1],
      ['total', 3],
    ])
  })

  it('the drawdown walks the 2-s equity samples where the journal holds them (swings inside a minute)', () => {
    const equity = [
      { at: D0 - 1_000, net: '5' },
      // Inside one minute: up 3, down 13, back: the minute snapshots never saw it.
      { at: D0 + 2_000, net: '8' },
      { at: D0 + 4_000, net: '-5' },
      { at: D0 + 6_000, net: '4' },
    ]
    const [day1, , total] = buildReport(input({ equity }), 'day')
    expect(day1?.maxDrawdown).toBe('13')
    expect(total?.maxDrawdown).toBe('13')
    // Per instrument the account's curve does not apply: the minute curve.
    expect(buildReport(input({ equity }), 'instrument')[0]?.maxDrawdown).not.toBe('13')
  })

  it('transfers in asset units: base units with the decimals, a decimal amount as it is, else unknown', () => {
    const transfers = [
      { kind: 'withdrawal', status: 'confirmed', asset: 'pUSD', amount: '100000000' },
      { kind: 'withdrawal', status: 'confirmed', asset: 'pUSD', amount: '2.5' },
      { kind: 'deposit', status: 'confirmed', asset: 'XYZ', amount: '7' },
    ]
    expect(summarizeTransfers(input({ transfers, assetDecimals: new Map([['pUSD', 6]]) }))).toEqual([
      { kind: 'deposit', status: 'confirmed', asset: 'XYZ', count: 1, unit: 'XYZ', amount: undefined },
      { kind: 'withdrawal', status: 'confirmed', asset: 'pUSD', count: 2, unit: 'pUSD', amount: '102.5' },
    ])
  })

  it('report, dashboard history and simulate share one drawdown function', async () => {
    const shared = await import('../../src/pnlDrawdown.ts')
    const sim = await import('../../src/sim/simulate/summary.ts')
    expect(sim.maxDrawdown).toBe(shared.maxDrawdown)
    expect(shared.maxDrawdown([0, 5, -8, 3, -10, 2])).toBe(15)
  })
})
