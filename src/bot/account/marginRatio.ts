/**
 * Margin ratio = total maintenance margin / total account value: 0 with no positions, 1 at the
 * liquidation threshold (equity = maintenance margin), Infinity when equity is gone. Floats are fine
 * here: the ratio is a risk signal and never goes back on the wire.
 */
import type { Portfolio } from '../../perps/schemas/account.ts'

export function marginRatio(p: Pick<Portfolio, 'margin'>): number {
  const mm = Number(p.margin.total_maintenance_margin)
  const equity = Number(p.margin.total_account_value)
  if (mm <= 0) return 0
  if (equity <= 0) return Number.POSITIVE_INFINITY
  return mm / equity
}

/** |mark − liquidation| / mark for a position, or undefined when there is no liquidation price. */
export function liquidationDistance(
  markPrice: number,
  liquidationPrice: string | undefined,
): number | undefined {
  if (liquidationPrice === undefined) return undefined
  const liq = Number(liquidationPrice)
  if (!(liq > 0) || !(markPrice > 0)) return undefined
  return Math.abs(markPrice - liq) / markPrice
}
