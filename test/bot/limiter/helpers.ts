/** Shared test helpers for the limiter and batcher tests (fake clocks, window maths). */
import { vi } from 'vitest'
import type { Clock, TimerId } from '../../../src/clock.ts'

/**
 * Lets Bottleneck's internal `setTimeout(0)` yields run under `vi.useFakeTimers()`: each yield costs
 * ~1 ms of fake time, as on Node, so a few milliseconds let a handful of jobs through.
 */
export async function tick(ms = 20): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms)
}

/** The most weight inside any half-open window `[t, t + windowMs)` of an admission log. */
export function maxWindowWeight(log: readonly { t: number; w: number }[], windowMs: number): number {
  const sorted = [...log].sort((a, b) => a.t - b.t)
  let best = 0
  let sum = 0
  let tail = 0
  for (const e of sorted) {
    sum += e.w
    while ((sorted[tail] as { t: number }).t <= e.t - windowMs) {
      sum -= (sorted[tail] as { w: number }).w
      tail += 1
    }
    best = Math.max(best, sum)
  }
  return best
}

/** A manual clock: timers run only when the test advances it, in due order. */
export class ManualClock implements Clock {
  #now: number
  #seq = 0
  #timers = new Map<number, { due: number; fn: () => void }>()
  constructor(start = 1_000_000) {
    this.#now = start
  }
  now(): number {
    return this.#now
  }
  setTimeout(fn: () => void, ms: number): TimerId {
    const id = ++this.#seq
    this.#timers.set(id, { due: this.#now + Math.max(0, ms), fn })
    return id
  }
  clearTimeout(id: TimerId): void {
    this.#timers.delete(id as number)
  }
  get pendingTimers(): number {
    return this.#timers.size
  }
  /** Advances time, running due timers (and the microtasks they start) in order. */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms
    for (;;) {
      await flushMicrotasks()
      let next: [number, { due: number; fn: () => void }] | undefined
      for (const entry of this.#timers)
        if (entry[1].due <= until && (!next || entry[1].due < next[1].due)) next = entry
      if (next === undefined) break
      this.#timers.delete(next[0])
      this.#now = next[1].due
      next[1].fn()
    }
    this.#now = until
    await flushMicrotasks()
  }
}

/** Runs queued microtasks (promise continuations) to quiescence. */
export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve()
}
