/**
 * The bot's rate-limited log (issue 24): lines that a hostile venue can make repeat without end —
 * order rejections and the back-off after them, quotes the guard dropped, index updates dropped,
 * strategy failures, inputs changing source, stream errors — go out at most once per kind per
 * `REPEATED_LOG_INTERVAL_MS`, each with the count suppressed since the last one, whatever order the
 * kinds alternate in. The gate is the pure `RateLimitedGate` of src/logging/rateLimitedLog.ts (shared
 * with the stream layer); kinds are per instrument where the line is, bounded in number.
 */
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import { createRateLimitedLog, type RateLimitedLog } from '../../logging/rateLimitedLog.ts'

/** One line per kind per this interval. */
export const REPEATED_LOG_INTERVAL_MS = 10_000
/** Kinds kept apart (the rest share one): enough for several kinds on each of dozens of instruments. */
export const REPEATED_LOG_KINDS = 256

export function createRepeatedLog(o: { logger: Logger; clock: Clock }): RateLimitedLog {
  return createRateLimitedLog({
    logger: o.logger,
    clock: o.clock,
    intervalMs: REPEATED_LOG_INTERVAL_MS,
    maxKinds: REPEATED_LOG_KINDS,
  })
}
