/**
 * A forward-only cursor over one kind of one instrument in a time window: it loads one hourly chunk
 * at a time (synchronously: the mock steps synchronously), so memory holds an hour per cursor
 * however long the window. Rows come out oldest first.
 */
import type { DataKind, RowOf } from './format.ts'
import type { DatasetStore } from './store.ts'

export class ChunkCursor<K extends DataKind> {
  readonly #store: DatasetStore
  readonly #kind: K
  readonly #paths: string[]
  readonly #from: number
  #rows: RowOf[K][] = []
  #i = 0
  #next = 0

  constructor(store: DatasetStore, kind: K, symbol: string, from: number, to: number) {
    this.#store = store
    this.#kind = kind
    this.#from = from
    this.#paths = store.chunks(kind, symbol, from, to).map(([p]) => p)
  }

  /** True when the dataset holds any chunk of this kind in the window. */
  get present(): boolean {
    return this.#paths.length > 0
  }

  /** The next row without taking it (undefined at the end). */
  peek(): RowOf[K] | undefined {
    while (this.#i >= this.#rows.length) {
      const path = this.#paths[this.#next]
      if (path === undefined) return undefined
      this.#next++
      this.#rows = this.#store.readChunk(path, this.#kind).filter((r) => r.t >= this.#from)
      this.#i = 0
    }
    return this.#rows[this.#i]
  }

  /** Takes the next row when its time is at most `t`. */
  takeUntil(t: number): RowOf[K] | undefined {
    const r = this.peek()
    if (r === undefined || r.t > t) return undefined
    this.#i++
    return r
  }
}
