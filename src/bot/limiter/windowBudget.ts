/**
 * One weight budget (request weight or action weight) over a sliding window: a Bottleneck instance for
 * the shared part and a synchronous float for the risk reserve.
 *
 * Window: Bottleneck queues jobs, orders them by priority and admits the head job while
 * `weight <= reservoir`. Every admitted weight is credited back (`incrementReservoir`) one full window
 * after its job settled, so the weight admitted in EVERY sliding window stays within `limit`. (A
 * periodic `reservoirRefreshInterval` reset lets ~2× through around each reset, and an incremental
 * refill is a token bucket that lets `maximum + refill` through in one window.)
 *
 * Reserve: `reserve` of the limit never enters Bottleneck. Risk jobs take it synchronously (no queue,
 * no Bottleneck submit lock: ~0 ms) when it covers them, and otherwise queue in Bottleneck at top
 * priority for the shared part, which reads and quotes use too. Weight goes back to where it came from.
 * So reads and quotes never use more than `limit − reserve`, risk can use all of `limit`, and
 * `float + shared` never exceeds `limit`. Every reservoir change is a delta, never an overwrite, so
 * Bottleneck's own decrements are never lost; pausing subtracts a huge constant and resuming adds it back.
 */
import Bottleneck from 'bottleneck'
import type { Clock, TimerId } from '../../clock.ts'

export type JobPriority = 'risk' | 'read' | 'quote'

/** Bottleneck priorities (0 runs first): risk reduction, then reads (monitoring, reconciliation), then quotes. */
export const BOTTLENECK_PRIORITY: Readonly<Record<JobPriority, number>> = { risk: 0, read: 3, quote: 6 }

/** Far above any budget: subtracting it blocks every job, adding it back restores the exact balance. */
const PAUSE_WEIGHT = 1e12

export interface WindowBudgetOptions {
  name: 'request' | 'action'
  /** Most weight admitted in any window (already reduced by headroom). */
  limit: number
  /** Part of `limit` only risk jobs may use (kept outside Bottleneck). */
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

export class WindowBudget {
  readonly name: 'request' | 'action'
  readonly limit: number
  readonly reserve: number
  readonly windowMs: number
  readonly #clock: Clock
  readonly #bottleneck: Bottleneck
  #used = 0
  /** Reserve not in use. */
  #float: number
  #paused = false
  #stopped = false
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
    // minTime 0: no spacing between jobs (the budget is the only throttle); no maxConcurrent: weights
    // would count toward it and HTTP concurrency belongs to the transport's pool.
    this.#bottleneck = new Bottleneck({
      id: `perps-${options.name}-weight`,
      reservoir: options.limit - options.reserve,
      maxConcurrent: null,
      minTime: 0,
    })
  }

  /**
   * The heaviest job a priority can ever be admitted with; anything heavier would wait forever. A risk
   * job is served by the reserve or by the shared part, not by both at once.
   */
  maxWeight(priority: JobPriority): number {
    const shared = this.limit - this.reserve
    return priority === 'risk' ? Math.max(shared, this.reserve) : shared
  }

  /** Takes `weight` from the risk reserve now if it is free and not paused; undefined otherwise. */
  takeReserve(weight: number): Admission | undefined {
    if (this.#paused || this.#stopped || weight > this.#float) return undefined
    this.#float -= weight
    this.#used += weight
    return this.#admission(weight, 'reserve')
  }

  /**
   * Takes `weight` from the shared part synchronously when nothing waits in Bottleneck and the exact
   * accounting has room; undefined otherwise (the caller then queues through `admit`). This keeps the
   * uncontended path free of Bottleneck's internal timer hops (~3 ms each), while anything that has to
   * wait still queues by priority. Bottleneck's reservoir is debited by the same delta: its own later
   * operations all start after this one, so it never admits against a stale balance.
   */
  tryTakeShared(weight: number): Admission | undefined {
    if (this.#paused || this.#stopped) return undefined
    const c = this.#bottleneck.counts()
    if ((c.RECEIVED ?? 0) + (c.QUEUED ?? 0) > 0) return undefined
    const sharedUsed = this.#used - (this.reserve - this.#float)
    if (sharedUsed + weight > this.limit - this.reserve) return undefined
    this.#used += weight
    this.#increment(-weight)
    return this.#admission(weight, 'shared')
  }

  /**
   * Resolves when Bottleneck admits `weight` at `priority` from the shared part. Rejects with
   * Bottleneck's error if the budget is stopped first. Callers check `maxWeight` before calling.
   */
  admit(weight: number, priority: JobPriority): Promise<Admission> {
    return new Promise<Admission>((resolve, reject) => {
      this.#bottleneck
        .schedule({ priority: BOTTLENECK_PRIORITY[priority], weight }, async () => {
          this.#used += weight
          resolve(this.#admission(weight, 'shared'))
        })
        .catch(reject)
    })
  }

  /** Stops (or resumes) all admissions; queued jobs keep their places. */
  setPaused(paused: boolean): void {
    if (paused === this.#paused) return
    this.#paused = paused
    this.#increment(paused ? -PAUSE_WEIGHT : PAUSE_WEIGHT)
  }

  /** Jobs waiting in Bottleneck's queue at a priority (all priorities when omitted). */
  queued(priority?: JobPriority | undefined): number {
    return priority === undefined
      ? this.#bottleneck.queued()
      : this.#bottleneck.queued(BOTTLENECK_PRIORITY[priority])
  }

  state(): WindowBudgetState {
    return {
      limit: this.limit,
      reserve: this.reserve,
      used: this.#used,
      available: Math.max(0, this.limit - this.#used),
      reserveAvailable: this.#float,
      paused: this.#paused,
    }
  }

  /** Drops queued jobs (their `admit` rejects) and cancels pending credits. */
  async stop(): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    if (this.#creditTimer !== undefined) this.#clock.clearTimeout(this.#creditTimer)
    this.#creditTimer = undefined
    await this.#bottleneck.stop({ dropWaitingJobs: true })
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
    const due = { reserve: 0, shared: 0 }
    let head = this.#credits[0]
    while (head !== undefined && head.due <= now) {
      due[head.source] += head.weight
      this.#credits.shift()
      head = this.#credits[0]
    }
    if (due.reserve > 0) this.#credit(due.reserve, 'reserve')
    if (due.shared > 0) this.#credit(due.shared, 'shared')
    this.#armCreditTimer()
  }

  #credit(weight: number, source: Source): void {
    if (this.#stopped) return
    this.#used -= weight
    if (source === 'reserve') this.#float += weight
    else this.#increment(weight)
  }

  #increment(delta: number): void {
    // The local datastore never rejects; the catch only keeps a surprise from becoming unhandled.
    this.#bottleneck.incrementReservoir(delta).catch(() => undefined)
  }
}
