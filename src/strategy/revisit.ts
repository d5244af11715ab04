/**
 * When a strategy's answer can change by time alone. A strategy's quotes depend on `snapshot.now` only
 * through age limits (an index, a best bid/offer, klines or a catalogue older than some bound is
 * ignored), so the bot need not ask again until the first of those limits runs out: `revisitAt`
 * (see `Strategy`) names that moment and the instrument actor sleeps until it, or until an input
 * changes. These helpers build it from the same limits the strategy applies.
 */
import type { StrategySnapshot } from './strategy.ts'

/**
 * The first time an input observed at `at` is older than `maxAgeMs` (the `now − at > maxAgeMs` test of
 * `freshIndexPrice` and `freshBbo`), when that is still ahead of `now`; undefined when there is no such
 * input, no limit (`maxAgeMs` ≤ 0) or it is already past.
 */
export function ageLimitEnds(now: number, at: number | undefined, maxAgeMs: number): number | undefined {
  if (at === undefined || !(maxAgeMs > 0)) return undefined
  const ends = at + maxAgeMs + 1
  return ends > now ? ends : undefined
}

/** The earliest of the defined times; undefined when none is. */
export function earliestOf(...times: readonly (number | undefined)[]): number | undefined {
  let min: number | undefined
  for (const t of times) if (t !== undefined && (min === undefined || t < min)) min = t
  return min
}

/** When the index (by its timestamp) or the best bid/offer (by its receive time) turns stale. */
export function ladderRevisitAt(
  snapshot: StrategySnapshot,
  limits: { maxIndexAgeMs: number; maxBboAgeMs: number },
): number | undefined {
  return earliestOf(
    ageLimitEnds(snapshot.now, snapshot.index?.ts, limits.maxIndexAgeMs),
    ageLimitEnds(snapshot.now, snapshot.bbo?.receivedAt, limits.maxBboAgeMs),
  )
}
