/**
 * A sequential poller on an injected clock: runs `run`, waits `intervalMs()` after it finishes, runs
 * again. Runs never overlap; a failure is reported and the next wait doubles (up to `maxBackoffMs`)
 * until a run succeeds. `trigger()` runs it as soon as the current run (if any) ends.
 */
import type { Clock, TimerId } from '../../clock.ts'

export interface PollerOptions {
  name: string
  clock: Clock
  /** Read on every cycle so the interval can adapt (e.g. to the weight budget). */
  intervalMs: () => number
  run: (signal: AbortSignal) => Promise<void>
  onError: (error: unknown, consecutiveFailures: number) => void
  maxBackoffMs?: number | undefined
  /**
   * The wait a failure doubles (default: the interval). A long interval with a short staleness bound
   * (statistics: 60 s, stale after 180 s) retries sooner than its next period would come.
   */
  retryMs?: number | undefined
  /** Run once immediately on start (default true). */
  immediate?: boolean | undefined
  /** Called after every finished cycle, failed or not (the watchdog's progress beat). */
  onCycleEnd?: (() => void) | undefined
}

export interface Poller {
  readonly name: string
  trigger(): void
  /** Stops scheduling, aborts the running cycle and waits for it to end. */
  stop(): Promise<void>
  readonly lastSuccessAt: number | undefined
  readonly failures: number
}

export function startPoller(o: PollerOptions): Poller {
  const abort = new AbortController()
  let timer: TimerId | undefined
  let running: Promise<void> | undefined
  let pendingTrigger = false
  let stopped = false
  let failures = 0
  let lastSuccessAt: number | undefined

  const schedule = (ms: number): void => {
    if (stopped) return
    if (timer !== undefined) o.clock.clearTimeout(timer)
    timer = o.clock.setTimeout(() => {
      timer = undefined
      cycle()
    }, ms)
  }

  const cycle = (): void => {
    if (stopped || running) {
      pendingTrigger = true
      return
    }
    running = (async () => {
      try {
        await o.run(abort.signal)
        failures = 0
        lastSuccessAt = o.clock.now()
      } catch (e) {
        if (stopped) return
        failures++
        o.onError(e, failures)
      }
    })().finally(() => {
      running = undefined
      if (stopped) return
      o.onCycleEnd?.()
      if (pendingTrigger) {
        pendingTrigger = false
        schedule(0)
        return
      }
      const base = Math.max(0, o.intervalMs())
      const retry = o.retryMs ?? base
      const wait =
        failures === 0 ? base : Math.min(o.maxBackoffMs ?? 60_000, retry * 2 ** Math.min(failures, 6))
      schedule(wait)
    })
  }

  if (o.immediate ?? true) cycle()
  else schedule(o.intervalMs())

  return {
    name: o.name,
    trigger() {
      if (running) pendingTrigger = true
      else schedule(0)
    },
    async stop() {
      stopped = true
      if (timer !== undefined) o.clock.clearTimeout(timer)
      abort.abort(new Error(`poller ${o.name} stopped`))
      await running
    },
    get lastSuccessAt() {
      return lastSuccessAt
    },
    get failures() {
      return failures
    },
  }
}
