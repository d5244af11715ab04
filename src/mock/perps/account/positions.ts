/**
 * Position and margin math in exact integers: average entry as a signed cost basis, realized PnL on
 * reduction, effective leverage from risk tiers, and the cross-margin liquidation price.
 * Units: sizes in quantity ticks (qd), prices in price ticks (pd), cost basis at scale qd+pd, USD in
 * micros (money.ts).
 */
import { divRound, fromTicks, pow10 } from '../../../decimal.ts'
import { abs, minBig, rescaleTicks, sign, USD_DECIMALS } from '../money.ts'

export interface PositionState {
  iid: number
  /** Signed contracts in quantity ticks (negative = short). */
  size: bigint
  /** Signed cost basis Σ qty × price at scale qd+pd; same sign as `size`. */
  cost: bigint
  /** Funding paid (positive) or received (negative) since the position opened, USD micros. */
  cumulativeFunding: bigint
}

export function newPosition(iid: number): PositionState {
  return { iid, size: 0n, cost: 0n, cumulativeFunding: 0n }
}

/**
 * Applies a fill of signed `qty` ticks at `price` ticks. Returns the realized PnL at scale qd+pd
 * (non-zero only when the fill reduces or flips the position).
 */
export function applyFill(pos: PositionState, qty: bigint, price: bigint): bigint {
  if (qty === 0n) return 0n
  if (pos.size === 0n || sign(pos.size) === sign(qty)) {
    if (pos.size === 0n) pos.cumulativeFunding = 0n
    pos.size += qty
    pos.cost += qty * price
    return 0n
  }
  const closing = minBig(abs(qty), abs(pos.size))
  const costRemoved = divRound(pos.cost * closing, abs(pos.size), 'half-even')
  const realized = sign(pos.size) * closing * price - costRemoved
  pos.size -= sign(pos.size) * closing
  pos.cost -= costRemoved
  const flip = abs(qty) - closing
  if (pos.size === 0n) {
    pos.cost = 0n
    pos.cumulativeFunding = 0n
  }
  if (flip > 0n) {
    pos.size = sign(qty) * flip
    pos.cost = pos.size * price
  }
  return realized
}

/** Unrealized PnL at scale qd+pd. */
export function unrealizedScaled(pos: PositionState, markTicks: bigint): bigint {
  return pos.size * markTicks - pos.cost
}

/** Scale qd+pd → USD micros. */
export function scaledToMicros(v: bigint, qd: number, pd: number): bigint {
  return rescaleTicks(v, qd + pd, USD_DECIMALS)
}

/** Extra decimals the average entry price carries beyond the instrument's price decimals. */
export const ENTRY_EXTRA_DECIMALS = 4

/** Average entry price as a wire string (price decimals + 4, trailing zeros trimmed). */
export function entryPriceString(pos: PositionState, pd: number): string {
  if (pos.size === 0n) return '0'
  const scaled = divRound(pos.cost * pow10(ENTRY_EXTRA_DECIMALS), pos.size, 'half-even')
  return fromTicks(scaled, pd + ENTRY_EXTRA_DECIMALS)
}

/** Max leverage of the highest tier whose lower bound (USD micros) the notional reaches. */
export function tierMaxLeverage(
  tiers: readonly { lowerBoundMicros: bigint; maxLeverage: number }[],
  notionalMicros: bigint,
): number {
  let lev = tiers[0]?.maxLeverage ?? 1
  for (const t of tiers) if (notionalMicros >= t.lowerBoundMicros) lev = t.maxLeverage
  return lev
}

/**
 * Cross-margin liquidation price of one position: the mark `P` at which account equity equals
 * total maintenance margin, other positions held at their marks. With E0 = equity now, MMo = the
 * other positions' maintenance margin, s = size, m = mark, L = leverage and MM = IM / 2:
 *   E0 + s·(P − m) = MMo + |s|·P / (2L)  ⇒  P = (MMo − E0 + s·m) / (s − |s| / (2L)).
 * Returns price ticks, 0 when no positive price liquidates (e.g. an over-collateralized long).
 */
export function liquidationPriceTicks(args: {
  size: bigint
  qd: number
  pd: number
  markTicks: bigint
  leverage: number
  equityMicros: bigint
  otherMaintenanceMicros: bigint
}): bigint {
  const { size, qd, pd, markTicks, equityMicros, otherMaintenanceMicros } = args
  if (size === 0n) return 0n
  const twoL = 2n * BigInt(args.leverage)
  const micro = pow10(USD_DECIMALS)
  const num = (otherMaintenanceMicros - equityMicros) * pow10(qd + pd) + size * markTicks * micro
  const den = (twoL * size - abs(size)) * micro
  if (den === 0n) return 0n
  const p = divRound(num * twoL, den, 'half-even')
  return p > 0n ? p : 0n
}
