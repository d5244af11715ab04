/**
 * The venue's dead-man switch, kept armed: the deadline is set `deadlineMs` ahead and pushed forward
 * every `refreshMs` (risk priority, so quoting never starves it); if the process dies, the venue
 * cancels every open order at the deadline. A clean stop clears it after the exit policy. Repeated
 * failures to arm raise one warning per episode (the bot keeps trading: the switch is a backstop).
 */
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import { type Poller, startPoller } from '../shared/poller.ts'

export interface DeadManSwitch {
  /** The deadline last accepted by the venue (venue ms), if armed. */
  state(): { armed: boolean; deadline: number | undefined; failures: number }
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

export function startDeadManSwitch(o: {
  perps: Pick<PerpsClient, 'setAutoCancel'>
  /** Runs the refresh timer (wall or the mock's virtual clock). */
  clock: Clock
  /** Venue-corrected time: the deadline is in the venue's clock. */
  venueClock: Pick<Clock, 'now'>
  deadlineMs: number
  refreshMs: number
  logger: Logger
  alerts: AlertSink
}): DeadManSwitch {
  let deadline: number | undefined
  let failures = 0
  let alerted = false
  const waiting = new Set<() => void>()
  const poller: Poller = startPoller({
    name: 'dead-man-switch',
    clock: o.clock,
    intervalMs: () => o.refreshMs,
    // Retry soon after a failure: the deadline is only `deadlineMs` away.
    maxBackoffMs: o.refreshMs,
    run: async (signal) => {
      const time = Math.floor(o.venueClock.now() + o.deadlineMs)
      const ack = await o.perps.setAutoCancel({ time }, { signal, priority: 'risk' })
      const first = deadline === undefined
      deadline = ack.deadline ?? time
      failures = 0
      for (const wake of waiting) wake()
      if (first)
        o.logger.info(
          { deadline },
          'dead-man switch armed: the venue cancels our orders if we stop refreshing',
        )
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
  return {
    state: () => ({ armed: deadline !== undefined && failures < ALERT_AFTER, deadline, failures }),
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
      await poller.stop()
      if (!clear || deadline === undefined) return
      try {
        await o.perps.setAutoCancel({ time: 0 }, { priority: 'risk' })
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
  perps: Pick<PerpsClient, 'setAutoCancel'>
  clock: Clock
  venueClock: Pick<Clock, 'now'>
  logger: Logger
  alerts: AlertSink
}): Promise<DeadManSwitch | undefined> {
  const settings = o.settings.ops.deadManSwitch
  if (!settings.enabled) return undefined
  const deadMan = startDeadManSwitch({ ...o, deadlineMs: settings.deadlineMs, refreshMs: settings.refreshMs })
  if (!(await deadMan.whenArmed(settings.deadlineMs)))
    o.logger.warn('dead-man switch not armed yet; quoting starts without it')
  return deadMan
}
