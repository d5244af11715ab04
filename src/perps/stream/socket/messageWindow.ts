/**
 * Outbound message budget of one stream client: at most `limit` frames in any 60 s window (the venue
 * allows 1,000 inbound messages per minute per IP, shared by every socket from that IP, so each
 * client is given a share). Exact sliding window over the send times.
 */

export const MESSAGE_WINDOW_MS = 60_000

export class MessageWindow {
  readonly #limit: number
  readonly #windowMs: number
  // Send times, oldest first; never longer than `limit`.
  #times: number[] = []

  constructor(limit: number, windowMs = MESSAGE_WINDOW_MS) {
    if (!(Number.isInteger(limit) && limit > 0))
      throw new RangeError(`message limit must be a positive integer`)
    this.#limit = limit
    this.#windowMs = windowMs
  }

  #prune(now: number): void {
    let i = 0
    while (i < this.#times.length && (this.#times[i] ?? now) <= now - this.#windowMs) i++
    if (i > 0) this.#times = this.#times.slice(i)
  }

  /** Takes one slot at `now` if the window has room. */
  tryTake(now: number): boolean {
    this.#prune(now)
    if (this.#times.length >= this.#limit) return false
    this.#times.push(now)
    return true
  }

  /** When the next slot frees up (now, if one is free). */
  nextFreeAt(now: number): number {
    this.#prune(now)
    if (this.#times.length < this.#limit) return now
    return (this.#times[0] ?? now) + this.#windowMs
  }

  used(now: number): number {
    this.#prune(now)
    return this.#times.length
  }
}
