/**
 * A watchdog timestamp: the bot's main loop calls `beat()` each cycle, and liveness fails once no beat
 * arrived for `staleAfterMs` (a wedged loop answers HTTP but does no work), or after `stop()`.
 */
import type { Clock } from '../clock.ts'

export interface Heartbeat {
  beat(): void
  /** Marks the bot stopped: liveness fails from now on. */
  stop(reason: string): void
  check(): { ok: boolean; reason: string }
  /** Unix ms of the last beat. */
  readonly lastBeatAt: number
}

export function createHeartbeat(options: { clock: Clock; staleAfterMs: number }): Heartbeat {
  const { clock, staleAfterMs } = options
  let last = clock.now()
  let stopped: string | undefined
  return {
    beat() {
      last = clock.now()
    },
    stop(reason) {
      stopped = reason
    },
    check() {
      if (stopped !== undefined) return { ok: false, reason: `stopped: ${stopped}` }
      const age = clock.now() - last
      return age > staleAfterMs
        ? { ok: false, reason: `no heartbeat for ${age} ms (limit ${staleAfterMs} ms)` }
        : { ok: true, reason: 'alive' }
    },
    get lastBeatAt() {
      return last
    },
  }
}
