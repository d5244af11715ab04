/**
 * Input-loop health: failures per poller for `/status`, and progress beats to the watchdog, so
 * `/livez` fails when a loop stops making progress (a wedged loop keeps the process up but does no work).
 */
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { describeError, UnexpectedResponseError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Watchdog } from '../../ops/watchdog.ts'
import { type Poller, startPoller } from '../shared/poller.ts'

export interface PollerHealth {
  /** A loop that cycles every `intervalMs` (at most; back-off and pauses are covered by the grace). */
  register(poller: string, intervalMs: number): void
  /** One finished cycle of `feed`, failed or not. */
  cycled(poller: string): void
  /** Records one failed cycle of `feed`. */
  failed(poller: string, error: unknown): void
  /** Records one successful cycle of `feed` (ends an unreadable-answer episode). */
  succeeded(poller: string): void
  /** Failures so far per poller. */
  counts(): Record<string, number>
}

export function createPollerHealth(
  o: {
    watchdog?: Watchdog | undefined
    graceMs?: number | undefined
    alerts?: AlertSink | undefined
    clock?: Pick<Clock, 'now'> | undefined
  } = {},
): PollerHealth {
  const failures = new Map<string, number>()
  const unreadable = new Set<string>()
  const at = (): number => o.clock?.now() ?? Date.now()
  return {
    register(poller, intervalMs) {
      o.watchdog?.register(poller, intervalMs + (o.graceMs ?? 0))
    },
    cycled(poller) {
      o.watchdog?.beat(poller)
    },
    failed(poller, error) {
      failures.set(poller, (failures.get(poller) ?? 0) + 1)
      if (error instanceof UnexpectedResponseError && !unreadable.has(poller)) {
        unreadable.add(poller)
        o.alerts?.send({
          key: `feed-shape:${poller}`,
          severity: 'warning',
          title: `Unreadable answers to the ${poller} poller`,
          message: `${error.path} answered a shape the bot does not understand at ${error.fieldPaths.join(', ') || '(root)'}; this poller is degraded, the others go on.`,
          details: { feed: poller, endpoint: error.path, fields: error.fieldPaths.join(', ') },
          at: at(),
        })
      }
    },
    succeeded(poller) {
      if (!unreadable.delete(poller)) return
      o.alerts?.send({
        key: `feed-shape:${poller}`,
        severity: 'warning',
        title: `The ${poller} poller reads again`,
        message: `${poller} answers match their schema again.`,
        at: at(),
        resolved: true,
      })
    },
    counts: () => Object.fromEntries(failures),
  }
}

/**
 * An input poller watched by `health`: registered with the watchdog, beating after every cycle, its
 * failures counted and logged (the first, then every tenth, so an outage does not flood the log).
 */
export function startHealthyPoller(o: {
  name: string
  clock: Clock
  logger: Logger
  health: Pick<PollerHealth, 'failed' | 'succeeded' | 'register' | 'cycled'>
  intervalMs: () => number
  /** The wait a failure doubles (default: the interval). */
  retryMs?: number | undefined
  run: (signal: AbortSignal) => Promise<void>
}): Poller {
  o.health.register(o.name, o.intervalMs())
  return startPoller({
    name: o.name,
    clock: o.clock,
    intervalMs: o.intervalMs,
    retryMs: o.retryMs,
    run: async (signal) => {
      await o.run(signal)
      o.health.succeeded(o.name)
    },
    onCycleEnd: () => o.health.cycled(o.name),
    onError: (e, n) => {
      o.health.failed(o.name, e)
      if (n === 1 || n % 10 === 0)
        o.logger.warn({ poller: o.name, failures: n }, `${o.name} poll failed: ${describeError(e)}`)
    },
  })
}
