/**
 * Bounded series for long runs. A `Series` keeps at most `cap` points on a regular time grid: when it
 * is full it halves itself (every other point kept, the grid step doubled), so memory stays bounded
 * and the kept points are a deterministic function of the input alone.
 */

export interface SeriesPoint {
  t: number
  v: readonly (number | null)[]
}

export class Series {
  readonly cap: number
  #step: number
  #next: number | undefined
  #points: SeriesPoint[] = []

  /** @param stepMs the finest grid; points closer than the current step are skipped. */
  constructor(stepMs: number, cap: number) {
    if (!(stepMs > 0) || !(cap >= 4)) throw new RangeError('Series needs stepMs > 0 and cap >= 4')
    this.#step = stepMs
    this.cap = cap
  }

  get stepMs(): number {
    return this.#step
  }

  /** True when a point at `t` would be kept (callers skip building it otherwise). */
  wants(t: number): boolean {
    return this.#next === undefined || t >= this.#next
  }

  /** Adds a point if the grid wants one at `t` (`force`: always, e.g. the run's last moment). */
  push(t: number, v: readonly (number | null)[], force = false): void {
    if (!force && !this.wants(t)) return
    if (force && this.#points[this.#points.length - 1]?.t === t) this.#points.pop()
    this.#points.push({ t, v })
    this.#next = gridAfter(t, this.#step)
    if (this.#points.length >= this.cap) {
      this.#points = thin(this.#points)
      this.#step *= 2
      this.#next = gridAfter(t, this.#step)
    }
  }

  points(): readonly SeriesPoint[] {
    return this.#points
  }
}

/** The first grid line of `step` strictly after `t`. */
export function gridAfter(t: number, step: number): number {
  return (Math.floor(t / step) + 1) * step
}

/** Every other point, keeping the last one (the latest state matters most). */
export function thin<T>(points: readonly T[]): T[] {
  const out: T[] = []
  for (let i = 0; i < points.length; i += 2) {
    const p = points[i]
    if (p !== undefined) out.push(p)
  }
  const last = points[points.length - 1]
  if (last !== undefined && out[out.length - 1] !== last) out.push(last)
  return out
}

/**
 * A bounded sample of events (fills): all of them up to `cap`, then every 2nd, 4th, ... (a stride that
 * doubles each time the sample fills), so any run keeps an even spread of its events.
 */
export class EventSample<T> {
  readonly cap: number
  #stride = 1
  #seen = 0
  #items: T[] = []

  constructor(cap: number) {
    if (!(cap >= 2)) throw new RangeError('EventSample needs cap >= 2')
    this.cap = cap
  }

  add(item: T): void {
    if (this.#seen % this.#stride === 0) {
      this.#items.push(item)
      if (this.#items.length >= this.cap) {
        this.#items = this.#items.filter((_, i) => i % 2 === 0)
        this.#stride *= 2
      }
    }
    this.#seen += 1
  }

  get seen(): number {
    return this.#seen
  }

  /** How many events each kept one stands for. */
  get stride(): number {
    return this.#stride
  }

  items(): readonly T[] {
    return this.#items
  }
}
