/**
 * The mock's clock. One `VirtualClock` drives everything time-dependent in the mock (the exchange's
 * market, rate-limit refills, fault latency) in one of three modes:
 * - `real`: wall time plus an offset;
 * - `accelerated`: starts at a given time and runs `factor`× wall time;
 * - `stepped`: time moves only by `advance(ms)` / `set(ms)` (xstate `SimulatedClock` semantics).
 *
 * In every mode timers live in the clock's own queue and fire, in due order, once virtual time has
 * passed them, so `advance`/`set` also fire timers in `real` and `accelerated` modes (a jump forward is
 * a jump for everyone). Time never goes backwards.
 */
import { type Clock, systemClock, type TimerId } from '../clock.ts'
import { InputValidationError } from '../errors.ts'
import { unrefTimer } from '../guards.ts'

export type ClockMode = 'real' | 'accelerated' | 'stepped'

export const CLOCK_MODES: readonly ClockMode[] = ['real', 'accelerated', 'stepped']

/**
 * Largest single jump of `advance`/`set` (366 days): far beyond any test or scenario, and it keeps
 * virtual time a safe integer and a valid Date (`1e308` would otherwise be accepted).
 */
export const MAX_CLOCK_JUMP_MS = 366 * 86_400_000

export interface VirtualClockOptions {
  mode: ClockMode
  /** Virtual Unix ms at creation (`accelerated`, `stepped`). Default: the base clock's now. */
  startMs?: number | undefined
  /** Speed-up of `accelerated` mode (> 0). Default 10. */
  factor?: number | undefined
  /** Added to wall time in `real` mode. Default 0. */
  offsetMs?: number | undefined
  /** The wall clock underneath (tests inject a fake). Default: `systemClock`. */
  base?: Clock | undefined
}

/** What `GET /__mock/state` reports about the clock. */
export interface ClockInfo {
  mode: ClockMode
  /** Virtual ms per wall ms: 1 (real), `factor` (accelerated), 0 (stepped). */
  rate: number
  now: number
  pendingTimers: number
}

interface Timer {
  id: number
  due: number
  /** Insertion order breaks ties, so equal-time timers fire in the order they were set. */
  seq: number
  fn: () => void
}

/** A `Clock` whose time the mock controls. */
export class VirtualClock implements Clock {
  readonly mode: ClockMode
  /** Virtual ms per wall ms. */
  readonly rate: number
  readonly #base: Clock
  // now = #anchorVirtual + (base.now() - #anchorWall) * rate; re-anchored on every jump.
  #anchorVirtual: number
  #anchorWall: number
  #timers: Timer[] = []
  #nextId = 1
  #seq = 0
  #wallTimer: TimerId | undefined
  #wallTimerDue = Number.POSITIVE_INFINITY
  #flushing = false
  #disposed = false

  constructor(options: VirtualClockOptions) {
    this.#base = options.base ?? systemClock
    this.mode = options.mode
    const wall = this.#base.now()
    this.#anchorWall = wall
    switch (options.mode) {
      case 'real':
        this.rate = 1
        this.#anchorVirtual = wall + (options.offsetMs ?? 0)
        break
      case 'accelerated': {
        const factor = options.factor ?? 10
        if (!(Number.isFinite(factor) && factor > 0))
          throw new InputValidationError(`clock factor must be a positive number, got ${factor}`)
        this.rate = factor
        this.#anchorVirtual = options.startMs ?? wall
        break
      }
      case 'stepped':
        this.rate = 0
        this.#anchorVirtual = options.startMs ?? wall
        break
    }
  }

  /** Speed-up factor (1 in `real`, 0 in `stepped`). */
  get factor(): number {
    return this.rate
  }

  now(): number {
    if (this.rate === 0) return this.#anchorVirtual
    return Math.floor(this.#anchorVirtual + (this.#base.now() - this.#anchorWall) * this.rate)
  }

  setTimeout(fn: () => void, ms: number): TimerId {
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0
    const id = this.#nextId++
    this.#timers.push({ id, due: this.now() + delay, seq: this.#seq++, fn })
    this.#schedule()
    return id
  }

  clearTimeout(id: TimerId): void {
    const i = this.#timers.findIndex((t) => t.id === id)
    if (i >= 0) {
      this.#timers.splice(i, 1)
      this.#schedule()
    }
  }

  /** Moves time forward by `ms` (at most `MAX_CLOCK_JUMP_MS`), firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0)
      throw new InputValidationError(`clock advance must be a non-negative number of ms, got ${ms}`)
    if (ms > MAX_CLOCK_JUMP_MS)
      throw new InputValidationError(
        `clock advance must be at most ${MAX_CLOCK_JUMP_MS} ms (366 days), got ${ms}`,
      )
    this.#jumpTo(this.now() + ms)
  }

  /**
   * Sets the time to `ms` (Unix ms). Throws when that is in the past (the clock never goes
   * backwards) or more than `MAX_CLOCK_JUMP_MS` ahead.
   */
  set(ms: number): void {
    if (!Number.isFinite(ms)) throw new InputValidationError(`clock time must be a finite number, got ${ms}`)
    const now = this.now()
    if (ms < now) throw new InputValidationError(`cannot move the clock backwards (now ${now}, asked ${ms})`)
    if (ms - now > MAX_CLOCK_JUMP_MS)
      throw new InputValidationError(
        `clock time must be at most ${MAX_CLOCK_JUMP_MS} ms (366 days) ahead of now ${now}, got ${ms}`,
      )
    this.#jumpTo(ms)
  }

  /** Due time of the earliest pending timer, or undefined (a stepped driver jumps there). */
  nextDue(): number | undefined {
    return this.#earliest()?.due
  }

  info(): ClockInfo {
    return { mode: this.mode, rate: this.rate, now: this.now(), pendingTimers: this.#timers.length }
  }

  /** Drops every pending timer and the wall timer, so nothing keeps the process alive. */
  dispose(): void {
    this.#disposed = true
    this.#timers = []
    this.#clearWallTimer()
  }

  #jumpTo(target: number): void {
    // Step through each due timer so that `now()` inside a callback is that timer's due time, and
    // timers set by callbacks inside the window fire too.
    for (;;) {
      const next = this.#earliest()
      if (next === undefined || next.due > target) break
      this.#reanchor(Math.max(next.due, this.now()))
      this.#fire(next)
    }
    this.#reanchor(Math.max(target, this.now()))
    this.#schedule()
  }

  #reanchor(virtual: number): void {
    this.#anchorVirtual = virtual
    this.#anchorWall = this.#base.now()
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined
    for (const t of this.#timers) {
      if (best === undefined || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t
    }
    return best
  }

  #fire(timer: Timer): void {
    const i = this.#timers.indexOf(timer)
    if (i < 0) return
    this.#timers.splice(i, 1)
    timer.fn()
  }

  /** Fires what is due at the current virtual time (wall-driven modes). */
  #flushDue(): void {
    if (this.#flushing) return
    this.#flushing = true
    try {
      for (;;) {
        const next = this.#earliest()
        if (next === undefined || next.due > this.now()) break
        this.#fire(next)
      }
    } finally {
      this.#flushing = false
    }
  }

  /** Keeps one wall timer armed for the earliest virtual deadline (not in `stepped` mode). */
  #schedule(): void {
    if (this.rate === 0 || this.#disposed || this.#flushing) return
    const next = this.#earliest()
    if (next === undefined) {
      this.#clearWallTimer()
      return
    }
    if (this.#wallTimer !== undefined && this.#wallTimerDue === next.due) return
    this.#clearWallTimer()
    const wallDelay = Math.max(0, Math.ceil((next.due - this.now()) / this.rate))
    this.#wallTimerDue = next.due
    this.#wallTimer = this.#base.setTimeout(() => {
      this.#wallTimer = undefined
      this.#wallTimerDue = Number.POSITIVE_INFINITY
      this.#flushDue()
      this.#schedule()
    }, wallDelay)
    // A pending mock timer must not keep the process alive on its own (the server socket does).
    unrefTimer(this.#wallTimer)
  }

  #clearWallTimer(): void {
    if (this.#wallTimer !== undefined) this.#base.clearTimeout(this.#wallTimer)
    this.#wallTimer = undefined
    this.#wallTimerDue = Number.POSITIVE_INFINITY
  }
}
