/**
 * Input-loop health: failures per feed (poller) for `/status`, and progress beats to the watchdog, so
 * `/livez` fails when a loop stops making progress (a wedged loop keeps the process up but does no work).
 */
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { describeError, UnexpectedResponseError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Watchdog } from '../../ops/watchdog.ts'
import { type Poller, startPoller } from '../shared/poller.ts'

export interface FeedHealth {
  /** A loop that cycles every `intervalMs` (at most; back-off and pauses are covered by the grace). */
  register(feed: string, intervalMs: number): void
  /** One finished cycle of `feed`, failed or not. */
  cycled(feed: string): void
  /** Records one failed cycle of `feed`. */
  failed(feed: string, error: unknown): void
  /** Records one successful cycle of `feed` (ends an unreadable-answer episode). */
  succeeded(feed: string): void
  /** Failures so far per feed. */
  counts(): Record<string, number>
}

export function createFeedHealth(
  o: {
    watchdog?: Watchdog | undefined
    graceMs?: number | undefined
    alerts?: AlertSink | undefined
    clock?: Pick<Clock, 'now'> | undefined
  } = {},
): FeedHealth {
  const failures = new Map<string, number>()
  const unreadable = new Set<string>()
  const at = (): number => o.clock?.now() ?? Date.now()
  return {
    register(feed, intervalMs) {
      o.watchdog?.register(feed, intervalMs + (o.graceMs ?? 0))
    },
    cycled(feed) {
      o.watchdog?.beat(feed)
    },
    failed(feed, error) {
      failures.set(feed, (failures.get(feed) ?? 0) + 1)
      if (error instanceof UnexpectedResponseError && !unreadable.has(feed)) {
        unreadable.add(feed)
        o.alerts?.send({
          key: `feed-shape:${feed}`,
          severity: 'warning',
          title: `Unreadable answers on the ${feed} feed`,
          message: `${error.path} answered a shape the bot does not understand at ${error.fieldPaths.join(', ') || '(root)'}; this feed is degraded, the others go on.`,
          details: { feed, endpoint: error.path, fields: error.fieldPaths.join(', ') },
          at: at(),
        })
      }
    },
    succeeded(feed) {
      if (!unreadable.delete(feed)) return
      o.alerts?.send({
        key: `feed-shape:${feed}`,
        severity: 'warning',
        title: `The ${feed} feed reads again`,
        message: `${feed} answers match their schema again.`,
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
export function startFeedPoller(o: {
  name: string
  clock: Clock
  logger: Logger
  health: Pick<FeedHealth, 'failed' | 'succeeded' | 'register' | 'cycled'>
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
        o.logger.warn({ feed: o.name, failures: n }, `${o.name} poll failed: ${describeError(e)}`)
    },
  })
}
