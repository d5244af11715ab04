import { systemClock, type TimerId } from '../../clock.ts'
import { ConfigError, InputValidationError, RateLimitError } from '../../errors.ts'
import type { RateLimitObservation } from '../../http/rateLimitHeaders.ts'
import { systemRandom } from '../../random.ts'
import { createSignal } from '../../signal.ts'
import { PERPS_WEIGHTS } from '../weights.ts'
import { Gate } from './gate.ts'
import { JobTooHeavyError, LimiterAbortedError, StoppedError } from './limiterErrors.ts'
import { type BreakerState, MAX_TIMER_MS, RateLimitBreaker, rateLimitPauseMs } from './rateLimitBreaker.ts'
import { type Admission as GateAdmission, type GatedRequest, sendAdmitted } from './requestGate.ts'
import {
  type BreakerChange,
  type LimiterPause,
  type PauseScope,
  type WeightJob,
  type WeightLimiter,
  type WeightLimiterOptions,
  WeightLimiterSettings,
} from './weightLimiterTypes.ts'
import {
  type Admission,
  type JobPriority,
  type PauseClass,
  pauseClassOf,
  WindowBudget,
} from './windowBudget.ts'

export type { BreakerState } from './rateLimitBreaker.ts'
export {
  type BreakerChange,
  type LimiterPause,
  type LimiterSignals,
  type LimiterView,
  type WeightJob,
  type WeightLimiter,
  type WeightLimiterOptions,
  WeightLimiterSettings,
  type WeightLimiterState,
} from './weightLimiterTypes.ts'
export type { JobPriority } from './windowBudget.ts'

const PRIORITIES: readonly JobPriority[] = ['risk', 'read', 'quote']

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
      // Awaited only while the breaker holds quotes: an open gate admits in this turn.
      if (job.priority === 'quote' && !quoteGate.isOpen) await quoteGate.wait(signal, aborted)
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
    const typed = { ...job, priority }
    guard(typed, w)
    queued[priority] += 1
    let taken: Admission[]
    try {
      taken = await admit(typed, w, signal)
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
