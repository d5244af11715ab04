/**
 * The one clock. Everything that reads time or schedules work takes a `Clock`, so tests and simulation
 * swap in xstate's `SimulatedClock` (which has the same shape) or the mock's virtual clock.
 */

export type TimerId = unknown

export interface Clock {
  /** Unix milliseconds. */
  now(): number
  setTimeout(fn: () => void, ms: number): TimerId
  clearTimeout(id: TimerId): void
}

/** Wall-clock time. Timers are unref'd only where the caller asks (the process must not hang on them). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
}

/**
 * A clock whose `now()` is another clock's plus an offset, e.g. the local clock corrected by the
 * server's `/v1/info/time`. Timers run on the base clock.
 */
export class OffsetClock implements Clock {
  #offsetMs = 0
  constructor(private readonly base: Clock) {}
  get offsetMs(): number {
    return this.#offsetMs
  }
  setOffset(ms: number): void {
    this.#offsetMs = ms
  }
  now(): number {
    return this.base.now() + this.#offsetMs
  }
  setTimeout(fn: () => void, ms: number): TimerId {
    return this.base.setTimeout(fn, ms)
  }
  clearTimeout(id: TimerId): void {
    this.base.clearTimeout(id)
  }
}

/** Resolves after `ms` on the given clock; rejects with the signal's reason if aborted first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = (): void => {
      clock.clearTimeout(id)
      reject(signal?.reason)
    }
    const id = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
