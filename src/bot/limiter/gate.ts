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

  wait(): Promise<void> {
    if (this.#open) return Promise.resolve()
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }))
  }

  /** Rejects every waiter (shutdown). */
  fail(error: unknown): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w.reject(error)
  }
}
