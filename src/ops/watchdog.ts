/**
 * The liveness watchdog behind `/livez`. It fails, with the reason, when
 * - the event loop stalled past `stallMs` (the longest delay the probe measured over the last sample
 *   window, wall time: a stalled loop still answers HTTP between stalls, but timers fire late and
 *   signed commands expire), or
 * - a registered loop (feed poller, account monitor, ...) has not called `beat(name)` for longer than
 *   its own bound (on the injected clock: a wedged loop keeps the process up but does no work), or
 * - it was stopped with a reason (the bot is shutting down).
 * The clock and the event-loop probe are injected, so it is tested on a simulated clock.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { type Clock, systemClock, type TimerId } from '../clock.ts'
import { InputValidationError } from '../errors.ts'
import { unrefTimer } from '../guards.ts'

/** Measures event-loop delay; the default wraps `perf_hooks.monitorEventLoopDelay`. */
export interface LoopDelayProbe {
  enable(): void
  disable(): void
  /** Longest delay seen since the last `reset()`, in ms (0 without samples). */
  maxDelayMs(): number
  reset(): void
}

export interface WatchdogOptions {
  /** Measures loop silences (the bot's clock). */
  clock: Clock
  /** Event-loop delay (ms) past which liveness fails. */
  stallMs: number
  /** The event-loop measurement window, ms on `windowClock` (default 1000). */
  sampleMs?: number | undefined
  /** Default: `createEventLoopProbe()`. */
  probe?: LoopDelayProbe | undefined
  /**
   * Runs the window's timer. Default: the wall clock with the real probe, which measures wall time (on
   * a stepped or virtual `clock` a window of virtual time measures nothing and costs a histogram reset
   * per virtual second); `clock` with an injected probe.
   */
  windowClock?: Clock | undefined
}

export interface WatchdogCheck {
  ok: boolean
  /** Why liveness fails; empty when ok. */
  reasons: string[]
}

export interface WatchdogState {
  /** Longest event-loop delay of the current and the last window, ms. */
  eventLoopDelayMs: number
  loops: { name: string; silentMs: number; maxSilenceMs: number }[]
  stopped: string | undefined
}

export interface Watchdog {
  /**
   * Watches a loop from now on: it must `beat(name)` at least every `maxSilenceMs`.
   * @throws {InputValidationError} for a name already registered or a bound that is not positive.
   */
  register(name: string, maxSilenceMs: number): void
  /** The loop made progress (a cycle ended, well or not). Unknown names are ignored. */
  beat(name: string): void
  /** Stops watching a loop that ended on purpose. */
  unregister(name: string): void
  check(): WatchdogCheck
  state(): WatchdogState
  /** Starts the event-loop probe and its sampling timer. Idempotent. */
  start(): void
  /** Stops sampling; with a reason, liveness fails from now on (`stopped: reason`). */
  stop(reason?: string | undefined): void
}

/** The real probe: a `monitorEventLoopDelay` histogram (nanoseconds) at 20 ms resolution. */
export function createEventLoopProbe(resolutionMs = 20): LoopDelayProbe {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs })
  return {
    enable: () => histogram.enable(),
    disable: () => histogram.disable(),
    maxDelayMs: () => (histogram.count > 0 ? histogram.max / 1e6 : 0),
    reset: () => histogram.reset(),
  }
}

export function createWatchdog(options: WatchdogOptions): Watchdog {
  const { clock, stallMs } = options
  const sampleMs = options.sampleMs ?? 1_000
  if (!(stallMs > 0) || !(sampleMs > 0)) {
    throw new InputValidationError(
      `watchdog bounds must be positive (stallMs ${stallMs}, sampleMs ${sampleMs})`,
    )
  }
  const probe = options.probe ?? createEventLoopProbe()
  const windowClock = options.windowClock ?? (options.probe === undefined ? systemClock : clock)
  const loops = new Map<string, { maxSilenceMs: number; lastBeatAt: number }>()
  let lastWindowMaxMs = 0
  let timer: TimerId | undefined
  let started = false
  let stopped: string | undefined

  const sample = (): void => {
    timer = undefined
    if (!started) return
    lastWindowMaxMs = probe.maxDelayMs()
    probe.reset()
    arm()
  }
  // The sampling timer must never keep the process alive on its own (Node timers have `unref`).
  const arm = (): void => {
    timer = windowClock.setTimeout(sample, sampleMs)
    unrefTimer(timer)
  }
  const delayMs = (): number => (started ? Math.max(lastWindowMaxMs, probe.maxDelayMs()) : 0)

  return {
    register(name, maxSilenceMs) {
      if (loops.has(name)) throw new InputValidationError(`watchdog: loop "${name}" is already registered`)
      if (!(maxSilenceMs > 0) || !Number.isFinite(maxSilenceMs)) {
        throw new InputValidationError(`watchdog: loop "${name}" needs a positive bound, got ${maxSilenceMs}`)
      }
      loops.set(name, { maxSilenceMs, lastBeatAt: clock.now() })
    },
    beat(name) {
      const loop = loops.get(name)
      if (loop) loop.lastBeatAt = clock.now()
    },
    unregister(name) {
      loops.delete(name)
    },
    check() {
      const reasons: string[] = []
      if (stopped !== undefined) reasons.push(`stopped: ${stopped}`)
      const delay = delayMs()
      if (delay > stallMs) {
        reasons.push(`event loop stalled for ${Math.round(delay)} ms (limit ${stallMs} ms)`)
      }
      const now = clock.now()
      for (const [name, loop] of loops) {
        const silent = now - loop.lastBeatAt
        if (silent > loop.maxSilenceMs) {
          reasons.push(`loop "${name}" made no progress for ${silent} ms (limit ${loop.maxSilenceMs} ms)`)
        }
      }
      return { ok: reasons.length === 0, reasons }
    },
    state() {
      const now = clock.now()
      return {
        eventLoopDelayMs: Math.round(delayMs()),
        loops: [...loops].map(([name, l]) => ({
          name,
          silentMs: now - l.lastBeatAt,
          maxSilenceMs: l.maxSilenceMs,
        })),
        stopped,
      }
    },
    start() {
      if (started || stopped !== undefined) return
      started = true
      probe.reset()
      probe.enable()
      arm()
    },
    stop(reason) {
      if (reason !== undefined) stopped ??= reason
      if (!started) return
      started = false
      if (timer !== undefined) windowClock.clearTimeout(timer)
      timer = undefined
      probe.disable()
    },
  }
}
