/**
 * One weight budget (request weight or action weight) over a sliding window. Bottleneck queues and
 * prioritises the jobs that must wait; our code accounts the weight exactly and decides when the job
 * at the head of Bottleneck's line fits.
 *
 * Window: every admitted weight is credited back one full window after its job settled, so the weight
 * admitted in EVERY sliding window stays within `limit`. (Bottleneck's own refresh lets ~2× through
 * around each reset, and its incremental refill is a token bucket that lets `maximum + refill` through
 * in one window; see the limiter bench.)
 *
 * Fast path: a job is admitted synchronously, without entering Bottleneck (whose every step costs a
 * `setTimeout(0)`), when its class is not paused, no job of the same or a higher priority waits and
 * the weight fits.
 *
 * Queue: otherwise it waits in Bottleneck (`maxConcurrent: 1`), ordered by priority (risk, read,
 * quote; FIFO within a priority). The one job Bottleneck runs is the head of the line: it holds its
 * turn until its weight fits (strictly head-of-line, so a heavy job is never starved by lighter ones)
 * and is admitted synchronously on the change that makes room (credit, pause end). When a job of a
 * higher priority reaches Bottleneck's queue, a waiting head gives up its turn and re-enters Bottleneck
 * one priority step above its class (ahead of its peers, behind the newcomer).
 *
 * Abort: the caller's promise is raced against its AbortSignal and rejects at once with
 * `LimiterAbortedError`. Its Bottleneck job is abandoned: when it runs (or at once, if it holds the
 * turn) it returns without taking weight, so nothing blocks behind it.
 *
 * Reserve: `reserve` of the limit is only for risk jobs, taken synchronously when it covers them;
 * beyond it, risk queues at top priority for the shared part, which reads and quotes use too. Weight
 * goes back to where it came from. So reads and quotes never use more than `limit − reserve`, risk can
 * use all of `limit`, and `float + shared` never exceeds `limit`.
 *
 * Pauses (after a 429) are per class: `other` (reads, quotes) or `risk`. Jobs of a paused class that
 * arrive wait outside Bottleneck (released by priority, then arrival, when the pause ends); queued jobs
 * keep their places. A pause of `other` never holds risk work.
 */
import Bottleneck from 'bottleneck'
import type { Clock, TimerId } from '../../clock.ts'
import { LimiterAbortedError, StoppedError } from './limiterErrors.ts'

export type JobPriority = 'risk' | 'read' | 'quote'

/** Queue order (lower first): risk reduction, then reads (monitoring, reconciliation), then quotes. */
export const QUEUE_RANK: Readonly<Record<JobPriority, number>> = { risk: 0, read: 1, quote: 2 }

/**
 * Bottleneck priorities (0 runs first). A head that gave up its turn re-enters one step above its
 * class (read 2, quote 5), so it stays ahead of the peers that queued after it.
 */
export const BOTTLENECK_PRIORITY: Readonly<Record<JobPriority, number>> = { risk: 0, read: 3, quote: 6 }

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

/** A caller waiting for shared weight. `settled` once admitted, aborted or stopped: its Bottleneck job is then stale. */
interface Waiter {
  weight: number
  priority: JobPriority
  seq: number
  settled: boolean
  /** Gave up a turn to a higher priority: re-enters Bottleneck ahead of its class. */
  yielded: boolean
  /** Its current Bottleneck job's id. */
  jobId: string
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
  readonly #bottleneck: Bottleneck
  #used = 0
  /** Shared weight in use (admitted, not yet credited back). */
  #sharedUsed = 0
  /** Reserve not in use. */
  #float: number
  readonly #paused: Record<PauseClass, boolean> = { risk: false, other: false }
  #stopped = false
  #seq = 0
  #jobs = 0
  /** Unsettled callers: parked, in Bottleneck's line, or holding the turn. */
  readonly #waiting = new Set<Waiter>()
  /** Callers whose Bottleneck job is queued (not holding the turn). */
  readonly #lined = new Set<Waiter>()
  /** Callers that arrived while their class was paused (not in Bottleneck yet). */
  #parked: Waiter[] = []
  /** The job Bottleneck runs now: the head of the line, holding its turn until it fits. */
  #turn: { waiter: Waiter; end: () => void } | undefined
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
    // One turn at a time (each job weighs 1 to Bottleneck): Bottleneck orders the line, the weight is
    // accounted here. minTime 0: no spacing (the budget is the only throttle).
    this.#bottleneck = new Bottleneck({ id: `perps-${options.name}-weight`, maxConcurrent: 1, minTime: 0 })
    // A job that has reached Bottleneck's queue may outrank the one holding the turn.
    this.#bottleneck.on('queued', () => this.#pump())
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
   * through `admit`). This keeps the uncontended path free of Bottleneck's timer hops.
   */
  tryTakeShared(weight: number, priority: JobPriority): Admission | undefined {
    if (this.#stopped || this.isPausedFor(priority) || this.#waitsAtOrAbove(QUEUE_RANK[priority])) {
      return undefined
    }
    if (!this.#fits(weight)) return undefined
    return this.#takeShared(weight)
  }

  /**
   * Resolves when `weight` at `priority` is admitted from the shared part. Rejects with
   * `StoppedError` if the budget is stopped first, `LimiterAbortedError` at once when `signal` aborts
   * while waiting. Callers check `maxWeight` before calling.
   */
  admit(weight: number, priority: JobPriority, signal?: AbortSignal | undefined): Promise<Admission> {
    if (this.#stopped) return Promise.reject(new StoppedError('limiter'))
    if (signal?.aborted)
      return Promise.reject(new LimiterAbortedError(`${this.name} weight`, { cause: signal.reason }))
    return new Promise<Admission>((resolve, reject) => {
      const waiter: Waiter = {
        weight,
        priority,
        seq: this.#seq++,
        settled: false,
        yielded: false,
        jobId: '',
        resolve,
        reject,
        detach: () => undefined,
      }
      this.#waiting.add(waiter)
      if (signal !== undefined) {
        // The race: the caller leaves now; its Bottleneck job, when it runs, finds it settled.
        const onAbort = (): void => {
          if (waiter.settled) return
          this.#settle(waiter)
          reject(new LimiterAbortedError(`${this.name} weight`, { cause: signal.reason }))
          if (this.#turn?.waiter === waiter) this.#pump()
        }
        signal.addEventListener('abort', onAbort, { once: true })
        waiter.detach = () => signal.removeEventListener('abort', onAbort)
      }
      this.#dispatch(waiter)
    })
  }

  /** Pauses (or resumes) admissions of one class; queued jobs keep their places. */
  setPaused(cls: PauseClass, paused: boolean): void {
    if (this.#paused[cls] === paused) return
    this.#paused[cls] = paused
    if (paused) return
    this.#pump()
    // Release the jobs that arrived during the pause, by priority then arrival.
    const released = this.#parked
      .filter((w) => pauseClassOf(w.priority) === cls)
      .sort((a, b) => QUEUE_RANK[a.priority] - QUEUE_RANK[b.priority] || a.seq - b.seq)
    this.#parked = this.#parked.filter((w) => pauseClassOf(w.priority) !== cls)
    for (const w of released) if (!w.settled) this.#dispatch(w)
  }

  /** Jobs waiting at a priority (all priorities when omitted). */
  queued(priority?: JobPriority | undefined): number {
    let n = 0
    for (const w of this.#waiting) if (priority === undefined || w.priority === priority) n += 1
    return n
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

  /**
   * The venue's own count (its `Poly-RateLimit-*` headers): when it says `venueUsed` of its window is
   * gone and we count less, the difference is charged as shared weight until its window resets
   * (`resetMs`, at most our window), so we slow down before a 429 instead of after. Returns the weight
   * charged (0 when our count is already at or above the venue's).
   */
  chargeObserved(venueUsed: number, resetMs: number): number {
    if (this.#stopped) return 0
    const extra = Math.min(Math.floor(venueUsed - this.#used), this.limit - this.#used)
    if (extra <= 0) return 0
    this.#used += extra
    this.#sharedUsed += extra
    const due = this.#clock.now() + Math.max(0, Math.min(resetMs, this.windowMs))
    // Credits are kept in due order (the timer serves the head).
    let at = this.#credits.length
    while (at > 0 && (this.#credits[at - 1]?.due ?? 0) > due) at--
    this.#credits.splice(at, 0, { due, weight: extra, source: 'shared' })
    if (at === 0) {
      if (this.#creditTimer !== undefined) this.#clock.clearTimeout(this.#creditTimer)
      this.#armCreditTimer()
    }
    return extra
  }

  /** Rejects queued jobs with `StoppedError`, drops their Bottleneck jobs and cancels pending credits. */
  async stop(): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    if (this.#creditTimer !== undefined) this.#clock.clearTimeout(this.#creditTimer)
    this.#creditTimer = undefined
    for (const w of [...this.#waiting]) {
      this.#settle(w)
      w.reject(new StoppedError('limiter'))
    }
    this.#parked = []
    this.#pump()
    // Not awaited: Bottleneck's stop takes timer hops, and every caller has already been answered.
    this.#bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined)
  }

  /** Admits `w` now if it may pass, parks it while its class is paused, or lines it up in Bottleneck. */
  #dispatch(w: Waiter): void {
    if (this.isPausedFor(w.priority)) {
      this.#parked.push(w)
      return
    }
    if (!this.#waitsAtOrAbove(QUEUE_RANK[w.priority]) && this.#fits(w.weight)) {
      this.#settle(w)
      w.resolve(this.#takeShared(w.weight))
      return
    }
    this.#line(w)
  }

  #line(w: Waiter): void {
    this.#lined.add(w)
    const priority = BOTTLENECK_PRIORITY[w.priority] - (w.yielded ? 1 : 0)
    w.jobId = `${w.seq}.${this.#jobs++}`
    this.#bottleneck
      .schedule({ priority, weight: 1, id: w.jobId }, () => this.#takeTurn(w))
      // Only Bottleneck's own drop on stop; the caller was answered by then.
      .catch(() => undefined)
  }

  /** Bottleneck's job for `w`: returns at once when `w` was abandoned, else holds the turn until `#pump` ends it. */
  #takeTurn(w: Waiter): Promise<void> {
    this.#lined.delete(w)
    if (w.settled || this.#stopped) return Promise.resolve()
    return new Promise<void>((end) => {
      this.#turn = { waiter: w, end }
      this.#pump()
    })
  }

  /** Admits the head of the line if it fits, or ends its turn when it was abandoned or outranked. */
  #pump(): void {
    const turn = this.#turn
    if (turn === undefined) return
    const w = turn.waiter
    const outranked = !w.settled && !this.#stopped && this.#outranked(w)
    if (!w.settled && !this.#stopped && !outranked) {
      if (this.isPausedFor(w.priority) || !this.#fits(w.weight)) return
      this.#settle(w)
      w.resolve(this.#takeShared(w.weight))
    }
    this.#turn = undefined
    turn.end()
    if (outranked) {
      w.yielded = true
      this.#line(w)
    }
  }

  /**
   * Whether a job of a higher priority is in Bottleneck's queue (not merely on its way there: a head
   * that gave way to a job still being submitted could be overtaken by its own peers).
   */
  #outranked(w: Waiter): boolean {
    for (const u of this.#lined) {
      if (
        QUEUE_RANK[u.priority] < QUEUE_RANK[w.priority] &&
        this.#bottleneck.jobStatus(u.jobId) === 'QUEUED'
      ) {
        return true
      }
    }
    return false
  }

  /** Whether a job of `rank` or a higher priority (lower rank) waits for shared weight. */
  #waitsAtOrAbove(rank: number): boolean {
    const head = this.#turn?.waiter
    if (head !== undefined && !head.settled && QUEUE_RANK[head.priority] <= rank) return true
    for (const w of this.#lined) if (QUEUE_RANK[w.priority] <= rank) return true
    return false
  }

  #fits(weight: number): boolean {
    return this.#sharedUsed + weight <= this.limit - this.reserve
  }

  #settle(w: Waiter): void {
    w.settled = true
    w.detach()
    this.#waiting.delete(w)
    this.#lined.delete(w)
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
