/**
 * Which points a sweep runs (issue 39.4): every grid combination, `trials` random points over the
 * ranges, or `trials` TPE proposals in rounds of `batch` (each round learns from the in-sample scores
 * of the points before it). `evaluate` runs a round (on the pool or inline); the results come back in
 * the order the points were proposed.
 */
import { seededRandom } from '../../random.ts'
import { expandGrid, type GridAxis, type GridPoint } from './grid.ts'
import { type Objective, score } from './objective.ts'
import { type RangeAxis, randomPoint, rangeValues, type Trial, tpePoint } from './search.ts'
import type { SweepResult } from './task.ts'

export const SEARCHES = ['grid', 'random', 'tpe'] as const
export type SearchMode = (typeof SEARCHES)[number]

export interface SearchPlan {
  mode: SearchMode
  grid: readonly GridAxis[]
  ranges: readonly RangeAxis[]
  trials: number
  seed: number
  /** Points per TPE round (the pool's workers, at least 1). */
  batch: number
  objective: Objective
}

/** The axes the page and CSV show: grid axes, then each range with the values it took. */
export function shownAxes(plan: SearchPlan, points: readonly GridPoint[]): GridAxis[] {
  return [
    ...plan.grid,
    ...plan.ranges.map((r) => ({
      key: r.key,
      values: [
        ...new Set(points.map((p) => p[r.key]).filter((v): v is number => typeof v === 'number')),
      ].sort((a, b) => a - b),
    })),
  ]
}

/** The axes of the points run (each key with the values it took, ascending): the page's heatmap. */
export function axesOf(points: readonly GridPoint[]): GridAxis[] {
  const keys = [...new Set(points.flatMap((p) => Object.keys(p)))]
  return keys.map((key) => {
    const values = [...new Set(points.map((p) => p[key]).filter((v) => v !== undefined))]
    return {
      key,
      values: values.every((v) => typeof v === 'number')
        ? values.sort((a, b) => Number(a) - Number(b))
        : values,
    }
  })
}

/**
 * The grid's points (ranges by their steps), or what a search is checked with before it runs: the
 * ranges' corners and a point inside them off any whole number (a whole-bps parameter without a
 * step would otherwise fail mid-search).
 */
export function plannedPoints(plan: SearchPlan): GridPoint[] {
  if (plan.mode === 'grid')
    return expandGrid([...plan.grid, ...plan.ranges.map((r) => ({ key: r.key, values: rangeValues(r) }))])
  const inside = (r: RangeAxis): number => {
    const x = r.lo + 0.37 * (r.hi - r.lo)
    return r.step === undefined ? Number(x.toPrecision(6)) : r.lo + Math.round((x - r.lo) / r.step) * r.step
  }
  return [
    Object.fromEntries(plan.ranges.map((r) => [r.key, r.lo])),
    Object.fromEntries(plan.ranges.map((r) => [r.key, r.hi])),
    Object.fromEntries(plan.ranges.map((r) => [r.key, inside(r)])),
  ]
}

export async function runSearch(
  plan: SearchPlan,
  evaluate: (points: readonly GridPoint[], firstIndex: number) => Promise<SweepResult[]>,
): Promise<SweepResult[]> {
  if (plan.mode === 'grid') return evaluate(plannedPoints(plan), 0)
  const rng = seededRandom((plan.seed ^ 0x7e57) >>> 0)
  if (plan.mode === 'random')
    return evaluate(
      Array.from({ length: plan.trials }, () => randomPoint(plan.ranges, rng)),
      0,
    )
  const results: SweepResult[] = []
  const history: Trial[] = []
  while (results.length < plan.trials) {
    const n = Math.min(Math.max(1, plan.batch), plan.trials - results.length)
    const round = Array.from({ length: n }, () => tpePoint(plan.ranges, history, rng))
    for (const r of await evaluate(round, results.length)) {
      results.push(r)
      history.push({ point: r.point, score: score(r.inSample, plan.objective) })
    }
  }
  return results
}
