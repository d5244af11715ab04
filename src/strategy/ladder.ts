/**
 * The quote ladder shared by the shipped strategies (and available to plug-ins): given a centre price
 * and spread parameters, build `levels` bids and asks in integer ticks, with inventory skew, the
 * position cap, the instrument's price bounds and order count, min notional, and the risk modes.
 *
 * Price of level i = centre × (1 + shift) × (1 ∓ (halfSpread + i × spacing)), all in whole bps and
 * computed exactly in bigint; bids round down and asks round up (to decimals and 5 significant
 * figures), so rounding only ever widens the quote and bids stay strictly below asks. Given a BBO, a
 * level that would cross it moves behind it (to one tick short of the other side, see `book.ts`).
 */
import { compareDecimal, divRound, fromTicks, mulDecimal, parseDecimal, pow10, toTicks } from '../decimal.ts'
import { behindBookTicks, bookLimitTicks } from './book.ts'
import { meetsMinNotional, minBigint, roundPriceTicks, roundQtyTicks, scaleToTicks } from './quoting.ts'
import { fundingSkewBps, imbalanceSkewBps } from './skews.ts'
import type { DesiredQuote, QuoteSide, StrategyBbo, StrategySnapshot } from './strategy.ts'

const BPS = 10_000n
/** Shifts are clamped so the centre stays well above zero. */
const MAX_SHIFT_BPS = 9_000

export interface LadderConfig {
  /** Quantity per level, contracts (decimal string). */
  size: string
  /** Largest |position| the quotes may lead to, contracts (decimal string). */
  positionCap: string
  /** Whole bps ≥ 1. */
  halfSpreadBps: number
  levels: number
  levelSpacingBps: number
  /** Shift against the position at |position| = positionCap, whole bps. */
  skewBps: number
  /** Decimal factor ≥ 1 for spread and spacing in `widened` mode. */
  widenedSpreadFactor: string
  /** Decimal fraction in (0, 1] for size in `widened` mode. */
  widenedSizeFactor: string
  /** Shift toward the fresh book's imbalance at full imbalance, whole bps (skews.ts); absent = 0. */
  imbalanceSkewBps?: number | undefined
  /** Shift against the index's funding rate at `fundingRateAtFull`, whole bps (skews.ts); absent = 0. */
  fundingSkewBps?: number | undefined
  /** Funding rate per interval (decimal fraction) at which the whole funding skew applies. */
  fundingRateAtFull?: string | undefined
}

export interface LadderInput {
  /** Quote centre, exact decimal string (any precision). */
  centre: string
  /** Price the instrument's `priceBounds` are measured from (the index); omitted = no bounds check. */
  reference?: string | undefined
  /** Extra signed shift of the centre in whole bps (positive = up), applied with the skew. */
  shiftBps?: number | undefined
  /**
   * A BBO to stay behind (pass `freshBbo(snapshot, maxBboAgeMs)`; undefined = none): a bid at or above
   * its ask moves to one tick below it, an ask at or below its bid to one tick above it; a level that
   * lands on the price of the level before it is skipped, like any duplicate.
   */
  bbo?: StrategyBbo | undefined
}

/** The index price when present, positive and no older than `maxAgeMs` (0 = any age). */
export function freshIndexPrice(snapshot: StrategySnapshot, maxAgeMs: number): string | undefined {
  const idx = snapshot.index
  if (idx === undefined || compareDecimal(idx.price, '0') <= 0) return undefined
  if (maxAgeMs > 0 && snapshot.now - idx.ts > maxAgeMs) return undefined
  return idx.price
}

/**
 * Inventory skew in whole bps: −skewBps × position / cap, truncated toward zero and clamped to
 * ±skewBps. Long → negative (both quotes move down, favouring sells).
 */
export function inventorySkewBps(positionSize: string, positionCap: string, skewBps: number): number {
  const pos = parseDecimal(positionSize)
  const cap = parseDecimal(positionCap)
  if (cap.units <= 0n || skewBps === 0) return 0
  const scale = Math.max(pos.scale, cap.scale)
  const p = pos.units * pow10(scale - pos.scale)
  const c = cap.units * pow10(scale - cap.scale)
  const raw = (BigInt(skewBps) * p) / c // bigint division truncates toward zero
  const clamped = raw > BigInt(skewBps) ? BigInt(skewBps) : raw < -BigInt(skewBps) ? -BigInt(skewBps) : raw
  return Number(-clamped)
}

/** Contracts that may still be bought / sold (in quantity ticks) without breaching the cap. */
export function capacityTicks(
  positionSize: string,
  positionCap: string,
  quantityDecimals: number,
): { buy: bigint; sell: bigint } {
  const pos = parseDecimal(positionSize)
  const cap = parseDecimal(positionCap)
  const scale = Math.max(pos.scale, cap.scale, quantityDecimals)
  const p = pos.units * pow10(scale - pos.scale)
  const c = cap.units * pow10(scale - cap.scale)
  const unit = pow10(scale - quantityDecimals)
  const buy = p < c ? divRound(c - p, unit, 'down') : 0n
  const sell = p > -c ? divRound(c + p, unit, 'down') : 0n
  return { buy, sell }
}

/** Whole bps × a decimal factor, rounded up (widening never narrows). */
function scaleBps(bps: number, factor: string): number {
  return Number(toTicks(mulDecimal(String(bps), factor), 0, 'up'))
}

/**
 * Builds the quotes for one snapshot. Returns [] when the account is in liquidation, and in
 * `reduce-only` mode only the side that reduces the position (total ≤ |position|, flagged reduceOnly).
 */
export function buildLadder(
  snapshot: StrategySnapshot,
  config: LadderConfig,
  input: LadderInput,
): DesiredQuote[] {
  const { instrument } = snapshot
  const pd = instrument.priceDecimals
  const qd = instrument.quantityDecimals
  if (snapshot.margin.inLiquidation) return []
  if (compareDecimal(input.centre, '0') <= 0) return []

  const positionSize = snapshot.position?.size ?? '0'
  const widened = snapshot.mode === 'widened'
  const halfSpread = widened
    ? scaleBps(config.halfSpreadBps, config.widenedSpreadFactor)
    : config.halfSpreadBps
  const spacing = widened
    ? scaleBps(config.levelSpacingBps, config.widenedSpreadFactor)
    : config.levelSpacingBps
  const size = widened ? mulDecimal(config.size, config.widenedSizeFactor) : config.size
  const sizeTicks = roundQtyTicks(toTicks(size, qd, 'down'), qd)
  if (sizeTicks <= 0n || halfSpread < 1) return []

  let room: { buy: bigint; sell: bigint }
  if (snapshot.mode === 'reduce-only') {
    const pos = toTicks(positionSize, qd, 'down')
    const posUp = toTicks(positionSize, qd, 'up')
    // |position| rounded toward zero, so reduce-only quotes never exceed it.
    room = pos > 0n ? { buy: 0n, sell: pos } : posUp < 0n ? { buy: -posUp, sell: 0n } : { buy: 0n, sell: 0n }
  } else {
    room = capacityTicks(positionSize, config.positionCap, qd)
  }

  const rawShift =
    (input.shiftBps ?? 0) +
    inventorySkewBps(positionSize, config.positionCap, config.skewBps) +
    imbalanceSkewBps(input.bbo, config.imbalanceSkewBps ?? 0) +
    fundingSkewBps(
      snapshot.index?.fundingRate,
      config.fundingRateAtFull ?? '0.0001',
      config.fundingSkewBps ?? 0,
    )
  const shift = Math.max(-MAX_SHIFT_BPS, Math.min(MAX_SHIFT_BPS, Math.trunc(rawShift)))
  const bounds = priceBoundTicks(input.reference, instrument.priceBounds, pd)
  const book = bookLimitTicks(input.bbo, pd)

  const sides: LadderSides = {
    snapshot,
    config,
    centre: input.centre,
    room,
    halfSpread,
    spacing,
    shift,
    bounds,
    book,
    sizeTicks,
  }
  const bids = ladderSide('buy', sides)
  const asks = ladderSide('sell', sides)
  // Keep within the instrument's order count by dropping the outermost level of the longer side.
  const max = instrument.maxOrderCount
  while (max > 0 && bids.length + asks.length > max) {
    if (asks.length >= bids.length) asks.pop()
    else bids.pop()
  }
  return [...bids, ...asks]
}

/** What both sides of one ladder share (one object, not a closure: see `ladderSide`). */
interface LadderSides {
  snapshot: StrategySnapshot
  config: LadderConfig
  centre: string
  room: { buy: bigint; sell: bigint }
  halfSpread: number
  spacing: number
  shift: number
  bounds: { low: bigint; high: bigint } | undefined
  book: ReturnType<typeof bookLimitTicks>
  sizeTicks: bigint
}

/**
 * One side's levels, inner first. Module-level: under tsx (`keepNames`) a named closure costs an
 * `Object.defineProperty` each time it is created, and this runs for every plan.
 */
function ladderSide(s: QuoteSide, l: LadderSides): DesiredQuote[] {
  const { snapshot, config, book, bounds, halfSpread, spacing, shift } = l
  const { instrument } = snapshot
  const pd = instrument.priceDecimals
  const qd = instrument.quantityDecimals
  const out: DesiredQuote[] = []
  let remaining = s === 'buy' ? l.room.buy : l.room.sell
  let lastPrice: bigint | undefined
  for (let i = 0; i < config.levels && remaining > 0n; i++) {
    const offset = halfSpread + i * spacing
    if (offset >= 10_000) break
    const factor = (BPS + BigInt(shift)) * (s === 'buy' ? BPS - BigInt(offset) : BPS + BigInt(offset))
    const raw = scaleToTicks(l.centre, factor, BPS * BPS, pd, s === 'buy' ? 'down' : 'up')
    const price = behindBookTicks(roundPriceTicks(raw, pd, s), s, book, pd)
    if (price <= 0n || price === lastPrice) continue
    if (bounds !== undefined && (price < bounds.low || price > bounds.high)) continue
    const qty = roundQtyTicks(minBigint(l.sizeTicks, remaining), qd)
    if (qty <= 0n) break
    if (!meetsMinNotional(price, qty, instrument)) continue
    lastPrice = price
    remaining -= qty
    out.push({
      side: s,
      price: fromTicks(price, pd),
      qty: fromTicks(qty, qd),
      ...(snapshot.mode === 'reduce-only' ? { reduceOnly: true } : {}),
      tag: `${s === 'buy' ? 'bid' : 'ask'}-${i}`,
    })
  }
  return out
}

/**
 * Allowed price range in ticks around `reference` for a bounds fraction: bids and asks must lie in
 * [ref × (1 − b), ref × (1 + b)] (rounded inward). Undefined when there is no reference or b ≤ 0.
 */
export function priceBoundTicks(
  reference: string | undefined,
  priceBounds: string,
  priceDecimals: number,
): { low: bigint; high: bigint } | undefined {
  if (reference === undefined || compareDecimal(priceBounds, '0') <= 0) return undefined
  // reference × (1 ∓ bounds), exact in bigints (this runs for every plan).
  const b = parseDecimal(priceBounds)
  const one = pow10(b.scale)
  return {
    low: scaleToTicks(reference, one - b.units, one, priceDecimals, 'up'),
    high: scaleToTicks(reference, one + b.units, one, priceDecimals, 'down'),
  }
}

export const ladderMaxOrders = (params: { readonly levels: number }): number => 2 * params.levels
