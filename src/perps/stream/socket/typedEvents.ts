/** A typed event hub: one listener set per event name; a throwing listener never stops the others. */

export class TypedEvents<M extends object> {
  readonly #sets = new Map<keyof M, Set<(value: never) => void>>()
  readonly #onListenerError: (error: unknown, event: keyof M) => void

  constructor(onListenerError: (error: unknown, event: keyof M) => void = () => {}) {
    this.#onListenerError = onListenerError
  }

  on<K extends keyof M>(event: K, listener: (value: M[K]) => void): () => void {
    let set = this.#sets.get(event)
    if (set === undefined) {
      set = new Set()
      this.#sets.set(event, set)
    }
    const entries = set
    entries.add(listener)
    return () => entries.delete(listener)
  }

  emit<K extends keyof M>(event: K, value: M[K]): void {
    const set = this.#sets.get(event)
    if (set === undefined) return
    for (const listener of set as Set<(value: M[K]) => void>) {
      try {
        listener(value)
      } catch (e) {
        this.#onListenerError(e, event)
      }
    }
  }
}
