/**
 * Reconnect delays: full jitter over a capped exponential (the official client's `reconnectDelay`,
 * 250 ms doubling to 30 s), so many clients dropped together do not reconnect together.
 */
import type { Random } from '../../../random.ts'

export interface BackoffPolicy {
  baseMs: number
  maxMs: number
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 30_000 }

/** Delay before reconnect attempt `attempt` (0-based): uniform in [0, min(base·2^attempt, max)). */
export function reconnectDelay(attempt: number, policy: BackoffPolicy, random: Random): number {
  const ceiling = Math.min(policy.baseMs * 2 ** Math.min(attempt, 30), policy.maxMs)
  return Math.floor(random.next() * ceiling)
}
