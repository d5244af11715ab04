/**
 * The bot's weight limiter, built from the settings: the perps throttle (perps/throttle/), which the
 * perps client asks to admit every request. The bot only reads it: its breaker transitions and long
 * pauses become alerts and are published again on signals the instrument actors subscribe to later.
 */
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import {
  type BreakerState,
  createWeightLimiter,
  type LimiterPause,
  type WeightLimiter,
} from '../../perps/throttle/weightLimiter.ts'
import type { Random } from '../../random.ts'
import type { Settings } from '../../settings/schema.ts'
import { createSignal, type Signal } from '../shared/signal.ts'

export interface BotLimiter {
  readonly limiter: WeightLimiter
  /** Breaker transitions (open / half-open / closed). */
  readonly breaker: Signal<BreakerState>
  /** Long or clamped pauses (the dead-man switch watches those that hold risk work). */
  readonly pauses: Signal<LimiterPause>
  /** 429s (rate refusals) seen within `windowMs` before now. */
  rateLimitCount(): number
  /** Requests refused at the venue's open-order cap within the same window. */
  openOrderCapCount(): number
}

/** Where the limiter counts 429s (the bot's metrics). */
export interface RateLimitRecorder {
  recordRateLimited(code: string): void
}

export function createBotLimiter(o: {
  settings: Settings
  clock: Clock
  random: Random
  logger: Logger
  alerts: AlertSink
  /** Counts every 429 the limiter sees, by its code. */
  metrics?: RateLimitRecorder | undefined
}): BotLimiter {
  const { settings, clock } = o
  const breaker = createSignal<BreakerState>()
  const pauses = createSignal<LimiterPause>()
  // Plain values in; what the limiter sees comes back on its signals (it sits below the perps client).
  const limiter = createWeightLimiter({
    requestBudget: settings.limiter.requestBudgetPerMinute,
    actionBudget: settings.limiter.actionBudgetPerMinute,
    headroom: settings.limiter.headroom,
    riskReserve: settings.limiter.riskReserve,
    breakerThreshold: settings.limiter.breakerThreshold,
    breakerWindowMs: settings.limiter.breakerWindowMs,
    breakerCoolDownMs: settings.limiter.breakerCooldownMs,
    maxRetryAfterMs: settings.limiter.maxRetryAfterMs,
    longPauseMs: settings.limiter.longPauseAlertMs,
    clock,
    random: o.random,
  })
  limiter.signals.rateLimited.subscribe((error) => o.metrics?.recordRateLimited(error.code))
  // A long pause (or a clamped Retry-After) is worth a person's attention: nothing trades meanwhile.
  limiter.signals.pauses.subscribe((p) => {
    pauses.emit(p)
    o.alerts.send({
      key: `rate-limit-pause:${p.scope}`,
      severity: 'warning',
      title: `Requests paused for ${Math.round(p.durationMs / 1000)} s after a rate limit`,
      message: `${p.cause}${p.clampedRetryAfterMs === undefined ? '' : `; Retry-After ${p.clampedRetryAfterMs} ms clamped`}${p.holdsRisk ? '; cancels held too' : ''}`,
      at: clock.now(),
    })
  })
  limiter.signals.breaker.subscribe(({ state, reason }) => {
    o.logger.warn({ breaker: state, reason }, `rate-limit breaker ${state}: ${reason}`)
    o.alerts.send({
      key: 'rate-limit-breaker',
      severity: 'warning',
      title: state === 'open' ? 'Quoting paused by the rate-limit breaker' : `Rate-limit breaker ${state}`,
      message: reason,
      at: clock.now(),
      ...(state === 'closed' ? { resolved: true } : {}),
    })
    breaker.emit(state)
  })
  const window = createCountWindow(
    clock,
    settings.monitor.rateLimitWindowMs,
    () => limiter.state().rateLimited,
  )
  const capWindow = createCountWindow(
    clock,
    settings.monitor.rateLimitWindowMs,
    () => limiter.state().openOrdersLimited,
  )
  return { limiter, breaker, pauses, rateLimitCount: window, openOrderCapCount: capWindow }
}

/**
 * How much a cumulative counter grew within the last `windowMs`, from samples taken at each call
 * (the resolution is the caller's sampling interval). Keeps one sample older than the window as the
 * baseline and drops the rest, so memory is bounded by the calls within one window.
 */
export function createCountWindow(
  clock: Pick<Clock, 'now'>,
  windowMs: number,
  cumulative: () => number,
): () => number {
  const samples: { at: number; total: number }[] = []
  return () => {
    const now = clock.now()
    const total = cumulative()
    samples.push({ at: now, total })
    const cutoff = now - windowMs
    while (samples.length > 1 && (samples[1]?.at ?? now) <= cutoff) samples.shift()
    const base = samples[0]
    // Before one full window has passed, everything counted so far lies inside it.
    return base === undefined || base.at > cutoff ? total : total - base.total
  }
}
