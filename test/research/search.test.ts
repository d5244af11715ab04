/** Search over ranges (random, TPE), the deflated Sharpe ratio, and the page's colours. */
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../src/random.ts'
import { changeMoments, deflatedSharpe, normCdf, normInv } from '../../src/research/sweep/overfit.ts'
import {
  parseRange,
  randomPoint,
  rangeValues,
  type Trial,
  tpePoint,
} from '../../src/research/sweep/search.ts'
import { plannedPoints, runSearch } from '../../src/research/sweep/searchRun.ts'
import { colour } from '../../src/research/sweep/sweepReport.ts'
import type { SweepResult } from '../../src/research/sweep/task.ts'

describe('ranges', () => {
  it('parses key=lo:hi[:step] and refuses the rest', () => {
    expect(parseRange('gamma=5:200')).toEqual({ key: 'gamma', lo: 5, hi: 200, step: undefined })
    expect(rangeValues(parseRange('h=2:10:4'))).toEqual([2, 6, 10])
    for (const bad of ['gamma=5', 'gamma=9:1', '__proto__=1:2', 'x=1:2:0', 'x=1:2:5'])
      expect(() => parseRange(bad)).toThrow(/--range/)
  })

  it('random points stay in range and on the step', () => {
    const rng = seededRandom(3)
    const axes = [parseRange('a=1:9:2'), parseRange('b=0:1')]
    for (let i = 0; i < 50; i++) {
      const p = randomPoint(axes, rng)
      expect([1, 3, 5, 7, 9]).toContain(p.a)
      expect(p.b).toBeGreaterThanOrEqual(0)
      expect(p.b).toBeLessThanOrEqual(1)
    }
  })
})

describe('TPE', () => {
  const objective = (p: Record<string, unknown>): number => -((Number(p.x) - 7) ** 2) - (Number(p.y) - 2) ** 2

  it('finds a better point than random search with the same number of trials (several seeds)', () => {
    const axes = [parseRange('x=0:100'), parseRange('y=-50:50')]
    let tpeWins = 0
    for (const seed of [1, 2, 3, 4, 5]) {
      const rng = seededRandom(seed)
      const history: Trial[] = []
      for (let i = 0; i < 40; i++) {
        const point = tpePoint(axes, history, rng)
        history.push({ point, score: objective(point) })
      }
      const tpeBest = Math.max(...history.map((t) => t.score))
      const r = seededRandom(seed + 100)
      const randomBest = Math.max(...Array.from({ length: 40 }, () => objective(randomPoint(axes, r))))
      if (tpeBest > randomBest) tpeWins++
    }
    expect(tpeWins).toBe(5)
  })

  it('runs rounds of the batch size, learning from each, and is the same for the same seed', async () => {
    const plan = {
      mode: 'tpe' as const,
      grid: [],
      ranges: [parseRange('x=0:20:1'), parseRange('y=0:4:1')],
      trials: 12,
      seed: 9,
      batch: 3,
      objective: 'net-pnl' as const,
    }
    const rounds: number[] = []
    const evaluate = async (points: readonly Record<string, string | number>[], first: number) => {
      rounds.push(points.length)
      return points.map(
        (point, i): SweepResult => ({
          index: first + i,
          point,
          inSample: metrics(objective(point)),
          outOfSample: metrics(0),
          timing: { runMs: 0, cpuMs: 0, loadMs: 0, thread: 0 },
        }),
      )
    }
    const a = await runSearch(plan, evaluate)
    expect(rounds).toEqual([3, 3, 3, 3])
    expect((await runSearch(plan, evaluate)).map((r) => r.point)).toEqual(a.map((r) => r.point))
    expect(plannedPoints(plan)).toEqual([
      { x: 0, y: 0 },
      { x: 20, y: 4 },
      { x: 7, y: 1 },
    ])
  })
})

const metrics = (netPnl: number) => ({
  netPnl,
  sharpe: 0,
  drawdown: 0,
  fills: 0,
  volume: 0,
  sortino: 0,
  calmar: 0,
  profitFactor: 0,
  markout60Bps: 0,
  moments: { sr: 0, samples: 0, skew: 0, kurtosis: 3 },
})

describe('deflated Sharpe ratio', () => {
  it('normal CDF and its inverse agree', () => {
    for (const p of [0.001, 0.025, 0.3, 0.5, 0.9, 0.999]) expect(normCdf(normInv(p))).toBeCloseTo(p, 6)
    expect(normInv(0.975)).toBeCloseTo(1.959964, 5)
  })

  it('is the probabilistic Sharpe ratio for one trial, and falls as more points are tried', () => {
    const base = { sr: 0.1, samples: 500, skew: 0, kurtosis: 3 }
    // One trial: Φ(SR·√(T−1) / √(1 + SR²/2)).
    expect(deflatedSharpe({ ...base, trialSharpes: [0.1] })).toBeCloseTo(
      normCdf((0.1 * Math.sqrt(499)) / Math.sqrt(1 + 0.01 / 2)),
      6,
    )
    const spread = Array.from({ length: 100 }, (_, i) => (i - 50) / 500)
    const many = deflatedSharpe({ ...base, trialSharpes: spread }) ?? 1
    expect(many).toBeLessThan(deflatedSharpe({ ...base, trialSharpes: spread.slice(0, 5) }) ?? 0)
    expect(many).toBeLessThan(0.95)
    expect(deflatedSharpe({ ...base, samples: 2, trialSharpes: [0.1] })).toBeUndefined()
  })

  it('moments of a series', () => {
    const m = changeMoments([1, -1, 1, -1])
    expect(m.sr).toBeCloseTo(0, 12)
    expect(m.kurtosis).toBeCloseTo(1, 12)
  })
})

describe('the page colours', () => {
  it('a loss is never green, however the sweep ranges', () => {
    for (const [v, lo, hi] of [
      [-1, -5, -0.5],
      [-0.5, -5, -0.5],
      [-3, -3, 10],
    ] as const) {
      expect(colour(v, lo, hi, 'net-pnl')).toMatch(/^hsl\(0,/)
      expect(colour(v, lo, hi, 'sharpe')).toMatch(/^hsl\(0,/)
    }
    expect(colour(2, -3, 10, 'net-pnl')).toMatch(/^hsl\(120,/)
    expect(colour(0.8, 0.5, 3, 'profit-factor')).toMatch(/^hsl\(0,/)
    // The drawdown objective scores −drawdown: its best is still a loss, never green.
    expect(colour(-0.1, -5, -0.1, 'drawdown')).toMatch(/^hsl\(0,/)
  })
})
