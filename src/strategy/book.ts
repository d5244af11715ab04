/**
 * Quoting behind the book: the snapshot's best bid and offer when it is young enough to trust, and the
 * price limits it sets for post-only quotes (a bid strictly below the best ask, an ask strictly above
 * the best bid), in integer ticks of the instrument's price decimals.
 */
import { compareDecimal, fromTicks, toTicks } from '../decimal.ts'
import { roundPriceTicks } from './quoting.ts'
import type { DesiredQuote, StrategyBbo, StrategySnapshot, StrategySnapshotBbo } from './strategy.ts'

/** The snapshot's BBO when present and no older than `maxAgeMs` (0 = any age); else undefined. */
export function freshBbo(snapshot: StrategySnapshot, maxAgeMs: number): StrategySnapshotBbo | undefined {
  const bbo = snapshot.bbo
  if (bbo === undefined) return undefined
  if (maxAgeMs > 0 && snapshot.now - bbo.receivedAt > maxAgeMs) return undefined
  return bbo
}

/** Post-only limits in price ticks: bids ≤ `maxBid`, asks ≥ `minAsk`; undefined = no limit there. */
export interface BookLimits {
  maxBid: bigint | undefined
  minAsk: bigint | undefined
}

const positive = (price: string | undefined): price is string =>
  price !== undefined && compareDecimal(price, '0') > 0

/**
 * The limits a touch sets: one tick below the best ask for bids, one tick above the best bid for asks
 * (a touch price finer than the instrument's tick is first rounded outward, so "below" stays strict).
 * An absent BBO or side limits nothing.
 */
export function bookLimitTicks(bbo: StrategyBbo | undefined, priceDecimals: number): BookLimits {
  const ask = bbo?.ask?.price
  const bid = bbo?.bid?.price
  return {
    maxBid: positive(ask) ? toTicks(ask, priceDecimals, 'up') - 1n : undefined,
    minAsk: positive(bid) ? toTicks(bid, priceDecimals, 'down') + 1n : undefined,
  }
}

/**
 * Moves a price (ticks) behind the book: a bid above `maxBid` to it, an ask below `minAsk` to it, then
 * rounds to a valid price (bids down, asks up), so the result never crosses. May return ≤ 0 for a bid
 * (no valid price behind the book): the caller drops the quote.
 */
export function behindBookTicks(
  ticks: bigint,
  side: 'buy' | 'sell',
  limits: BookLimits,
  priceDecimals: number,
): bigint {
  const moved =
    side === 'buy'
      ? limits.maxBid !== undefined && ticks > limits.maxBid
        ? limits.maxBid
        : ticks
      : limits.minAsk !== undefined && ticks < limits.minAsk
        ? limits.minAsk
        : ticks
  return moved === ticks ? ticks : roundPriceTicks(moved, priceDecimals, side)
}

/**
 * For strategies that do not use `buildLadder`: every quote moved behind a BBO (pass `freshBbo(...)`),
 * in order; a bid left with no positive price is dropped. Sizes are kept, so the position cap holds.
 */
export function keepBehindBook(
  quotes: readonly DesiredQuote[],
  bbo: StrategyBbo | undefined,
  priceDecimals: number,
): DesiredQuote[] {
  if (bbo === undefined) return [...quotes]
  const limits = bookLimitTicks(bbo, priceDecimals)
  const out: DesiredQuote[] = []
  for (const q of quotes) {
    const ticks = toTicks(q.price, priceDecimals, q.side === 'buy' ? 'down' : 'up')
    const moved = behindBookTicks(ticks, q.side, limits, priceDecimals)
    if (moved === ticks) out.push(q)
    else if (moved > 0n) out.push({ ...q, price: fromTicks(moved, priceDecimals) })
  }
  return out
}
