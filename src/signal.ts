/**
 * A typed one-way signal: a part built early publishes, parts built later subscribe. It lets the
 * composition root connect parts in construction order without forward references.
 */
export interface Signal<T> extends Subscribable<T> {
  emit(value: T): void
}

/** The listening half of a signal: what a part hands to those who may hear it but not publish. */
export interface Subscribable<T> {
  /** Returns the unsubscribe function. A throwing listener does not affect the others. */
  subscribe(listener: (value: T) => void): () => void
}

export function createSignal<T>(): Signal<T> {
  const listeners = new Set<(value: T) => void>()
  return {
    emit(value) {
      for (const l of [...listeners]) {
        try {
          l(value)
        } catch {
          // A listener bug must not break the publisher or the other listeners.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
