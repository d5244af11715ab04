/**
 * The 429 circuit breaker and the backoff for repeated 429s, on an injected clock.
 *
 * closed → open when `threshold` 429s fall within `windowMs`; open pauses quoting for `coolDownMs`
 * (another 429 while open restarts the cool-down); then half-open lets quotes flow again and, after
 * `successPeriodMs` with at least one successful request and no 429, closes. A 429 while half-open
 * opens it again. Every transition is reported through `onChange(state, reason)`.
 */
import type { Clock, TimerId } from '../../clock.ts'
import type { Random } from '../../random.ts'

export type BreakerState = 'closed' | 'open' | 'half-open'

export interface BreakerOptions {
  clock: Clock
  threshold: number
  windowMs: number
  coolDownMs: number
  successPeriodMs: number
  onChange: (state: BreakerState, reason: string) => void
}

export class RateLimitBreaker {
  #state: BreakerState = 'closed'
  /** Times of recent 429s (within `windowMs`). */
  #recent: number[] = []
  #successes = 0
  #timer: TimerId | undefined
  readonly #o: BreakerOptions

  constructor(options: BreakerOptions) {
    this.#o = options
  }

  get state(): BreakerState {
    return this.#state
  }

  /** 429s seen within the window ending now (this one included once recorded). */
  recentCount(): number {
    this.#prune()
    return this.#recent.length
  }

  /** Records a 429; `detail` names it in the reason of a transition. */
  recordRateLimited(detail: string): void {
    this.#recent.push(this.#o.clock.now())
    this.#prune()
    if (this.#state === 'half-open') {
      this.#open(`rate-limited again while half-open (${detail})`)
    } else if (this.#state === 'open') {
      this.#armTimer(this.#o.coolDownMs, () => this.#halfOpen())
    } else if (this.#recent.length >= this.#o.threshold) {
      this.#open(
        `${this.#recent.length} rate-limit rejections within ${this.#o.windowMs} ms (last: ${detail})`,
      )
    }
  }

  /** Records a request the server accepted (any non-429 answer). */
  recordSuccess(): void {
    if (this.#state === 'half-open') this.#successes += 1
  }

  stop(): void {
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #prune(): void {
    const since = this.#o.clock.now() - this.#o.windowMs
    for (let first = this.#recent[0]; first !== undefined && first <= since; first = this.#recent[0])
      this.#recent.shift()
  }

  #open(reason: string): void {
    this.#state = 'open'
    this.#armTimer(this.#o.coolDownMs, () => this.#halfOpen())
    this.#o.onChange('open', reason)
  }

  #halfOpen(): void {
    this.#state = 'half-open'
    this.#successes = 0
    this.#armTimer(this.#o.successPeriodMs, () => this.#checkHalfOpen())
    this.#o.onChange('half-open', `cool-down of ${this.#o.coolDownMs} ms elapsed; quoting resumes`)
  }

  #checkHalfOpen(): void {
    if (this.#successes === 0) {
      // Nothing has proven the venue accepts us again; keep probing.
      this.#armTimer(this.#o.successPeriodMs, () => this.#checkHalfOpen())
      return
    }
    this.#state = 'closed'
    this.#recent = []
    this.#timer = undefined
    this.#o.onChange(
      'closed',
      `${this.#successes} successful requests and no 429 for ${this.#o.successPeriodMs} ms`,
    )
  }

  #armTimer(ms: number, fn: () => void): void {
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer)
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined
      fn()
    }, ms)
  }
}

/** Node's timer limit (2^31 − 1 ms): a longer `setTimeout` fires after 1 ms instead. */
export const MAX_TIMER_MS = 2_147_483_647

export interface BackoffOptions {
  baseMs: number
  maxMs: number
  /** Fraction of the pause added at random (0 = none), so restarts do not hit the venue in step. */
  jitter: number
  /** The longest `Retry-After` honoured (a venue may say days); default: Node's timer limit. */
  maxRetryAfterMs?: number | undefined
}

/**
 * How long to pause after the `attempt`-th 429 within the breaker window (1-based): never less than the
 * server's Retry-After (clamped to `maxRetryAfterMs`), doubling from `baseMs` for repeated 429s up to
 * `maxMs`, plus up to `jitter × pause` at random (added, so Retry-After is always honoured). Never
 * above Node's timer limit.
 */
export function rateLimitPauseMs(
  retryAfterMs: number | undefined,
  attempt: number,
  options: BackoffOptions,
  random: Pick<Random, 'next'>,
): number {
  const backoff = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1))
  const retryAfter = Math.min(retryAfterMs ?? 0, options.maxRetryAfterMs ?? MAX_TIMER_MS)
  const pause = Math.max(Number.isFinite(retryAfter) ? retryAfter : 0, backoff)
  return Math.min(MAX_TIMER_MS, Math.ceil(pause + pause * options.jitter * random.next()))
}
