/**
 * Max drawdown, one function for every surface that shows it (`perpbot report`, the dashboard's
 * journal history, `perpbot simulate` and the sweep): the largest fall of an equity (net PnL) curve
 * from a previous peak, ≥ 0. The curve is the caller's, built from every fill and every mark change
 * it holds. A leaf below the journal, ops and the simulator, so each imports it without going up.
 * Floats: a figure shown, never sent back to the venue.
 */

/** Largest peak-to-trough fall of a series (0 when it never falls); the first value is the first peak. */
export function maxDrawdown(values: Iterable<number>): number {
  let peak = Number.NEGATIVE_INFINITY
  let worst = 0
  for (const v of values) {
    if (!Number.isFinite(v)) continue
    if (v > peak) peak = v
    else worst = Math.max(worst, peak - v)
  }
  return worst
}
