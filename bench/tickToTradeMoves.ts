/**
 * The tick-to-trade benches' move schedule and latency summary, shared by the in-process bench and the
 * venue view (issue 36 point 4).
 *
 * Moves: `--moves N` moves (default: as many as `--seconds` holds at `--moves-per-second`), spaced by
 * seeded uniform gaps of 0.5–1.5 × the mean gap. At an exact 250 ms spacing the moves kept nearly the
 * same phase against the venue's 1 s tick, so whether any move landed behind a tick's thousands of
 * pushes was luck of the phase; jittered, the moves sample every phase of the tick.
 *
 * Summary: p50 / p90 / p99 and always the slowest move (max), and how many moves exceeded the 5 ms
 * target. With fewer than 100 moves p99 is the slowest move itself, and the line says so.
 */
import { seededRandom } from '../src/random.ts'
import type { Distribution } from './stats.ts'
import { numberFlag } from './stats.ts'

/** Issue 36's tick-to-trade target at 1,000 instruments, ms. */
export const TARGET_P99_MS = 5

export interface MoveSchedule {
  /** Moves to make (the window ends after the last one's gap). */
  count: number
  /** The gap before the next move, ms (seeded, mean `1000 / perSecond`). */
  nextGapMs(): number
  perSecond: number
}

/** From `--moves`, `--seconds` (default `seconds`) and `--moves-per-second` (default 4). */
export function moveSchedule(defaults: { seconds: number; seed: number }): MoveSchedule {
  const perSecond = numberFlag('moves-per-second', 4)
  const seconds = numberFlag('seconds', defaults.seconds)
  const count = numberFlag('moves', Math.max(1, Math.round(seconds * perSecond)))
  const random = seededRandom(defaults.seed * 7919 + 1)
  const mean = 1000 / perSecond
  return { count, perSecond, nextGapMs: () => mean * (0.5 + random.next()) }
}

/** `p50 … / p90 … / p99 … / max … ms (n of moves; k over 5 ms)`, with the p99's meaning at small n. */
export function latencyText(lat: Distribution, moves: number): string {
  const f = (x: number): string => x.toFixed(2)
  return (
    `p50 ${f(lat.p50)} / p90 ${f(lat.p90)} / p99 ${f(lat.p99)} / max ${f(lat.max)} ms ` +
    `(${lat.n} of ${moves} moves; ${lat.n < 100 ? 'under 100 moves p99 is the slowest move' : 'p99 is the 99th percentile'})`
  )
}

/** How many latencies exceeded the target. */
export function overTarget(latencies: readonly number[]): number {
  return latencies.filter((l) => l > TARGET_P99_MS).length
}
