/**
 * Search over parameter ranges (issue 39.4): `--range key=lo:hi[:step]` axes, sampled at random or by
 * a Tree-structured Parzen Estimator (TPE, Bergstra et al. 2011, as freqtrade's hyperopt uses through
 * optuna). No maintained JavaScript TPE exists on npm, so this is the small textbook form: after a few
 * random trials, the history is split at the best quarter of scores; each parameter gets a Parzen
 * density over the good trials, l(x), and over the rest, g(x) (Gaussians at each trial, bandwidth from
 * the neighbours' spacing); candidates drawn from l are ranked by l(x)/g(x) and the best is tried.
 * Parameters are independent (as in the original TPE). Seeded: the same flags give the same trials.
 */
import { InputValidationError } from '../../errors.ts'
import type { Random } from '../../random.ts'
import type { GridPoint } from './grid.ts'

export interface RangeAxis {
  key: string
  lo: number
  hi: number
  /** Values snap to lo + k × step when given (a whole step keeps integers whole). */
  step: number | undefined
}

/** `halfSpreadBps=2:20:1` → an axis. */
export function parseRange(arg: string): RangeAxis {
  const m =
    /^([A-Za-z][A-Za-z0-9]*)=(-?[\d.]+(?:e-?\d+)?):(-?[\d.]+(?:e-?\d+)?)(?::([\d.]+(?:e-?\d+)?))?$/.exec(
      arg.trim(),
    )
  if (m === null) throw new InputValidationError(`--range expects key=lo:hi or key=lo:hi:step, got '${arg}'`)
  const [, key = '', a = '', b = '', s] = m
  const lo = Number(a)
  const hi = Number(b)
  const step = s === undefined ? undefined : Number(s)
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || !(lo < hi))
    throw new InputValidationError(`--range ${key}: lo must be below hi, got '${arg}'`)
  if (step !== undefined && !(step > 0 && step <= hi - lo))
    throw new InputValidationError(`--range ${key}: step must be above 0 and at most hi − lo`)
  return { key, lo, hi, step }
}

const snap = (a: RangeAxis, x: number): number => {
  const c = Math.min(a.hi, Math.max(a.lo, x))
  if (a.step === undefined) return Number(c.toPrecision(6))
  const k = Math.round((c - a.lo) / a.step)
  return Number((a.lo + Math.min(k, Math.floor((a.hi - a.lo) / a.step + 1e-9)) * a.step).toPrecision(12))
}

/** Every value of a stepped axis (a grid over ranges). */
export function rangeValues(a: RangeAxis): number[] {
  if (a.step === undefined)
    throw new InputValidationError(`--range ${a.key}: a grid needs a step (lo:hi:step)`)
  const n = Math.floor((a.hi - a.lo) / a.step + 1e-9)
  return Array.from({ length: n + 1 }, (_, k) => snap(a, a.lo + k * a.step!))
}

export function randomPoint(axes: readonly RangeAxis[], rng: Random): GridPoint {
  return Object.fromEntries(axes.map((a) => [a.key, snap(a, a.lo + rng.next() * (a.hi - a.lo))]))
}

export interface Trial {
  point: GridPoint
  score: number
}

const SQRT_2PI = Math.sqrt(2 * Math.PI)

/**
 * Each value's Gaussian bandwidth: the larger gap to its neighbours (the range's ends count), within
 * [width / min(100, 1 + n), width] (hyperopt's "magic clip", which keeps a few points from collapsing
 * the search onto one spot).
 */
function bandwidths(sorted: readonly number[], a: RangeAxis): number[] {
  const width = a.hi - a.lo
  const floor = width / Math.min(100, 1 + sorted.length)
  return sorted.map((v, i) => {
    const left = v - (sorted[i - 1] ?? a.lo)
    const right = (sorted[i + 1] ?? a.hi) - v
    return Math.min(width, Math.max(floor, Math.max(left, right)))
  })
}

/** Parzen density of the sorted values at x, with a uniform prior over the range. */
function parzen(sorted: readonly number[], bws: readonly number[], a: RangeAxis, x: number): number {
  let sum = 0
  sorted.forEach((v, i) => {
    const bw = bws[i] ?? a.hi - a.lo
    sum += Math.exp(-0.5 * ((x - v) / bw) ** 2) / (bw * SQRT_2PI)
  })
  return (sum + 1 / (a.hi - a.lo)) / (sorted.length + 1)
}

/** One TPE proposal from the history (`startup` random trials first); higher score is better. */
export function tpePoint(
  axes: readonly RangeAxis[],
  history: readonly Trial[],
  rng: Random,
  o: { startup?: number; gamma?: number; candidates?: number } = {},
): GridPoint {
  const startup = o.startup ?? 8
  if (history.length < startup) return randomPoint(axes, rng)
  const sorted = [...history].sort((p, q) => q.score - p.score)
  const nGood = Math.max(1, Math.ceil((o.gamma ?? 0.25) * sorted.length))
  const good = sorted.slice(0, nGood)
  const bad = sorted.slice(nGood)
  const point: Record<string, number> = {}
  for (const a of axes) {
    const g = good.map((t) => Number(t.point[a.key])).sort((p, q) => p - q)
    const b = bad.map((t) => Number(t.point[a.key])).sort((p, q) => p - q)
    const gw = bandwidths(g, a)
    const bw = bandwidths(b, a)
    let best: number | undefined
    let bestRatio = Number.NEGATIVE_INFINITY
    for (let c = 0; c < (o.candidates ?? 24); c++) {
      // A draw from l(x): a good trial's value plus Gaussian noise of its bandwidth (Box–Muller).
      // The prior is one more component of l: now and then a uniform draw.
      const k = Math.floor(rng.next() * (g.length + 1))
      const z = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next())
      const x =
        k === g.length
          ? snap(a, a.lo + rng.next() * (a.hi - a.lo))
          : snap(a, (g[k] ?? a.lo) + z * (gw[k] ?? a.hi - a.lo))
      const ratio = parzen(g, gw, a, x) / parzen(b, bw, a, x)
      if (ratio > bestRatio) {
        bestRatio = ratio
        best = x
      }
    }
    point[a.key] = best ?? snap(a, a.lo)
  }
  return point
}
