/**
 * The venue's dead-man switch, kept armed: the deadline is set `deadlineMs` ahead and pushed forward
 * every `refreshMs` (risk priority, so quoting never starves it); if the process dies, the venue
 * cancels every open order at the deadline. A clean stop clears it after the exit policy. Repeated
 * failures to arm raise one warning per episode (the bot keeps trading: the switch is a backstop).
 *
 * A rate-limit pause that holds risk work past the deadline (the venue's Retry-After on our refresh)
 * means the venue will cancel everything while the actors still believe they quote: it raises an alert
 * at once, drops the refresh waiting behind the pause (its deadline would be stale when sent), re-arms
 * first thing when the pause ends, and then re-reads the open orders so the actors learn what is gone.
 */
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { LimiterPause } from '../../perps/throttle/weightLimiter.ts'
import type { Settings } from '../../settings/schema.ts'
import { type Poller, startPoller } from '../shared/poller.ts'
import type { OwedCancels } from './owedCancels.ts'

export interface DeadManSwitch {
  /**
   * The deadline last accepted by the venue (venue ms), if armed; `held`: refreshes are held back
   * because cancels are owed.
   */
  state(): { armed: boolean; deadline: number | undefined; failures: number; held: boolean }
  /**
   * Resolves true once the venue has accepted a deadline, false after `timeoutMs` without one (the
   * start waits for it, so no order rests before the backstop is armed unless the venue refuses it).
   */
  whenArmed(timeoutMs: number): Promise<boolean>
  /** Stops refreshing; with `clear`, disarms it at the venue (a clean stop). */
  stop(clear: boolean): Promise<void>
}

/** Consecutive failed arms before the warning. */
const ALERT_AFTER = 2

/** Triggers left of the day's limit at which the switch's status raises a warning. */
export const TRIGGERS_LEFT_WARNING = 2

export function startDeadManSwitch(o: {
  /** `getAutoCancel`, when given, is read once armed: the day's triggers against the limit. */
  perps: Pick<PerpsClient, 'setAutoCancel'> & Partial<Pick<PerpsClient, 'getAutoCancel'>>
  /** Runs the refresh timer (wall or the mock's virtual clock). */
  clock: Clock
  /** Venue-corrected time: the deadline is in the venue's clock. */
  venueClock: Pick<Clock, 'now'>
  deadlineMs: number
  refreshMs: number
  logger: Logger
  alerts: AlertSink
  /** The limiter's long pauses (a pause holding risk work past the deadline is the case above). */
  pauses?: { subscribe(listener: (pause: LimiterPause) => void): () => void } | undefined
  /** Re-read after the switch lapsed during a pause (the venue cancelled every order). */
  openOrders?: { reconcile(): Promise<void> } | undefined
  /** Cancels owed: while any are, the deadline is not pushed forward. */
  owed?: OwedCancels | undefined
}): DeadManSwitch {
  let deadline: number | undefined
  let failures = 0
  let alerted = false
  /** Refreshes held back because cancels are owed (one alert per episode). */
  let held = false
  const waiting = new Set<() => void>()
  /** Aborts the refresh waiting behind a pause that outlasts the deadline. */
  let current: AbortController | undefined
  /** A pause outlasting the deadline: the re-arm after it is due (timer) and the lapse to report. */
  let lapse: { timer: unknown; pauseEnds: number } | undefined
  const poller: Poller = startPoller({
    name: 'dead-man-switch',
    clock: o.clock,
    intervalMs: () => o.refreshMs,
    // Retry soon after a failure: the deadline is only `deadlineMs` away.
    maxBackoffMs: o.refreshMs,
    run: async (signal) => {
      // Behind a pause that outlasts the deadline a refresh would only queue with a stale deadline:
      // the timer at the pause's end sends a fresh one.
      if (lapse !== undefined) return
      if (holdForOwedCancels()) return
      const time = Math.floor(o.venueClock.now() + o.deadlineMs)
      const run = new AbortController()
      current = run
      const ack = await underBoth(signal, run, (both) =>
        o.perps.setAutoCancel({ time }, { signal: both, priority: 'risk' }),
      )
      const first = deadline === undefined
      const lapsedBefore = deadline !== undefined && o.venueClock.now() > deadline
      deadline = ack.deadline ?? time
      failures = 0
      for (const wake of waiting) wake()
      if (lapsedBefore) {
        o.logger.warn(
          { deadline },
          'dead-man switch re-armed after a pause that outlasted it: the venue has cancelled our orders; re-reading them',
        )
        o.alerts.send({
          key: 'dead-man-lapse',
          severity: 'warning',
          title: 'Dead-man switch re-armed after it lapsed',
          message:
            'the venue cancelled every open order during the pause; the bot re-reads them and quotes again',
          at: o.clock.now(),
          resolved: true,
        })
        void o.openOrders?.reconcile().catch(() => undefined)
      }
      if (first) {
        o.logger.info(
          { deadline },
          'dead-man switch armed: the venue cancels our orders if we stop refreshing',
        )
        void readStatus(signal)
      }
      if (alerted) {
        alerted = false
        o.alerts.send({
          key: 'dead-man-switch',
          severity: 'warning',
          title: 'Dead-man switch armed again',
          message: `the venue will cancel our orders if the bot stops for ${Math.round(o.deadlineMs / 1000)} s`,
          at: o.clock.now(),
          resolved: true,
        })
      }
    },
    onError: (e) => {
      failures += 1
      o.logger.warn({ err: describeError(e), failures }, 'cannot refresh the dead-man switch')
      if (failures >= ALERT_AFTER && !alerted) {
        alerted = true
        o.alerts.send({
          key: 'dead-man-switch',
          severity: 'warning',
          title: 'Dead-man switch not armed',
          message: `the venue refused or did not answer ${failures} times (${describeError(e)}); orders would stay on the book if the bot died`,
          at: o.clock.now(),
        })
      }
    },
  })
  // Nothing owed any more: refresh at once rather than at the next interval.
  const unsubscribeOwed = o.owed?.settled.subscribe(() => {
    if (held) poller.trigger()
  })
  const unsubscribe = o.pauses?.subscribe((p) => {
    if (!p.holdsRisk || p.riskUntil === undefined || deadline === undefined) return
    const pauseMs = p.riskUntil - o.clock.now()
    const leftMs = deadline - o.venueClock.now()
    if (pauseMs <= leftMs) return
    o.alerts.send({
      key: 'dead-man-lapse',
      severity: 'warning',
      title: 'Rate-limit pause outlasts the dead-man switch',
      message: `risk work is paused ${Math.round(pauseMs / 1000)} s (${p.cause}) and the switch fires in ${Math.max(0, Math.round(leftMs / 1000))} s: the venue will cancel every open order; re-arming when the pause ends`,
      at: o.clock.now(),
    })
    // The refresh waiting behind the pause carries a deadline that will be stale; send a fresh one
    // the moment the pause ends.
    current?.abort(new Error('dead-man refresh superseded: re-armed after the pause'))
    if (lapse !== undefined) o.clock.clearTimeout(lapse.timer)
    lapse = {
      pauseEnds: p.riskUntil,
      timer: o.clock.setTimeout(() => {
        lapse = undefined
        poller.trigger()
      }, pauseMs),
    }
  })

  /**
   * Whether to skip this refresh: cancels are owed and the deadline set before them has not passed.
   * Past it the venue has cancelled every order, so the debts begun before it are discharged.
   */
  function holdForOwedCancels(): boolean {
    const since = o.owed?.since()
    if (since === undefined || deadline === undefined) return endHold()
    const venueNow = o.venueClock.now()
    if (venueNow >= deadline) {
      o.owed?.dischargeBefore(o.clock.now() - (venueNow - deadline))
      if (o.owed?.since() === undefined) return endHold()
    }
    if (!held) {
      held = true
      const scopes = o.owed?.scopes() ?? []
      const what = scopes.includes('all') ? 'every order' : `the orders of ${scopes.length} instrument(s)`
      const inMs = Math.max(0, deadline - venueNow)
      o.logger.warn(
        { owed: scopes, deadline, inMs },
        'dead-man switch not refreshed while cancels are owed: the venue cancels at its deadline at the latest',
      )
      o.alerts.send({
        key: 'dead-man-held',
        severity: 'warning',
        title: 'Cancels not through: dead-man switch left to fire',
        message: `${what} should be gone but our cancels have not gone through; the switch is not refreshed, so the venue cancels every open order in ${Math.round(inMs / 1000)} s unless they go through first`,
        at: o.clock.now(),
      })
    }
    return true
  }

  function endHold(): false {
    if (held) {
      held = false
      o.logger.info('owed cancels settled: refreshing the dead-man switch again')
      o.alerts.send({
        key: 'dead-man-held',
        severity: 'warning',
        title: 'Cancels through: dead-man switch refreshed again',
        message: 'the orders that had to go are gone (or the venue cancelled them at the deadline)',
        at: o.clock.now(),
        resolved: true,
      })
    }
    return false
  }

  /** The venue's count of today's triggers: a warning when few are left (past the limit it refuses to arm). */
  async function readStatus(signal: AbortSignal): Promise<void> {
    if (o.perps.getAutoCancel === undefined) return
    try {
      const st = await o.perps.getAutoCancel({ signal })
      o.logger.info(
        {
          deadline: st.deadline,
          triggered: st.triggered,
          dailyLimit: st.daily_limit,
          nextReset: st.next_reset,
        },
        `dead-man switch: ${st.triggered} of ${st.daily_limit} triggers used today`,
      )
      if (st.daily_limit - st.triggered <= TRIGGERS_LEFT_WARNING)
        o.alerts.send({
          key: 'dead-man-switch-triggers',
          severity: 'warning',
          title: 'Dead-man switch near its daily limit',
          message: `the switch fired ${st.triggered} of ${st.daily_limit} times today; past the limit the venue refuses to arm it until ${new Date(st.next_reset).toISOString()}`,
          at: o.clock.now(),
        })
    } catch (e) {
      o.logger.warn({ err: describeError(e) }, 'cannot read the dead-man switch status')
    }
  }

  return {
    state: () => ({ armed: deadline !== undefined && failures < ALERT_AFTER, deadline, failures, held }),
    whenArmed(timeoutMs) {
      if (deadline !== undefined) return Promise.resolve(true)
      return new Promise<boolean>((resolve) => {
        const done = (armed: boolean): void => {
          waiting.delete(wake)
          o.clock.clearTimeout(timer)
          resolve(armed)
        }
        const wake = (): void => done(true)
        const timer = o.clock.setTimeout(() => done(false), timeoutMs)
        waiting.add(wake)
      })
    },
    async stop(clear) {
      unsubscribe?.()
      unsubscribeOwed?.()
      if (lapse !== undefined) o.clock.clearTimeout(lapse.timer)
      lapse = undefined
      await poller.stop()
      if (!clear || deadline === undefined) return
      try {
        // Part of the exit: held by nothing local (the limiter has dropped its queue by now).
        await o.perps.setAutoCancel({ time: 0 }, { priority: 'exit', localClockIfUntrusted: true })
        deadline = undefined
        o.logger.info('dead-man switch cleared')
      } catch (e) {
        o.logger.warn({ err: describeError(e) }, 'cannot clear the dead-man switch; it fires at its deadline')
      }
    },
  }
}

/**
 * The backstop as the bot starts it: when enabled, armed before anything quotes (a kill right after
 * the start would leave quotes on the book); a venue that keeps refusing it gets the warning and the
 * bot trades on (its design). Undefined when disabled.
 */
export async function armDeadManSwitch(o: {
  settings: { ops: { deadManSwitch: { enabled: boolean; deadlineMs: number; refreshMs: number } } }
  perps: Pick<PerpsClient, 'setAutoCancel'> & Partial<Pick<PerpsClient, 'getAutoCancel'>>
  clock: Clock
  venueClock: Pick<Clock, 'now'>
  logger: Logger
  alerts: AlertSink
  pauses?: { subscribe(listener: (pause: LimiterPause) => void): () => void } | undefined
  openOrders?: { reconcile(): Promise<void> } | undefined
  owed?: OwedCancels | undefined
}): Promise<DeadManSwitch | undefined> {
  const settings = o.settings.ops.deadManSwitch
  if (!settings.enabled) return undefined
  const deadMan = startDeadManSwitch({ ...o, deadlineMs: settings.deadlineMs, refreshMs: settings.refreshMs })
  if (!(await deadMan.whenArmed(settings.deadlineMs)))
    o.logger.warn('dead-man switch not armed yet; quoting starts without it')
  return deadMan
}

/** Longest deadline the settings accept (`ops.deadManSwitch.deadlineMs`). */
const MAX_DEADLINE_MS = 3_600_000

/**
 * The switch's timings on a clock running `rate` times wall time (a dry run on the accelerated mock):
 * the deadline and refresh are meant in wall time (how long a stalled or dead process may leave
 * orders resting), so they are multiplied by the rate. Otherwise a half-second stall of a loaded
 * machine at 30× outlasts a 15 s deadline and the dry run shows lapses no live run would.
 */
export function deadManOnClockRate<
  S extends { ops: { deadManSwitch: { deadlineMs: number; refreshMs: number } } },
>(settings: S, rate: number): S {
  if (!(rate > 1)) return settings
  const d = settings.ops.deadManSwitch
  const deadlineMs = Math.min(MAX_DEADLINE_MS, Math.ceil(d.deadlineMs * rate))
  const refreshMs = Math.floor((d.refreshMs * deadlineMs) / d.deadlineMs)
  return { ...settings, ops: { ...settings.ops, deadManSwitch: { ...d, deadlineMs, refreshMs } } }
}

/**
 * The bot's dead-man switch, from the parts before it: the settings (a fleet's keep the deadline
 * within its lease TTL), the limiter's long pauses, the open-order book re-read after a lapse, the
 * order desk's owed cancels.
 */
export function armBotDeadManSwitch(
  o: Omit<Parameters<typeof armDeadManSwitch>[0], 'settings' | 'logger' | 'pauses' | 'owed'> & {
    settings: Pick<Settings, 'ops'>
    log: Logger
    limits: { readonly pauses: { subscribe(listener: (pause: LimiterPause) => void): () => void } }
    fleet?: { deadManSettings(settings: Pick<Settings, 'ops'>): Pick<Settings, 'ops'> } | undefined
    orders?: { readonly owed: OwedCancels } | undefined
  },
): Promise<DeadManSwitch | undefined> {
  return armDeadManSwitch({
    ...o,
    settings: o.fleet?.deadManSettings(o.settings) ?? o.settings,
    logger: o.log,
    pauses: o.limits.pauses,
    owed: o.orders?.owed,
  })
}

/**
 * `call` under `signal` and `own` together, for one call. Not `AbortSignal.any`: with the poller's
 * long-lived signal as a source, each combined signal is registered on it for as long as it lives
 * (on Node 20 twice the CPU of this per refresh, and one more dependant per refresh, every 5 s for the
 * bot's life); here the forwarding listener goes when the call ends.
 */
async function underBoth<T>(
  signal: AbortSignal,
  own: AbortController,
  call: (both: AbortSignal) => Promise<T>,
): Promise<T> {
  const forward = (): void => own.abort(signal.reason)
  if (signal.aborted) forward()
  else signal.addEventListener('abort', forward, { once: true })
  try {
    return await call(own.signal)
  } finally {
    signal.removeEventListener('abort', forward)
  }
}
