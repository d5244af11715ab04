/** A reusable open/closed gate: `wait()` resolves at once while open, else when it next opens. */
export class Gate {
  #open = true
  #waiters: { resolve: () => void; reject: (e: unknown) => void }[] = []

  get isOpen(): boolean {
    return this.#open
  }

  get waiting(): number {
    return this.#waiters.length
  }

  close(): void {
    this.#open = false
  }

  open(): void {
    this.#open = true
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w.resolve()
  }

  /** Waits for the gate to open; an abort of `signal` leaves the line at once and rejects with `onAbort()`. */
  wait(signal?: AbortSignal | undefined, onAbort?: (() => unknown) | undefined): Promise<void> {
    if (this.#open) return Promise.resolve()
    const abortError = (): unknown => (onAbort ? onAbort() : signal?.reason)
    if (signal?.aborted) return Promise.reject(abortError())
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', abort)
          resolve()
        },
        reject: (e: unknown) => {
          signal?.removeEventListener('abort', abort)
          reject(e)
        },
      }
      const abort = (): void => {
        const i = this.#waiters.indexOf(waiter)
        if (i >= 0) this.#waiters.splice(i, 1)
        reject(abortError())
      }
      signal?.addEventListener('abort', abort, { once: true })
      this.#waiters.push(waiter)
    })
  }

  /** Rejects every waiter (shutdown). */
  fail(error: unknown): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w.reject(error)
  }
}
