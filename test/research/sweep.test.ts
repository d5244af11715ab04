/** Sweep grids, ranking and outputs (pure): every combination, ranked in-sample, CSV and heatmap. */
import { describe, expect, it } from 'vitest'
import { expandGrid, parseAxis } from '../../src/research/sweep/grid.ts'
import type { PointMetrics } from '../../src/research/sweep/objective.ts'
import { score } from '../../src/research/sweep/objective.ts'
import { rank } from '../../src/research/sweep/runSweep.ts'
import { sweepCsv, sweepHtml } from '../../src/research/sweep/sweepReport.ts'

const m = (netPnl: number, drawdown = 0): PointMetrics => ({
  netPnl,
  sharpe: netPnl / 10,
  drawdown,
  fills: 5,
  volume: 100,
  sortino: 0,
  calmar: 0,
  profitFactor: 0,
  markout60Bps: 0,
  moments: { sr: netPnl / 100, samples: 100, skew: 0, kurtosis: 3 },
})

const timing = { runMs: 1, cpuMs: 1, loadMs: 0, thread: 0 }

describe('sweep', () => {
  it('expands every combination, first axis slowest; refuses a bad or repeated axis', () => {
    const axes = [parseAxis('halfSpreadBps=5,10'), parseAxis('skewBps=0,2.5,x')]
    expect(axes[1]?.values).toEqual([0, 2.5, 'x'])
    expect(expandGrid(axes)).toEqual([
      { halfSpreadBps: 5, skewBps: 0 },
      { halfSpreadBps: 5, skewBps: 2.5 },
      { halfSpreadBps: 5, skewBps: 'x' },
      { halfSpreadBps: 10, skewBps: 0 },
      { halfSpreadBps: 10, skewBps: 2.5 },
      { halfSpreadBps: 10, skewBps: 'x' },
    ])
    expect(() => parseAxis('noequals')).toThrow(/key=v1/)
    expect(() => expandGrid([parseAxis('a=1'), parseAxis('a=2')])).toThrow(/twice/)
  })

  it('ranks on the in-sample score only, and the drawdown objective prefers the smallest', () => {
    const results = [
      { index: 0, point: { a: 1 }, inSample: m(1, 5), outOfSample: m(9), timing },
      { index: 1, point: { a: 2 }, inSample: m(3, 1), outOfSample: m(-4), timing },
    ]
    expect(rank(results, 'net-pnl').map((r) => r.point.a)).toEqual([2, 1])
    expect(rank(results, 'net-pnl')[0]?.oosScore).toBe(-4)
    expect(rank(results, 'drawdown').map((r) => r.point.a)).toEqual([2, 1])
    expect(score(m(1, 5), 'drawdown')).toBe(-5)
  })

  it('writes a ranked CSV and an HTML heatmap with in-sample and out-of-sample maps', () => {
    const axes = [parseAxis('x=1,2'), parseAxis('y=a,b')]
    const results = expandGrid(axes).map((point, index) => ({
      index,
      point,
      inSample: m(index),
      outOfSample: m(-index),
      timing,
    }))
    const rows = rank(results, 'net-pnl')
    const csv = sweepCsv(rows, axes)
    expect(csv.split('\n')[0]).toBe(
      'rank,x,y,' +
        ['is', 'oos']
          .map((w) =>
            [
              'net_pnl_usdc',
              'sharpe',
              'sortino_annualised',
              'calmar_annualised',
              'profit_factor',
              'max_drawdown_usdc',
              'markout_60s_bps',
              'fills',
              'volume_usdc',
            ]
              .map((c) => `${w}_${c}`)
              .join(','),
          )
          .join(','),
    )
    expect(csv.split('\n')[1]).toMatch(/^1,2,b,3,/)
    const html = sweepHtml(rows, axes, {
      strategy: 'index-peg',
      objective: 'net-pnl',
      data: 'd',
      inSample: 'i',
      outOfSample: 'o',
      points: 4,
    })
    expect(html).toContain('<h3>in-sample net-pnl (USDC)</h3>')
    expect(html).toContain('<h3>out-of-sample net-pnl (USDC)</h3>')
    // Each figure once, with its unit: no separate "score" column repeating net PnL.
    expect(html).toContain('<th>in-sample net PnL (USDC)</th>')
    expect(html.match(/<th>in-sample net PnL \(USDC\)<\/th>/g)).toHaveLength(1)
    expect(html).toContain('Deflated Sharpe ratio: n/a')
    expect(html).toContain('Best in-sample: x=2, y=b')
  })
})
