/**
 * Risk-adjusted figures of a PnL path and the inventory's half-life (issue 39.3), pure. The PnL path
 * is net PnL in quote currency on a regular grid; its changes are the "returns" (no capital base is
 * assumed, so Sharpe and Sortino are scale-free), annualised by √(periods per year). Calmar is the
 * annualised PnL over the largest drawdown. All undefined where they cannot be computed (a flat path,
 * no loss, too few points).
 */

const YEAR_MS = 365 * 86_400_000

export interface RiskRatios {
  /** Annualised mean / standard deviation of the PnL changes. */
  sharpe: number | undefined
  /** Annualised mean / downside deviation (changes below zero). */
  sortino: number | undefined
  /** PnL per year / max drawdown. */
  calmar: number | undefined
}

export function riskRatios(points: readonly { t: number; v: number }[], maxDrawdown: number): RiskRatios {
  const first = points[0]
  const last = points[points.length - 1]
  if (points.length < 3 || first === undefined || last === undefined)
    return { sharpe: undefined, sortino: undefined, calmar: undefined }
  const span = last.t - first.t
  const d: number[] = []
  for (let i = 1; i < points.length; i++) d.push((points[i]?.v ?? 0) - (points[i - 1]?.v ?? 0))
  const n = d.length
  const mean = d.reduce((s, x) => s + x, 0) / n
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, n - 1))
  const down = Math.sqrt(d.reduce((s, x) => s + Math.min(0, x) ** 2, 0) / n)
  const perYear = span > 0 ? Math.sqrt((n * YEAR_MS) / span) : undefined
  const finite = (x: number): number | undefined => (Number.isFinite(x) ? x : undefined)
  return {
    sharpe: perYear !== undefined && sd > 0 ? finite((mean / sd) * perYear) : undefined,
    sortino: perYear !== undefined && down > 0 ? finite((mean / down) * perYear) : undefined,
    calmar:
      span > 0 && maxDrawdown > 0 ? finite(((last.v - first.v) * (YEAR_MS / span)) / maxDrawdown) : undefined,
  }
}

/**
 * How long the inventory takes to halve, ms: an AR(1) fit q[t+1] = ρ·q[t] of the position on its
 * grid, half-life = −ln 2 / ln ρ × step. Undefined for a position that never moves or does not revert.
 */
export function inventoryHalfLifeMs(points: readonly { t: number; q: number }[]): number | undefined {
  if (points.length < 3) return undefined
  let sxy = 0
  let sxx = 0
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]?.q ?? 0
    sxy += a * (points[i]?.q ?? 0)
    sxx += a * a
  }
  if (!(sxx > 0)) return undefined
  const rho = sxy / sxx
  const step = ((points[points.length - 1]?.t ?? 0) - (points[0]?.t ?? 0)) / (points.length - 1)
  if (!(rho > 0 && rho < 1) || !(step > 0)) return undefined
  return (-Math.LN2 / Math.log(rho)) * step
}
