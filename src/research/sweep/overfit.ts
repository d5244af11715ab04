/**
 * The overfitting guard on the sweep page (issue 39.4): the deflated Sharpe ratio (Bailey & López de
 * Prado, "The Deflated Sharpe Ratio", 2014). The best of N trials has a high Sharpe ratio by luck
 * alone; DSR is the probability that the chosen point's true Sharpe is above zero after allowing for
 * how many points were tried (the expected maximum of N Sharpe ratios drawn with the trials' spread),
 * the sample length, and the skew and kurtosis of its PnL changes. Below 0.95: the pick may be luck.
 * Sharpe ratios here are per sample (not annualised), as the paper's formula needs.
 */

const EULER_GAMMA = 0.5772156649015329

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 through erf; |error| < 1.5e-7). */
export function normCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2
  const t = 1 / (1 + 0.3275911 * z)
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-z * z)
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf)
}

/** Inverse standard normal CDF (Acklam's rational approximation; relative error < 1.2e-9). */
export function normInv(p: number): number {
  if (!(p > 0 && p < 1)) return p <= 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const lo = 0.02425
  const poly = (k: readonly number[], x: number): number => k.reduce((s, v) => s * x + v, 0)
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p))
    return poly(c, q) / (poly(d, q) * q + 1)
  }
  if (p > 1 - lo) {
    const q = Math.sqrt(-2 * Math.log(1 - p))
    return -poly(c, q) / (poly(d, q) * q + 1)
  }
  const q = p - 0.5
  const r = q * q
  return (poly(a, r) * q) / (poly(b, r) * r + 1)
}

/** Expected maximum Sharpe ratio of `trials` independent tries with the given variance of Sharpe. */
export function expectedMaxSharpe(trials: number, variance: number): number {
  if (trials < 2 || !(variance > 0)) return 0
  return (
    Math.sqrt(variance) *
    ((1 - EULER_GAMMA) * normInv(1 - 1 / trials) + EULER_GAMMA * normInv(1 - 1 / (trials * Math.E)))
  )
}

/**
 * DSR of the chosen point: its per-sample Sharpe `sr` over `samples` PnL changes with that skew and
 * (non-excess) kurtosis, against the Sharpe ratios of every trial. Undefined with fewer than 3
 * samples or a non-finite result.
 */
export function deflatedSharpe(o: {
  sr: number
  samples: number
  skew: number
  kurtosis: number
  trialSharpes: readonly number[]
}): number | undefined {
  const n = o.trialSharpes.length
  if (o.samples < 3 || n < 1) return undefined
  const mean = o.trialSharpes.reduce((s, x) => s + x, 0) / n
  const variance = n > 1 ? o.trialSharpes.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1) : 0
  const sr0 = expectedMaxSharpe(n, variance)
  const denom = 1 - o.skew * o.sr + ((o.kurtosis - 1) / 4) * o.sr * o.sr
  if (!(denom > 0)) return undefined
  const p = normCdf(((o.sr - sr0) * Math.sqrt(o.samples - 1)) / Math.sqrt(denom))
  return Number.isFinite(p) ? p : undefined
}

/** Per-sample Sharpe, skew and kurtosis of a series of changes. */
export function changeMoments(d: readonly number[]): { sr: number; skew: number; kurtosis: number } {
  const n = d.length
  if (n < 2) return { sr: 0, skew: 0, kurtosis: 3 }
  const mean = d.reduce((s, x) => s + x, 0) / n
  const m2 = d.reduce((s, x) => s + (x - mean) ** 2, 0) / n
  if (!(m2 > 0)) return { sr: 0, skew: 0, kurtosis: 3 }
  const m3 = d.reduce((s, x) => s + (x - mean) ** 3, 0) / n
  const m4 = d.reduce((s, x) => s + (x - mean) ** 4, 0) / n
  return { sr: mean / Math.sqrt(m2), skew: m3 / m2 ** 1.5, kurtosis: m4 / (m2 * m2) }
}
