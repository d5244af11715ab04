/**
 * Signal skews for the quote ladder (issue 39.1), in whole bps of the centre, positive = up:
 * - book imbalance: a fresh best bid/offer with more size bid than offered leans the quotes up (the
 *   next trade is more likely a buy), by `maxBps × (bidQty − askQty) / (bidQty + askQty)`;
 * - funding: a positive funding rate (longs pay shorts) leans the quotes down, so the maker collects
 *   funding on the short it is more likely to hold, by `maxBps × rate / rateAtFull`, clamped.
 * Floats only here, as signals; prices stay in ticks (ladder.ts).
 */
import type { StrategyBbo } from './strategy.ts'

const clampUnit = (x: number): number => (x > 1 ? 1 : x < -1 ? -1 : x)

/** Book-imbalance skew (bps, truncated toward zero); 0 without a two-sided touch with size. */
export function imbalanceSkewBps(bbo: StrategyBbo | undefined, maxBps: number): number {
  if (!(maxBps > 0) || bbo?.bid === undefined || bbo.ask === undefined) return 0
  const b = Number(bbo.bid.qty)
  const a = Number(bbo.ask.qty)
  if (!(b >= 0 && a >= 0 && b + a > 0) || !Number.isFinite(b + a)) return 0
  return Math.trunc(maxBps * clampUnit((b - a) / (b + a))) || 0
}

/**
 * Funding skew (bps, truncated toward zero): −maxBps at a rate of `rateAtFull` or more, +maxBps at
 * −rateAtFull or less; 0 without a rate.
 */
export function fundingSkewBps(rate: string | undefined, rateAtFull: string, maxBps: number): number {
  if (!(maxBps > 0) || rate === undefined) return 0
  const r = Number(rate)
  const full = Number(rateAtFull)
  if (!Number.isFinite(r) || !(full > 0)) return 0
  return Math.trunc(-maxBps * clampUnit(r / full)) || 0
}
