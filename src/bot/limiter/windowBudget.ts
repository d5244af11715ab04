/**
 * One weight budget (request weight or action weight) over a sliding window: a priority queue for the
 * shared part and a synchronous float for the risk reserve.
 *
 * Window: every admitted weight is credited back one full window after its job settled, so the weight
 * admitted in EVERY sliding window stays within `limit`. (A periodic reset lets ~2× through around
 * each reset, and an incremental refill is a token bucket that lets `maximum + refill` through in one
 * window.)
 *
 * Queue: jobs that cannot take weight at once wait in priority order (risk, read, quote; FIFO within a
 * priority) and the head is admitted as soon as its weight fits: strictly head-of-line, so a heavy job
 * is never starved by lighter ones behind it. Admission runs synchronously on every change (credit,
 * pause end, a waiter leaving), without timer hops. A waiter whose AbortSignal fires leaves the queue
 * at once and its `admit` rejects with `LimiterAbortedError`.
 *
 * Reserve: `reserve` of the limit is only for risk jobs, taken synchronously when it covers them;
 * beyond it, risk queues at top priority for the shared part, which reads and quotes use too. Weight
 * goes back to where it came from. So reads and quotes never use more than `limit − reserve`, risk can
 * use all of `limit`, and `float + shared` never exceeds `limit`.
 *
 * Pauses (after a 429) are per class: `other` (reads, quotes) or `risk`. Paused waiters keep their
 * places; a pause of `other` never holds risk work.
 */
import type { Clock, TimerId } from '../../clock.ts'
import { LimiterAbortedError, StoppedError } from './limiterErrors.ts'

export type JobPriority = 'risk' | 'read' | 'quote'

/** Queue order (lower first): risk reduction, then reads (monitoring, reconciliation), then quotes. */
export const QUEUE_RANK: Readonly<Record<JobPriority, number>> = { risk: 0, read: 1, quote: 2 }

/** Pause classes: risk work is paused only by a 429 on risk work itself. */
export type PauseClass = 'risk' | 'other'
export const pauseClassOf = (priority: JobPriority): PauseClass => (priority === 'risk' ? 'risk' : 'other')

export interface WindowBudgetOptions {
  name: 'request' | 'action'
  /** Most weight admitted in any window (already reduced by headroom). */
  limit: number
  /** Part of `limit` only risk jobs may use. */
  reserve: number
  windowMs: number
  clock: Clock
}

/** A job's hold on the budget. `release(true)` after sending starts its window; `release(false)` returns it now. */
export interface Admission {
  release(sent: boolean): void
}

export interface WindowBudgetState {
  limit: number
  reserve: number
  /** Weight admitted and not yet credited back (sent in the last window, or in flight). */
  used: number
  available: number
  /** The part of `available` that only risk jobs may take. */
  reserveAvailable: number
  paused: boolean
}

type Source = 'reserve' | 'shared'

interface Waiter {
  weight: number
  priority: JobPriority
  seq: number
  resolve: (a: Admission) => void
  reject: (e: unknown) => void
  detach: () => void
}

export class WindowBudget {
  readonly name: 'request' | 'action'
  readonly limit: number
  readonly reserve: number
  readonly windowMs: number
  readonly #clock: Clock
  #used = 0
  /** Shared weight in use (admitted, not yet credited back). */
  #sharedUsed = 0
  /** Reserve not in use. */
  #float: number
  readonly #paused: Record<PauseClass, boolean> = { risk: false, other: false }
  #stopped = false
  #seq = 0
  /** Waiters in admission order (priority rank, then arrival). */
  #queue: Waiter[] = []
  /** Credits due, in due order (pushed at settle time + window, so already sorted). */
  readonly #credits: { due: number; weight: number; source: Source }[] = []
  #creditTimer: TimerId | undefined

  constructor(options: WindowBudgetOptions) {
    this.name = options.name
    this.limit = options.limit
    this.reserve = options.reserve
    this.windowMs = options.windowMs
    this.#clock = options.clock
    this.#float = options.reserve
  }

  /**
   * The heaviest job a priority can ever be admitted with; anything heavier would wait forever. A risk
   * job is served by the reserve or by the shared part, not by both at once.
   */
  maxWeight(priority: JobPriority): number {
    const shared = this.limit - this.reserve
    return priority === 'risk' ? Math.max(shared, this.reserve) : shared
  }

  /** Whether jobs of this priority are held by a pause. */
  isPausedFor(priority: JobPriority): boolean {
    return this.#paused[pauseClassOf(priority)]
  }

  /** Takes `weight` from the risk reserve now if it is free and risk is not paused; undefined otherwise. */
  takeReserve(weight: number): Admission | undefined {
    if (this.#paused.risk || this.#stopped || weight > this.#float) return undefined
    this.#float -= weight
    this.#used += weight
    return this.#admission(weight, 'reserve')
  }

  /**
   * Takes `weight` from the shared part synchronously when no job of the same or a higher priority
   * waits, the class is not paused and there is room; undefined otherwise (the caller then queues
   * through `admit`).
   */
  tryTakeShared(weight: number, priority: JobPriority): Admission | undefined {
    if (this.#stopped || this.isPausedFor(priority)) return undefined
    const head = this.#queue[0]
    if (head !== undefined && QUEUE_RANK[head.priority] <= QUEUE_RANK[priority]) return undefined
    if (this.#sharedUsed + weight > this.limit - this.reserve) return undefined
    return this.#takeShared(weight)
  }

  /**
   * Resolves when `weight` at `priority` is admitted from the shared part. Rejects with
   * `StoppedError` if the budget is stopped first, `LimiterAbortedError` when `signal` aborts while
   * waiting. Callers check `maxWeight` before calling.
   */
  admit(weight: number, priority: JobPriority, signal?: AbortSignal | undefined): Promise<Admission> {
    if (this.#stopped) return Promise.reject(new StoppedError('limiter'))
    if (signal?.aborted)
      return Promise.reject(new LimiterAbortedError(`${this.name} weight`, { cause: signal.reason }))
    return new Promise<Admission>((resolve, reject) => {
      const waiter: Waiter = { weight, priority, seq: this.#seq++, resolve, reject, detach: () => undefined }
      if (signal !== undefined) {
        const onAbort = (): void => {
          const i = this.#queue.indexOf(waiter)
          if (i < 0) return
          this.#queue.splice(i, 1)
          reject(new LimiterAbortedError(`${this.name} weight`, { cause: signal.reason }))
          // The head may have been the one blocking the rest.
          this.#pump()
        }
        signal.addEventListener('abort', onAbort, { once: true })
        waiter.detach = () => signal.removeEventListener('abort', onAbort)
      }
      // Insert after every waiter of the same or a higher priority (FIFO within a priority).
      const rank = QUEUE_RANK[priority]
      let at = this.#queue.length
      while (at > 0 && QUEUE_RANK[(this.#queue[at - 1] as Waiter).priority] > rank) at -= 1
      this.#queue.splice(at, 0, waiter)
      this.#pump()
    })
  }

  /** Pauses (or resumes) admissions of one class; queued jobs keep their places. */
  setPaused(cls: PauseClass, paused: boolean): void {
    if (this.#paused[cls] === paused) return
    this.#paused[cls] = paused
    if (!paused) this.#pump()
  }

  /** Jobs waiting at a priority (all priorities when omitted). */
  queued(priority?: JobPriority | undefined): number {
    return priority === undefined
      ? this.#queue.length
      : this.#queue.filter((w) => w.priority === priority).length
  }

  state(): WindowBudgetState {
    return {
      limit: this.limit,
      reserve: this.reserve,
      used: this.#used,
      available: Math.max(0, this.limit - this.#used),
      reserveAvailable: this.#float,
      paused: this.#paused.other || this.#paused.risk,
    }
  }

  /** Rejects queued jobs with `StoppedError` and cancels pending credits. */
  async stop(): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    if (this.#creditTimer !== undefined) this.#clock.clearTimeout(this.#creditTimer)
    this.#creditTimer = undefined
    const waiters = this.#queue
    this.#queue = []
    for (const w of waiters) {
      w.detach()
      w.reject(new StoppedError('limiter'))
    }
  }

  /** Admits waiters from the head while they fit (head-of-line: the first that does not fit blocks). */
  #pump(): void {
    for (;;) {
      const head = this.#queue[0]
      if (head === undefined || this.#stopped || this.isPausedFor(head.priority)) return
      if (this.#sharedUsed + head.weight > this.limit - this.reserve) return
      this.#queue.shift()
      head.detach()
      head.resolve(this.#takeShared(head.weight))
    }
  }

  #takeShared(weight: number): Admission {
    this.#used += weight
    this.#sharedUsed += weight
    return this.#admission(weight, 'shared')
  }

  #admission(weight: number, source: Source): Admission {
    let released = false
    return {
      release: (sent) => {
        if (released) return
        released = true
        if (sent) this.#scheduleCredit(weight, source)
        else this.#credit(weight, source)
      },
    }
  }

  #scheduleCredit(weight: number, source: Source): void {
    if (this.#stopped) return
    this.#credits.push({ due: this.#clock.now() + this.windowMs, weight, source })
    if (this.#creditTimer === undefined) this.#armCreditTimer()
  }

  #armCreditTimer(): void {
    const next = this.#credits[0]
    if (next === undefined) return
    this.#creditTimer = this.#clock.setTimeout(
      () => this.#onCreditTimer(),
      Math.max(0, next.due - this.#clock.now()),
    )
  }

  #onCreditTimer(): void {
    this.#creditTimer = undefined
    if (this.#stopped) return
    const now = this.#clock.now()
    let head = this.#credits[0]
    while (head !== undefined && head.due <= now) {
      this.#credits.shift()
      this.#credit(head.weight, head.source)
      head = this.#credits[0]
    }
    this.#armCreditTimer()
  }

  #credit(weight: number, source: Source): void {
    if (this.#stopped) return
    this.#used -= weight
    if (source === 'reserve') this.#float += weight
    else {
      this.#sharedUsed -= weight
      this.#pump()
    }
  }
}
