/**
 * At most one timer per key on an injected clock: scheduling a key replaces its pending timer, and a
 * fired timer forgets itself before it runs (so the callback may schedule its key again).
 */
import type { Clock, TimerId } from '../../../clock.ts'

export class KeyedTimers<K extends string> {
  readonly #clock: Clock
  readonly #ids = new Map<K, TimerId>()

  constructor(clock: Clock) {
    this.#clock = clock
  }

  schedule(key: K, ms: number, fn: () => void): void {
    this.clear(key)
    this.#ids.set(
      key,
      this.#clock.setTimeout(
        () => {
          this.#ids.delete(key)
          fn()
        },
        Math.max(0, ms),
      ),
    )
  }

  clear(key: K): void {
    const id = this.#ids.get(key)
    if (id !== undefined) this.#clock.clearTimeout(id)
    this.#ids.delete(key)
  }
}
