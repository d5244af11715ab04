/**
 * The weight limiter's public surface: its settings (validated, config-file friendly), the signals it
 * publishes, and the state and interface it answers with. The behaviour is in `weightLimiter.ts`.
 */
import { z } from 'zod'
import type { Clock } from '../../clock.ts'
import type { RateLimitError } from '../../errors.ts'
import type { RateLimitObservation } from '../../http/rateLimitHeaders.ts'
import type { Random } from '../../random.ts'
import type { Subscribable } from '../../signal.ts'
import type { PerpsEndpoint } from '../weights.ts'
import { type BreakerState, MAX_TIMER_MS } from './rateLimitBreaker.ts'
import type { GatedRequest, RequestGate } from './requestGate.ts'
import type { JobPriority, WindowBudgetState } from './windowBudget.ts'

/** Numeric settings (config-file friendly); every field has a default. */
export const WeightLimiterSettings = z.strictObject({
  /** The venue's request-weight budget per window (per IP). */
  requestBudget: z.number().int().positive().default(1000),
  /** The venue's action-weight budget per window (per account). */
  actionBudget: z.number().int().positive().default(5000),
  /** Fraction of each venue budget the bot may use (0.9 = 900 of 1,000). */
  headroom: z.number().gt(0).lte(1).default(0.9),
  /** Fraction of each (headroom-reduced) budget only risk jobs may use; reads and quotes share the rest. */
  riskReserve: z.number().gte(0).lt(1).default(0.1),
  /** The venue's rate window. */
  windowMs: z.number().int().positive().default(60_000),
  /** First pause after a 429 without a longer Retry-After; doubles per repeated 429. */
  backoffBaseMs: z.number().int().nonnegative().default(1000),
  backoffMaxMs: z.number().int().nonnegative().default(60_000),
  /** Up to this fraction of a pause is added at random. */
  backoffJitter: z.number().gte(0).lte(1).default(0.2),
  /** This many 429s within `breakerWindowMs` open the breaker. */
  breakerThreshold: z.number().int().positive().default(3),
  breakerWindowMs: z.number().int().positive().default(60_000),
  /** How long an open breaker holds quotes. */
  breakerCoolDownMs: z.number().int().positive().default(30_000),
  /** How long half-open must see success and no 429 before closing. */
  breakerSuccessPeriodMs: z.number().int().positive().default(30_000),
  /** The longest venue `Retry-After` honoured; longer ones are clamped (and reported via `onPause`). */
  maxRetryAfterMs: z.number().int().positive().max(MAX_TIMER_MS).default(60_000),
  /** Pauses at least this long are reported via `onPause`. */
  longPauseMs: z.number().int().nonnegative().default(10_000),
})
export type WeightLimiterSettings = z.infer<typeof WeightLimiterSettings>

export type WeightLimiterOptions = z.input<typeof WeightLimiterSettings> & {
  /** Clock for windows, pauses and the breaker (every timer of the limiter runs on it). */
  clock?: Clock | undefined
  /** Jitter source. */
  random?: Random | undefined
}

/** What the limiter publishes; a throwing listener affects neither the limiter nor other listeners. */
/** What a pause holds: every request, or the action window only. */
export type PauseScope = 'request' | 'action'

export interface LimiterSignals {
  /** Breaker transitions (open / half-open / closed) with the reason, for alerts and the actors. */
  readonly breaker: Subscribable<BreakerChange>
  /** Every distinct 429 seen (metrics, the monitor's rate-limit count). */
  readonly rateLimited: Subscribable<RateLimitError>
  /** A long pause began (at least `longPauseMs`, or a clamped Retry-After), for alerts. */
  readonly pauses: Subscribable<LimiterPause>
}

export interface BreakerChange {
  state: BreakerState
  reason: string
}

export interface LimiterPause {
  scope: PauseScope
  /** Whether risk work is held too (only after a 429 on risk work). */
  holdsRisk: boolean
  /** When the hold on risk work ends (clock ms), when it holds risk: the venue's Retry-After only. */
  riskUntil: number | undefined
  durationMs: number
  until: number
  /** What caused it, e.g. `ip_rate_limited on /v1/info/index`. */
  cause: string
  /** The venue's Retry-After as sent, when it was longer than `maxRetryAfterMs`. */
  clampedRetryAfterMs: number | undefined
}

export interface WeightJob {
  endpoint: PerpsEndpoint
  /** Batch size (orders or ids) for batch endpoints; required there. */
  n?: number | undefined
  /** Instrument filter, for reads whose weight depends on it (open orders). */
  instrumentId?: number | undefined
  /** Order filter, for order-history reads. */
  orderId?: number | undefined
  /** `exit`: the stop sequence's own commands, sent at once (see the header). */
  priority: JobPriority | 'exit'
  /** Aborting it while the job waits removes it from the queue (`LimiterAbortedError`). */
  signal?: AbortSignal | undefined
}

export interface WeightLimiterState {
  /** Action tokens charged because the venue's `Poly-RateLimit-*` count of our signer was ahead of ours (total). */
  venueCharged: number
  request: WindowBudgetState
  action: WindowBudgetState
  /** Jobs scheduled and not yet started. */
  queued: Record<JobPriority, number>
  /** Jobs whose function is running. */
  running: number
  /** Jobs started since creation. */
  started: Record<JobPriority, number>
  /** Exit jobs sent (held by nothing). */
  exitSent: number
  /** Jobs rejected at once because they could never fit. */
  rejectedTooHeavy: number
  /** 429s seen (`open_orders_limit` counted apart: it is a capacity cap, not a rate). */
  rateLimited: number
  openOrdersLimited: number
  /** End of the current 429 pause of reads and quotes per budget (clock ms), if paused. */
  pausedUntil: { request: number | undefined; action: number | undefined }
  /** End of the current pause of risk work per budget (only after a 429 on risk work). */
  riskPausedUntil: { request: number | undefined; action: number | undefined }
  breaker: BreakerState
}

/** What a part above the client may see of the limiter: its state and its signals, nothing to steer. */
export interface LimiterView {
  state(): WeightLimiterState
  readonly signals: LimiterSignals
}

export interface WeightLimiter extends RequestGate, LimiterView {
  /**
   * Runs `fn` (one HTTP request) once its weights fit. Resolves or rejects with `fn`'s outcome; a
   * `RateLimitError` from `fn` pauses and feeds the breaker.
   * @throws {@link InputValidationError} unknown endpoint, bad `n` or priority (at once).
   * @throws {@link JobTooHeavyError} a weight above what the job's priority may ever use (at once).
   * @throws {@link StoppedError} the limiter was stopped before the job started.
   * @throws {@link LimiterAbortedError} `job.signal` aborted before the job started.
   */
  schedule<T>(job: WeightJob, fn: () => Promise<T>): Promise<T>
  /** `schedule` for one request as the client describes it (a tool gating a send outside the client). */
  run<T>(request: GatedRequest, send: () => Promise<T>): Promise<T>
  /**
   * Reports a 429 of a request of this priority (default `read`) made outside `schedule`; each
   * error object counts once.
   */
  onRateLimited(err: RateLimitError, priority?: JobPriority | undefined): void
  /**
   * The venue's `Poly-RateLimit-*` count of a signed command's answer (the signer's order/cancel
   * bucket: the action budget, never the per-IP request weight): when fewer remain than we think, the
   * difference counts as used until the venue's reset. Returns the weight charged.
   */
  observeVenueCount(o: RateLimitObservation): number
  /** Rejects queued jobs with `StoppedError`; running jobs finish. */
  stop(): Promise<void>
}
