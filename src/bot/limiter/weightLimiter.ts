/**
 * The bot's weight-aware limiter: every perps HTTP request runs through `schedule` as ONE job, charged
 * its request weight (per-IP budget, 1,000/min on the venue) and its action weight (per-account budget,
 * 5,000/min), both from the one table in perps/weights.ts, each capped at `headroom` of the venue's
 * budget in EVERY sliding window (see windowBudget.ts for how).
 *
 * Order of a job: breaker gate (quotes only) → action budget (only when the job has action weight) →
 * request budget → send. Action weight is taken first so a job waiting for action weight does not sit
 * on request weight that reads and cancels need. Risk jobs (cancels, reduce-only, the liquidation
 * response) take a reserved slice of each budget that reads and quotes cannot use, synchronously and
 * without entering Bottleneck, and beyond it queue at Bottleneck's top priority, so they neither queue
 * behind quotes nor find the budget spent by them.
 *
 * A 429 pauses the budget it names (`action_rate_limited` → action weight only, so cancels still go;
 * anything else → all requests, risk included, since the venue refuses them anyway) for at least its
 * Retry-After, doubling with jitter on repeated 429s; `breakerThreshold` 429s within `breakerWindowMs`
 * open the breaker, which holds quotes for a cool-down (see rateLimitBreaker.ts).
 */
import { z } from 'zod'
import { type Clock, systemClock, type TimerId } from '../../clock.ts'
import { ConfigError, InputValidationError, RateLimitError } from '../../errors.ts'
import { PERPS_WEIGHTS, type PerpsEndpoint } from '../../perps/weights.ts'
import { type Random, systemRandom } from '../../random.ts'
import { Gate } from './gate.ts'
import { JobTooHeavyError, StoppedError } from './limiterErrors.ts'
import { type BreakerState, RateLimitBreaker, rateLimitPauseMs } from './rateLimitBreaker.ts'
import { type Admission, type JobPriority, WindowBudget, type WindowBudgetState } from './windowBudget.ts'

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
})
export type WeightLimiterSettings = z.infer<typeof WeightLimiterSettings>

export type WeightLimiterOptions = z.input<typeof WeightLimiterSettings> & {
  /** Clock for windows, pauses and the breaker (Bottleneck itself only yields on global timers). */
  clock?: Clock | undefined
  /** Jitter source. */
  random?: Random | undefined
  /** Breaker transitions, for alerts. Exceptions thrown here are ignored. */
  onBreaker?: ((state: BreakerState, reason: string) => void) | undefined
}

export interface WeightJob {
  endpoint: PerpsEndpoint
  /** Batch size (orders or ids) for batch endpoints; required there. */
  n?: number | undefined
  /** Instrument filter, for reads whose weight depends on it (open orders). */
  instrumentId?: number | undefined
  priority: JobPriority
}

export interface WeightLimiterState {
  request: WindowBudgetState
  action: WindowBudgetState
  /** Jobs scheduled and not yet started. */
  queued: Record<JobPriority, number>
  /** Jobs whose function is running. */
  running: number
  /** Jobs started since creation. */
  started: Record<JobPriority, number>
  /** Jobs rejected at once because they could never fit. */
  rejectedTooHeavy: number
  /** 429s seen (`open_orders_limit` counted apart: it is a capacity cap, not a rate). */
  rateLimited: number
  openOrdersLimited: number
  /** End of the current 429 pause per budget (clock ms), if paused. */
  pausedUntil: { request: number | undefined; action: number | undefined }
  breaker: BreakerState
}

export interface WeightLimiter {
  /**
   * Runs `fn` (one HTTP request) once its weights fit. Resolves or rejects with `fn`'s outcome; a
   * `RateLimitError` from `fn` is also reported to `onRateLimited`.
   * @throws {@link InputValidationError} unknown endpoint, bad `n` or priority (at once).
   * @throws {@link JobTooHeavyError} a weight above what the job's priority may ever use (at once).
   * @throws {@link StoppedError} the limiter was stopped before the job started.
   */
  schedule<T>(job: WeightJob, fn: () => Promise<T>): Promise<T>
  /** Reports a 429 (also for requests made outside `schedule`); each error object counts once. */
  onRateLimited(err: RateLimitError): void
  state(): WeightLimiterState
  /** Rejects queued jobs with `StoppedError`; running jobs finish. */
  stop(): Promise<void>
}

const BATCH_ENDPOINTS: ReadonlySet<PerpsEndpoint> = new Set(['createOrders', 'modifyOrders', 'cancelOrders'])
const PRIORITIES: readonly JobPriority[] = ['risk', 'read', 'quote']

type PauseScope = 'request' | 'action'

/**
 * Creates the limiter.
 * @throws {@link ConfigError} invalid settings.
 */
export function createWeightLimiter(options: WeightLimiterOptions = {}): WeightLimiter {
  const { clock = systemClock, random = systemRandom, onBreaker, ...raw } = options
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
  const pauseGates: Record<PauseScope, Gate> = { request: new Gate(), action: new Gate() }
  const pausedUntil: Record<PauseScope, number | undefined> = { request: undefined, action: undefined }
  const pauseTimers: Record<PauseScope, TimerId | undefined> = { request: undefined, action: undefined }
  const quoteGate = new Gate()
  const seen = new WeakSet<RateLimitError>()
  const queued: Record<JobPriority, number> = { risk: 0, read: 0, quote: 0 }
  const started: Record<JobPriority, number> = { risk: 0, read: 0, quote: 0 }
  const counters = { running: 0, rejectedTooHeavy: 0, rateLimited: 0, openOrdersLimited: 0 }
  let stopped = false

  const breaker = new RateLimitBreaker({
    clock,
    threshold: s.breakerThreshold,
    windowMs: s.breakerWindowMs,
    coolDownMs: s.breakerCoolDownMs,
    successPeriodMs: s.breakerSuccessPeriodMs,
    onChange: (state, reason) => {
      if (state === 'open') quoteGate.close()
      else quoteGate.open()
      try {
        onBreaker?.(state, reason)
      } catch {
        // An alerting bug must not break rate limiting.
      }
    },
  })

  function weightsOf(job: WeightJob): { request: number; action: number } {
    const table = PERPS_WEIGHTS[job.endpoint]
    if (table === undefined) throw new InputValidationError(`unknown perps endpoint ${String(job.endpoint)}`)
    if (!PRIORITIES.includes(job.priority)) {
      throw new InputValidationError(`unknown job priority ${String(job.priority)}`)
    }
    if (job.n !== undefined && !(Number.isInteger(job.n) && job.n >= 0)) {
      throw new InputValidationError(`${job.endpoint}: n must be a non-negative integer, got ${job.n}`)
    }
    if (BATCH_ENDPOINTS.has(job.endpoint) && !(job.n !== undefined && job.n >= 1)) {
      throw new InputValidationError(`${job.endpoint}: a batch job needs n >= 1`)
    }
    const input = { n: job.n, instrumentId: job.instrumentId }
    return { request: table.request(input), action: table.action(input) }
  }

  function guard(job: WeightJob, w: { request: number; action: number }): void {
    for (const scope of ['request', 'action'] as const) {
      const max = budgets[scope].maxWeight(job.priority)
      if (w[scope] > max) {
        counters.rejectedTooHeavy += 1
        throw new JobTooHeavyError(job.endpoint, scope, w[scope], max)
      }
    }
  }

  /** The first closed gate this job must not pass, if any. */
  function blockingGate(priority: JobPriority, actionWeight: number): Gate | undefined {
    if (!pauseGates.request.isOpen) return pauseGates.request
    if (actionWeight > 0 && !pauseGates.action.isOpen) return pauseGates.action
    if (priority === 'quote' && !quoteGate.isOpen) return quoteGate
    return undefined
  }

  async function admit(job: WeightJob, w: { request: number; action: number }): Promise<Admission[]> {
    for (;;) {
      if (job.priority === 'quote') await quoteGate.wait()
      const held: Admission[] = []
      try {
        // Action weight first, so a job waiting for it does not sit on request weight others need.
        for (const scope of ['action', 'request'] as const) {
          if (w[scope] === 0) continue
          const budget = budgets[scope]
          const reserved = job.priority === 'risk' ? budget.takeReserve(w[scope]) : undefined
          held.push(
            reserved ?? budget.tryTakeShared(w[scope]) ?? (await budget.admit(w[scope], job.priority)),
          )
        }
      } catch (e) {
        for (const a of held) a.release(false)
        throw new StoppedError('limiter', { cause: e })
      }
      // A pause or the breaker may have closed while the job was queued (or in the tick before a
      // pause reached Bottleneck's reservoir): hand the weight back unsent and wait.
      const gate = blockingGate(job.priority, w.action)
      if (gate === undefined) return held
      for (const a of held) a.release(false)
      await gate.wait()
    }
  }

  function pause(scope: PauseScope, until: number): void {
    const current = pausedUntil[scope]
    if (current !== undefined && current >= until) return
    pausedUntil[scope] = until
    pauseGates[scope].close()
    budgets[scope].setPaused(true)
    const timer = pauseTimers[scope]
    if (timer !== undefined) clock.clearTimeout(timer)
    pauseTimers[scope] = clock.setTimeout(
      () => {
        pauseTimers[scope] = undefined
        pausedUntil[scope] = undefined
        budgets[scope].setPaused(false)
        pauseGates[scope].open()
      },
      Math.max(0, until - clock.now()),
    )
  }

  function onRateLimited(err: RateLimitError): void {
    if (stopped || seen.has(err)) return
    seen.add(err)
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
      { baseMs: s.backoffBaseMs, maxMs: s.backoffMaxMs, jitter: s.backoffJitter },
      random,
    )
    pause(err.code === 'action_rate_limited' ? 'action' : 'request', clock.now() + ms)
  }

  async function schedule<T>(job: WeightJob, fn: () => Promise<T>): Promise<T> {
    if (stopped) throw new StoppedError('limiter')
    const w = weightsOf(job)
    guard(job, w)
    queued[job.priority] += 1
    let held: Admission[]
    try {
      held = await admit(job, w)
    } finally {
      queued[job.priority] -= 1
    }
    started[job.priority] += 1
    counters.running += 1
    try {
      const result = await fn()
      breaker.recordSuccess()
      return result
    } catch (e) {
      if (e instanceof RateLimitError) onRateLimited(e)
      throw e
    } finally {
      counters.running -= 1
      // Charged from settle time: the venue counted the request somewhere between send and answer.
      for (const a of held) a.release(true)
    }
  }

  return {
    schedule,
    onRateLimited,
    state: () => ({
      request: budgets.request.state(),
      action: budgets.action.state(),
      queued: { ...queued },
      running: counters.running,
      started: { ...started },
      rejectedTooHeavy: counters.rejectedTooHeavy,
      rateLimited: counters.rateLimited,
      openOrdersLimited: counters.openOrdersLimited,
      pausedUntil: { ...pausedUntil },
      breaker: breaker.state,
    }),
    async stop() {
      if (stopped) return
      stopped = true
      breaker.stop()
      for (const scope of ['request', 'action'] as const) {
        const timer = pauseTimers[scope]
        if (timer !== undefined) clock.clearTimeout(timer)
        pauseGates[scope].fail(new StoppedError('limiter'))
      }
      quoteGate.fail(new StoppedError('limiter'))
      await Promise.all([budgets.request.stop(), budgets.action.stop()])
    },
  }
}
