/**
 * The weight-aware limiter, the perps client's request gate (requestGate.ts): every perps HTTP request
 * is admitted by it as ONE job (`admit`, reads and commands alike; `schedule`/`run` wrap a send for
 * tools outside the client), charged its request
 * weight (per-IP budget, 1,000/min on the venue) and its action weight (per-account budget, 5,000/min),
 * both from the one table in perps/weights.ts, each capped at `headroom` of the venue's budget in
 * EVERY sliding window (see windowBudget.ts for how). A success is recorded after the answer; a 429
 * thrown by the send reaches the breaker directly.
 *
 * Order of a job: breaker gate (quotes only) → action budget (only when the job has action weight) →
 * request budget → send. Action weight is taken first so a job waiting for action weight does not sit
 * on request weight that reads and cancels need. Risk jobs (cancels, reduce-only, cancel-all) take a
 * reserved slice of each budget that reads and quotes cannot use, synchronously, and beyond it queue
 * at top priority, so they neither queue behind quotes nor find the budget spent by them. A queued
 * job whose AbortSignal fires leaves the queue at once (`LimiterAbortedError`).
 *
 * A 429 pauses the budget it names (`action_rate_limited` → action weight only, so cancels still go;
 * anything else → request weight) for at least its Retry-After (clamped to `maxRetryAfterMs`),
 * doubling with jitter on repeated 429s. Risk work is held only by a 429 on risk work itself (the
 * venue refusing cancels), and then only for the venue's own Retry-After (clamped; the base pause
 * without one), never for our doubled back-off; a pause caused by reads or quotes, and the breaker,
 * never hold it. Exit jobs (the stop sequence's cancel-all and dead-man clear) are held by nothing:
 * no pause, breaker, budget or even the limiter's stop; a 429 on one is its caller's to honour.
 * `breakerThreshold` 429s within `breakerWindowMs` open the breaker, which holds quotes for a
 * cool-down (see rateLimitBreaker.ts).
 *
 * It sits below the client and calls nothing above it: configured by plain values, it publishes its
 * breaker transitions, long pauses and 429s on typed signals (`signals`) and answers `state()`.
 */
import { z } from 'zod'
import { type Clock, systemClock, type TimerId } from '../../clock.ts'
import { ConfigError, InputValidationError, RateLimitError } from '../../errors.ts'
import type { RateLimitObservation } from '../../http/rateLimitHeaders.ts'
import { type Random, systemRandom } from '../../random.ts'
import { createSignal, type Subscribable } from '../../signal.ts'
import { PERPS_WEIGHTS, type PerpsEndpoint } from '../weights.ts'
import { Gate } from './gate.ts'
import { JobTooHeavyError, LimiterAbortedError, StoppedError } from './limiterErrors.ts'
import { type BreakerState, MAX_TIMER_MS, RateLimitBreaker, rateLimitPauseMs } from './rateLimitBreaker.ts'
import {
  type Admission as GateAdmission,
  type GatedRequest,
  type RequestGate,
  sendAdmitted,
} from './requestGate.ts'
import {
  type Admission,
  type JobPriority,
  type PauseClass,
  pauseClassOf,
  WindowBudget,
  type WindowBudgetState,
} from './windowBudget.ts'

export type { BreakerState } from './rateLimitBreaker.ts'
export type { JobPriority } from './windowBudget.ts'

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

const PRIORITIES: readonly JobPriority[] = ['risk', 'read', 'quote']

type PauseScope = 'request' | 'action'

/**
 * Creates the limiter.
 * @throws {@link ConfigError} invalid settings.
 */
export function createWeightLimiter(options: WeightLimiterOptions = {}): WeightLimiter {
  const { clock = systemClock, random = systemRandom, ...raw } = options
  const parsed = WeightLimiterSettings.safeParse(raw)
  if (!parsed.success) {
    throw new ConfigError(
      'invalid limiter settings',
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    )
  }
  const s = parsed.data

  const budget = (name: PauseScope, venueBudget: number): WindowBudget => {
    const limit = Math.floor(venueBudget * s.headroom)
    if (limit < 1) throw new ConfigError('invalid limiter settings', [`${name}Budget × headroom is below 1`])
    return new WindowBudget({
      name,
      limit,
      reserve: Math.floor(limit * s.riskReserve),
      windowMs: s.windowMs,
      clock,
    })
  }
  const budgets: Record<PauseScope, WindowBudget> = {
    request: budget('request', s.requestBudget),
    action: budget('action', s.actionBudget),
  }
  const scopes = ['request', 'action'] as const
  type PauseKey = `${PauseScope}:${PauseClass}`
  const pausedUntil = new Map<PauseKey, number>()
  const pauseTimers = new Map<PauseKey, TimerId>()
  const quoteGate = new Gate()
  const seen = new WeakSet<RateLimitError>()
  const queued: Record<JobPriority, number> = { risk: 0, read: 0, quote: 0 }
  const started: Record<JobPriority, number> = { risk: 0, read: 0, quote: 0 }
  const counters = {
    running: 0,
    rejectedTooHeavy: 0,
    rateLimited: 0,
    openOrdersLimited: 0,
    exitSent: 0,
    venueCharged: 0,
  }
  let stopped = false

  // A signal ignores a throwing listener: an alerting or metrics bug must not break rate limiting.
  const breakerSignal = createSignal<BreakerChange>()
  const rateLimitedSignal = createSignal<RateLimitError>()
  const pauseSignal = createSignal<LimiterPause>()
  const report429 = (e: RateLimitError): void => rateLimitedSignal.emit(e)
  const reportPause = (p: LimiterPause): void => pauseSignal.emit(p)
  const reportBreaker = (state: BreakerState, reason: string): void => breakerSignal.emit({ state, reason })

  const breaker = new RateLimitBreaker({
    clock,
    threshold: s.breakerThreshold,
    windowMs: s.breakerWindowMs,
    coolDownMs: s.breakerCoolDownMs,
    successPeriodMs: s.breakerSuccessPeriodMs,
    onChange: (state, reason) => {
      if (state === 'open') quoteGate.close()
      else quoteGate.open()
      reportBreaker(state, reason)
    },
  })

  function weightsOf(job: WeightJob): { request: number; action: number } {
    const table = PERPS_WEIGHTS[job.endpoint]
    if (table === undefined) throw new InputValidationError(`unknown perps endpoint ${String(job.endpoint)}`)
    if (job.priority !== 'exit' && !PRIORITIES.includes(job.priority)) {
      throw new InputValidationError(`unknown job priority ${String(job.priority)}`)
    }
    if (job.n !== undefined && !(Number.isInteger(job.n) && job.n >= 0)) {
      throw new InputValidationError(`${job.endpoint}: n must be a non-negative integer, got ${job.n}`)
    }
    if (table.batch === true && !(job.n !== undefined && job.n >= 1)) {
      throw new InputValidationError(`${job.endpoint}: a batch job needs n >= 1`)
    }
    const input = { n: job.n, instrumentId: job.instrumentId, orderId: job.orderId }
    return { request: table.request(input), action: table.action(input) }
  }

  function guard(job: WeightJob & { priority: JobPriority }, w: { request: number; action: number }): void {
    for (const scope of scopes) {
      const max = budgets[scope].maxWeight(job.priority)
      if (w[scope] > max) {
        counters.rejectedTooHeavy += 1
        throw new JobTooHeavyError(job.endpoint, scope, w[scope], max)
      }
    }
  }

  /** Whether a pause or the breaker holds this job now. */
  function held(priority: JobPriority, w: { request: number; action: number }): boolean {
    if (priority === 'quote' && !quoteGate.isOpen) return true
    return scopes.some((scope) => w[scope] > 0 && budgets[scope].isPausedFor(priority))
  }

  async function admit(
    job: WeightJob & { priority: JobPriority },
    w: { request: number; action: number },
    signal: AbortSignal | undefined,
  ): Promise<Admission[]> {
    const aborted = (): LimiterAbortedError =>
      new LimiterAbortedError('the breaker to close', { cause: signal?.reason })
    for (;;) {
      if (job.priority === 'quote') await quoteGate.wait(signal, aborted)
      const taken: Admission[] = []
      try {
        // Action weight first, so a job waiting for it does not sit on request weight others need.
        for (const scope of ['action', 'request'] as const) {
          if (w[scope] === 0) continue
          const budget = budgets[scope]
          const reserved = job.priority === 'risk' ? budget.takeReserve(w[scope]) : undefined
          taken.push(
            reserved ??
              budget.tryTakeShared(w[scope], job.priority) ??
              (await budget.admit(w[scope], job.priority, signal)),
          )
        }
      } catch (e) {
        for (const a of taken) a.release(false)
        throw e
      }
      // A pause or the breaker may have begun while the job waited for its other budget: hand the
      // weight back unsent and queue again (the budgets hold it until the pause ends).
      if (!held(job.priority, w)) return taken
      for (const a of taken) a.release(false)
    }
  }

  function pause(scope: PauseScope, cls: PauseClass, until: number): void {
    const key: PauseKey = `${scope}:${cls}`
    const current = pausedUntil.get(key)
    if (current !== undefined && current >= until) return
    pausedUntil.set(key, until)
    budgets[scope].setPaused(cls, true)
    const timer = pauseTimers.get(key)
    if (timer !== undefined) clock.clearTimeout(timer)
    pauseTimers.set(
      key,
      clock.setTimeout(
        () => {
          pauseTimers.delete(key)
          pausedUntil.delete(key)
          budgets[scope].setPaused(cls, false)
        },
        Math.min(MAX_TIMER_MS, Math.max(0, until - clock.now())),
      ),
    )
  }

  function onRateLimited(err: RateLimitError, priority: JobPriority = 'read'): void {
    if (stopped || seen.has(err)) return
    seen.add(err)
    report429(err)
    if (err.code === 'open_orders_limit') {
      // A capacity cap, not a rate: waiting frees nothing (protocol-notes c.4), so no pause.
      counters.openOrdersLimited += 1
      return
    }
    counters.rateLimited += 1
    breaker.recordRateLimited(`${err.code} on ${err.path}`)
    const attempt = breaker.recentCount()
    const ms = rateLimitPauseMs(
      err.retryAfterMs,
      attempt,
      {
        baseMs: s.backoffBaseMs,
        maxMs: s.backoffMaxMs,
        jitter: s.backoffJitter,
        maxRetryAfterMs: s.maxRetryAfterMs,
      },
      random,
    )
    const scope: PauseScope = err.code === 'action_rate_limited' ? 'action' : 'request'
    const until = clock.now() + ms
    // Risk work is held only when the venue refused risk work itself, and only for the venue's own
    // Retry-After: never behind our doubled back-off (a halt's cancels must not wait 60 s for it).
    const holdsRisk = pauseClassOf(priority) === 'risk'
    const riskUntil = holdsRisk
      ? clock.now() + Math.min(MAX_TIMER_MS, s.maxRetryAfterMs, err.retryAfterMs ?? s.backoffBaseMs)
      : undefined
    pause(scope, 'other', until)
    if (riskUntil !== undefined) pause(scope, 'risk', riskUntil)
    const clamped =
      err.retryAfterMs !== undefined && err.retryAfterMs > s.maxRetryAfterMs ? err.retryAfterMs : undefined
    if (ms >= s.longPauseMs || clamped !== undefined) {
      reportPause({
        scope,
        holdsRisk,
        riskUntil,
        durationMs: ms,
        until,
        cause: `${err.code} on ${err.path}`,
        clampedRetryAfterMs: clamped,
      })
    }
  }

  /** An exit job: admitted now, whatever pauses, the breaker, the budgets or a stop say. */
  function admitExit(job: WeightJob): GateAdmission {
    weightsOf(job)
    if (job.signal?.aborted) throw new LimiterAbortedError('admission', { cause: job.signal.reason })
    counters.exitSent += 1
    counters.running += 1
    let done = false
    const finish = (): boolean => {
      if (done) return false
      done = true
      counters.running -= 1
      return true
    }
    return {
      sending: () => undefined,
      settle: (e?: unknown) => {
        if (!finish()) return undefined
        // Counted and reported, but no pause: the stop sequence honours the venue's Retry-After itself.
        if (e instanceof RateLimitError && !seen.has(e)) {
          seen.add(e)
          report429(e)
        }
        return undefined
      },
      release: () => void finish(),
    }
  }

  /**
   * Admits one job once its weights fit; the admission holds them until it is settled (charged from
   * settle time: the venue counted the request somewhere between send and answer) or released.
   */
  async function admitJob(job: WeightJob): Promise<GateAdmission> {
    if (job.priority === 'exit') return admitExit(job)
    if (stopped) throw new StoppedError('limiter')
    const { signal } = job
    if (signal?.aborted) throw new LimiterAbortedError('admission', { cause: signal.reason })
    const priority = job.priority
    const w = weightsOf(job)
    guard({ ...job, priority }, w)
    queued[priority] += 1
    let taken: Admission[]
    try {
      taken = await admit({ ...job, priority }, w, signal)
    } finally {
      queued[priority] -= 1
    }
    started[priority] += 1
    counters.running += 1
    let done = false
    const finish = (spent: boolean): boolean => {
      if (done) return false
      done = true
      counters.running -= 1
      for (const a of taken) a.release(spent)
      return true
    }
    return {
      sending: () => undefined,
      settle: (e?: unknown) => {
        if (done) return undefined
        // Recorded with the answer, not at admission: a request still in flight proves nothing.
        if (e === undefined) breaker.recordSuccess()
        else if (e instanceof RateLimitError) onRateLimited(e, priority)
        finish(true)
        return undefined
      },
      release: () => void finish(false),
    }
  }

  async function schedule<T>(job: WeightJob, fn: () => Promise<T>): Promise<T> {
    return sendAdmitted(await admitJob(job), fn)
  }

  /**
   * The client's gate: reads are admitted as `read`, commands at the priority their caller gave; a
   * halted instrument's cancels (`halt`) are risk work here (their own reserve is the fleet's,
   * sharedGate.ts).
   */
  function jobOf(r: GatedRequest): WeightJob {
    return {
      endpoint: r.endpoint,
      n: r.input.n,
      instrumentId: r.input.instrumentId,
      orderId: r.input.orderId,
      priority: r.priority === 'halt' ? 'risk' : (r.priority ?? 'read'),
      signal: r.signal,
    }
  }
  const until = (scope: PauseScope, cls: PauseClass): number | undefined => pausedUntil.get(`${scope}:${cls}`)
  const observeVenueCount = (o: RateLimitObservation): number => {
    if (o.remaining === undefined || stopped) return 0
    // The signer's bucket (no Limit header): what it lacks of our action budget is used; a debt
    // (negative remaining) fills the budget. Until the venue's reset (a Unix time), else a window.
    const venueUsed = budgets.action.limit - o.remaining
    const resetMs = o.resetAtMs === undefined ? s.windowMs : o.resetAtMs - clock.now()
    const charged = budgets.action.chargeObserved(venueUsed, resetMs)
    counters.venueCharged += charged
    return charged
  }
  return {
    admit: (r) => admitJob(jobOf(r)),
    schedule,
    run: (r, send) => schedule(jobOf(r), send),
    onRateLimited,
    observeVenueCount,
    signals: { breaker: breakerSignal, rateLimited: rateLimitedSignal, pauses: pauseSignal },
    state: () => ({
      venueCharged: counters.venueCharged,
      request: budgets.request.state(),
      action: budgets.action.state(),
      queued: { ...queued },
      running: counters.running,
      started: { ...started },
      exitSent: counters.exitSent,
      rejectedTooHeavy: counters.rejectedTooHeavy,
      rateLimited: counters.rateLimited,
      openOrdersLimited: counters.openOrdersLimited,
      pausedUntil: { request: until('request', 'other'), action: until('action', 'other') },
      riskPausedUntil: { request: until('request', 'risk'), action: until('action', 'risk') },
      breaker: breaker.state,
    }),
    async stop() {
      if (stopped) return
      stopped = true
      breaker.stop()
      for (const timer of pauseTimers.values()) clock.clearTimeout(timer)
      pauseTimers.clear()
      quoteGate.fail(new StoppedError('limiter'))
      await Promise.all([budgets.request.stop(), budgets.action.stop()])
    },
  }
}
