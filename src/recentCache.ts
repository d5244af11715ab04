/**
 * A bounded cache of recent answers by string key, in two generations: when the young one holds
 * `generation` keys it becomes the old one and the old one is dropped; a key found only in the old
 * one moves back to the young one. So the keys in use (an instrument's bounds, the prices near its
 * index) stay however many others pass by, at most `2 × generation` are held, and a hit costs a map
 * lookup, without an LRU's reordering. (Clearing the whole cache when full made a long run, such as a
 * backtest's day, parse its whole working set again every `generation` new spellings.)
 */
export class RecentCache<V> {
  #young = new Map<string, V>()
  #old = new Map<string, V>()
  readonly #generation: number

  constructor(generation: number) {
    this.#generation = generation
  }

  /** The answer stored for `key`, or undefined when none is (undefined cannot be stored). */
  get(key: string): V | undefined {
    const young = this.#young.get(key)
    if (young !== undefined) return young
    const old = this.#old.get(key)
    if (old !== undefined) this.set(key, old)
    return old
  }

  set(key: string, value: V): void {
    if (this.#young.size >= this.#generation) {
      this.#old = this.#young
      this.#young = new Map()
    }
    this.#young.set(key, value)
  }

  /** Keys held (both generations; a key moved back counts twice until its old generation goes). */
  get size(): number {
    return this.#young.size + this.#old.size
  }
}
