/**
 * A continuously refilling token bucket on an injected clock: `capacity` tokens, refilled at
 * `capacity / windowMs`. The mock uses it for the venue's per-client request weight and per-account
 * action weight; `retryAfterSeconds` is what the venue puts in `Retry-After` (whole seconds, rounded up).
 */
import type { Clock } from '../clock.ts'

export interface TakeResult {
  ok: boolean
  /** When not ok: whole seconds until `weight` tokens will be available. */
  retryAfterSeconds: number
  remaining: number
}

export class TokenBucket {
  #tokens: number
  #last: number
  readonly #ratePerMs: number
  readonly #clock: Pick<Clock, 'now'>
  readonly capacity: number
  readonly windowMs: number

  constructor(clock: Pick<Clock, 'now'>, capacity: number, windowMs = 60_000) {
    this.#clock = clock
    this.capacity = capacity
    this.windowMs = windowMs
    this.#tokens = capacity
    this.#last = clock.now()
    this.#ratePerMs = capacity / windowMs
  }

  #refill(): void {
    const now = this.#clock.now()
    if (now > this.#last) {
      this.#tokens = Math.min(this.capacity, this.#tokens + (now - this.#last) * this.#ratePerMs)
      this.#last = now
    }
  }

  /** Takes `weight` tokens if available; otherwise takes nothing and says how long to wait. */
  take(weight: number): TakeResult {
    this.#refill()
    if (weight <= this.#tokens) {
      this.#tokens -= weight
      return { ok: true, retryAfterSeconds: 0, remaining: Math.floor(this.#tokens) }
    }
    // A weight above capacity can never pass; report a full window so callers do not spin.
    const missing = Math.min(weight, this.capacity) - this.#tokens
    const waitMs = weight > this.capacity ? this.windowMs : missing / this.#ratePerMs
    return {
      ok: false,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      remaining: Math.floor(this.#tokens),
    }
  }

  get available(): number {
    this.#refill()
    return this.#tokens
  }
}
