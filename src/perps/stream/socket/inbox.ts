/**
 * The frames of one socket, handled in arrival order, with a way to let other work run first. The
 * socket hands over every frame of a read back to back, with no turn of the event loop between them,
 * so whatever a changed price sets off (an actor's plan, signing, the send) would wait until the last
 * frame of the read was handled; at 1,000 instruments a venue tick is thousands of frames. After a
 * frame that changed something, `yieldNow()` defers the frames still to come to a later turn
 * (`schedule`), so the promises queued meanwhile run first. Once per burst: the deferred frames (and
 * any that arrive meanwhile) are then handled together without yielding again, so many changes in
 * one tick still plan in one turn (one batch of orders, not one request per instrument). Without a
 * yield every frame is handled at once, in the call that brought it. Pure; the scheduler is injected.
 *
 * The default waits two check phases (setImmediate twice): undici writes a request on an idle
 * keep-alive socket one setImmediate after it is made (it first lets the socket report a close), and
 * the deferred frames must not go before that write.
 */
export function afterNextWrite(fn: () => void): void {
  setImmediate(() => setImmediate(fn))
}

export class Inbox<T> {
  readonly #handle: (item: T) => void
  readonly #schedule: (fn: () => void) => void
  readonly #queue: T[] = []
  #head = 0
  /** A later turn is booked: frames wait in the queue until it comes. */
  #deferred = false
  #draining = false
  /** Handling the frames a yield deferred: no second yield until the queue is empty. */
  #catchingUp = false
  #generation = 0

  constructor(handle: (item: T) => void, schedule: (fn: () => void) => void = afterNextWrite) {
    this.#handle = handle
    this.#schedule = schedule
  }

  /** Handles `item` now, or queues it behind the frames a yield deferred. */
  push(item: T): void {
    this.#queue.push(item)
    if (!this.#deferred && !this.#draining) this.#drain()
  }

  /** The frames after the one being handled wait for a later turn of the event loop. */
  yieldNow(): void {
    if (this.#deferred || this.#catchingUp) return
    this.#deferred = true
    const generation = this.#generation
    this.#schedule(() => {
      if (generation !== this.#generation) return
      this.#deferred = false
      this.#catchingUp = true
      if (!this.#draining) this.#drain()
    })
  }

  /** Frames waiting. */
  get pending(): number {
    return this.#queue.length - this.#head
  }

  /** Drops the frames waiting (the socket they came on is gone). */
  clear(): void {
    this.#queue.length = 0
    this.#head = 0
    this.#deferred = false
    this.#catchingUp = false
    this.#generation++
  }

  #drain(): void {
    this.#draining = true
    try {
      while (!this.#deferred && this.#head < this.#queue.length) {
        const item = this.#queue[this.#head] as T
        this.#head++
        this.#handle(item)
      }
    } finally {
      this.#draining = false
      if (this.#head >= this.#queue.length) {
        this.#queue.length = 0
        this.#head = 0
        this.#catchingUp = false
      }
    }
  }
}
