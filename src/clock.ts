/**
 * The one clock. Everything that reads time or schedules work takes a `Clock`, so tests and simulation
 * swap in xstate's `SimulatedClock` (which has the same shape) or the mock's virtual clock.
 */

import { ClockSkewError, InputValidationError } from './errors.ts'

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

export interface OffsetClockOptions {
  /**
   * Largest offset `setOffset` accepts, in ms either way (default: unbounded). The bot's venue clock
   * uses the venue's 5-minute signature window: beyond it every signed command would be stale anyway.
   */
  maxOffsetMs?: number | undefined
}

/**
 * A clock whose `now()` is another clock's plus an offset, e.g. the local clock corrected by the
 * server's `/v1/info/time`. Timers run on the base clock. An offset beyond `maxOffsetMs` is refused:
 * the previous offset stays, and the clock is untrusted (signers call `assertTrusted`) until a
 * measurement within the bound is accepted.
 */
export class OffsetClock implements Clock {
  #offsetMs = 0
  #refused: { offsetMs: number } | undefined
  readonly maxOffsetMs: number
  readonly #base: Clock
  constructor(base: Clock, options: OffsetClockOptions = {}) {
    this.#base = base
    const max = options.maxOffsetMs ?? Number.POSITIVE_INFINITY
    if (!(max >= 0)) throw new InputValidationError('maxOffsetMs must be a non-negative number of ms')
    this.maxOffsetMs = max
  }
  get offsetMs(): number {
    return this.#offsetMs
  }
  /** The last refused offset while the clock is untrusted. */
  get refusedOffsetMs(): number | undefined {
    return this.#refused?.offsetMs
  }
  /**
   * Accepts an offset within the bound (and trusts the clock again).
   * @throws {@link ClockSkewError} beyond the bound or not finite; the clock is then untrusted.
   */
  setOffset(ms: number): void {
    if (!Number.isFinite(ms) || Math.abs(ms) > this.maxOffsetMs) {
      this.#refused = { offsetMs: ms }
      throw new ClockSkewError(ms, this.maxOffsetMs)
    }
    this.#offsetMs = ms
    this.#refused = undefined
  }
  /** False while the last measurement was refused. */
  get trusted(): boolean {
    return this.#refused === undefined
  }
  /**
   * The base (local) clock's time, without the offset: what the exit policy signs with while the
   * venue's clock is refused (a cancel-all must not be held by a venue that lies about its time).
   */
  localNow(): number {
    return this.#base.now()
  }
  /** @throws {@link ClockSkewError} while the last measurement was refused. */
  assertTrusted(): void {
    if (this.#refused !== undefined) throw new ClockSkewError(this.#refused.offsetMs, this.maxOffsetMs)
  }
  now(): number {
    return this.#base.now() + this.#offsetMs
  }
  setTimeout(fn: () => void, ms: number): TimerId {
    return this.#base.setTimeout(fn, ms)
  }
  clearTimeout(id: TimerId): void {
    this.#base.clearTimeout(id)
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
