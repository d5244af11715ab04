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

/**
 * Inboxes that yield together: the sockets of one pool. A venue tick arrives on every socket at once
 * (tickers on one, BBOs on others), and the event loop hands each socket's read to its inbox in the
 * same poll phase; a yield on one socket alone would leave the others' frames to run before the
 * order it was made for is written. While the group is held (from a yield until its scheduled turn),
 * every inbox of the group queues what arrives, and at that turn each one handles its queue.
 */
export class InboxGroup {
  readonly #schedule: (fn: () => void) => void
  #held = false
  /** Turns booked so far: names the current hold. */
  #turn = 0
  readonly #waiting: (() => void)[] = []

  constructor(schedule: (fn: () => void) => void = afterNextWrite) {
    this.#schedule = schedule
  }

  /** True from a yield until its turn comes. */
  get held(): boolean {
    return this.#held
  }

  /** The current hold (while `held`). */
  get turn(): number {
    return this.#turn
  }

  /** `resume` runs at the held turn (booked now if nothing holds the group yet). */
  wait(resume: () => void): void {
    this.#waiting.push(resume)
    if (this.#held) return
    this.#held = true
    this.#turn++
    this.#schedule(() => {
      this.#held = false
      for (const fn of this.#waiting.splice(0)) fn()
    })
  }
}

export class Inbox<T> {
  readonly #handle: (item: T) => void
  readonly #group: InboxGroup
  readonly #queue: T[] = []
  #head = 0
  /** A later turn is booked: frames wait in the queue until it comes. */
  #deferred = false
  #draining = false
  /** Handling the frames a yield deferred: no second yield until the queue is empty (or `#catchUpFrames`). */
  #catchingUp = false
  /** Frames handled since the catch-up began. */
  #caughtUp = 0
  readonly #catchUpFrames: number
  #generation = 0
  /** A hold booked before the last `clear` (a socket since gone): frames of the new one do not wait for it. */
  #ignoredTurn = -1

  /**
   * `schedule`: this inbox's own later turn, or the group it yields with (the pool's sockets).
   * `catchUpFrames`: a catch-up may yield again once it has handled this many frames (default never:
   * one yield per burst). A venue tick deferred whole is ~2,000 frames (3-4 ms at 1,000 instruments):
   * a price that moved among them would otherwise wait for all of them before its order is sent.
   */
  constructor(
    handle: (item: T) => void,
    schedule: ((fn: () => void) => void) | InboxGroup = afterNextWrite,
    options: { catchUpFrames?: number | undefined } = {},
  ) {
    this.#handle = handle
    this.#group = schedule instanceof InboxGroup ? schedule : new InboxGroup(schedule)
    this.#catchUpFrames = options.catchUpFrames ?? Number.POSITIVE_INFINITY
  }

  /** Handles `item` now, or queues it behind the frames a yield (of this inbox or its group) deferred. */
  push(item: T): void {
    if (this.#deferred || this.#draining) {
      this.#queue.push(item)
      return
    }
    const held = this.#group.held && this.#group.turn !== this.#ignoredTurn && !this.#catchingUp
    if (held || this.#head < this.#queue.length) {
      this.#queue.push(item)
      if (held) this.#defer()
      else this.#drain()
      return
    }
    // Nothing waits (nearly every frame): handled at once, without a trip through the queue.
    this.#draining = true
    try {
      this.#handle(item)
    } finally {
      this.#draining = false
      if (this.#head >= this.#queue.length) this.#catchingUp = false
    }
    if (!this.#deferred && this.#head < this.#queue.length) this.#drain()
  }

  /** The frames after the one being handled wait for a later turn of the event loop (and the group's). */
  yieldNow(): void {
    if (this.#deferred || (this.#catchingUp && this.#caughtUp < this.#catchUpFrames)) return
    this.#defer()
  }

  #defer(): void {
    this.#deferred = true
    const generation = this.#generation
    this.#group.wait(() => {
      if (generation !== this.#generation) return
      this.#deferred = false
      this.#catchingUp = true
      this.#caughtUp = 0
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
    if (this.#group.held) this.#ignoredTurn = this.#group.turn
  }

  #drain(): void {
    this.#draining = true
    try {
      while (!this.#deferred && this.#head < this.#queue.length) {
        const item = this.#queue[this.#head] as T
        this.#head++
        this.#caughtUp++
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
