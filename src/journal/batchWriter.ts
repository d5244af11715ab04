/**
 * A bounded write-behind queue: `push` is O(1) and never touches the database (the order path calls
 * it); a flush writes up to `batchRows` items in one transaction every `flushMs`, or at once when that
 * many are waiting. When the database fails, items stay queued (the write is retried with backoff, and
 * is idempotent), the writer reports `failing`, and past `capacity` it drops: bulk items (commands,
 * order events, snapshots) first, oldest first, counting every drop and remembering the earliest
 * dropped essential item's time (a reconcile from there recovers fills and funding from the venue).
 */
import { performance } from 'node:perf_hooks'
import type { Clock, TimerId } from '../clock.ts'
import { describeError } from '../errors.ts'

/** Amortized O(1) FIFO: an array and a head index, compacted when half is consumed. */
class Fifo<T> {
  #items: T[] = []
  #head = 0
  get length(): number {
    return this.#items.length - this.#head
  }
  push(v: T): void {
    this.#items.push(v)
  }
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined
    const v = this.#items[this.#head]
    this.#head += 1
    if (this.#head > 1_024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head)
      this.#head = 0
    }
    return v
  }
  /** Puts items back at the front, in order. */
  unshiftAll(vs: readonly T[]): void {
    this.#items = [...vs, ...this.#items.slice(this.#head)]
    this.#head = 0
  }
}

export type WriterState = 'ok' | 'failing' | 'closed'

export interface WriterStats {
  state: WriterState
  /** Items waiting (queued and in flight). */
  depth: number
  capacity: number
  written: number
  batches: number
  failures: number
  /** Dropped items by category (a table name). */
  dropped: Record<string, number>
  droppedTotal: number
  /** Earliest time (the item's own) of a dropped essential item: reconcile from here. */
  earliestEssentialDropAt: number | undefined
  lastError: string | undefined
  /** Bot-clock time the writer started failing. */
  failingSince: number | undefined
  /** Wall time of batch writes, ms. */
  lastWriteMs: number
  maxWriteMs: number
  totalWriteMs: number
}

export interface BatchWriterOptions<T> {
  clock: Clock
  /** Flush this often while anything waits, ms. */
  flushMs: number
  /** Flush at once when this many wait; also the most items one transaction writes. */
  batchRows: number
  /** Most items held (queued + in flight) while the database is away. */
  capacity: number
  /** Longest wait between retries while failing, ms. */
  maxBackoffMs?: number | undefined
  /** Writes items in one transaction; throws to keep them queued. */
  write(items: readonly T[]): Promise<void>
  category(item: T): string
  isBulk(item: T): boolean
  /** The item's own time, for `earliestEssentialDropAt`. */
  timeOf(item: T): number
  /**
   * False while items must wait (the journal's account is not known yet): nothing is written until
   * it turns true and `flush` is called, or the writer closes.
   */
  ready?: (() => boolean) | undefined
  /** Called on ok → failing and failing → ok (the bot raises and resolves its alert). */
  onStateChange?: ((state: WriterState, stats: WriterStats) => void) | undefined
}

export class BatchWriter<T> {
  readonly #o: BatchWriterOptions<T>
  readonly #bulk = new Fifo<T>()
  readonly #essential = new Fifo<T>()
  #inFlight = 0
  #timer: TimerId | undefined
  #timerAt = Number.POSITIVE_INFINITY
  #writing: Promise<void> | undefined
  #consecutiveFailures = 0
  #closing = false
  /** Why writes are held (the database is damaged, issue 34): nothing is written while set. */
  #held: string | undefined
  readonly #stats: WriterStats

  constructor(o: BatchWriterOptions<T>) {
    this.#o = o
    this.#stats = {
      state: 'ok',
      depth: 0,
      capacity: o.capacity,
      written: 0,
      batches: 0,
      failures: 0,
      dropped: {},
      droppedTotal: 0,
      earliestEssentialDropAt: undefined,
      lastError: undefined,
      failingSince: undefined,
      lastWriteMs: 0,
      maxWriteMs: 0,
      totalWriteMs: 0,
    }
  }

  get depth(): number {
    return this.#bulk.length + this.#essential.length + this.#inFlight
  }

  stats(): WriterStats {
    return { ...this.#stats, depth: this.depth, dropped: { ...this.#stats.dropped } }
  }

  /** Queues an item; false when it was dropped (closed, or full with nothing older to drop). */
  push(item: T): boolean {
    if (this.#stats.state === 'closed') {
      this.#drop(item)
      return false
    }
    ;(this.#o.isBulk(item) ? this.#bulk : this.#essential).push(item)
    let kept = true
    while (this.depth > this.#o.capacity) {
      const victim = this.#bulk.length > 0 ? this.#bulk.shift() : this.#essential.shift()
      if (victim === undefined) break
      if (victim === item) kept = false
      this.#drop(victim)
    }
    const waiting = this.#bulk.length + this.#essential.length
    if (this.#stats.state === 'ok' && waiting >= this.#o.batchRows) this.#schedule(0)
    else this.#schedule(this.#retryDelay())
    return kept
  }

  #drop(item: T): void {
    const c = this.#o.category(item)
    this.#stats.dropped[c] = (this.#stats.dropped[c] ?? 0) + 1
    this.#stats.droppedTotal += 1
    if (!this.#o.isBulk(item)) {
      const at = this.#o.timeOf(item)
      const prev = this.#stats.earliestEssentialDropAt
      this.#stats.earliestEssentialDropAt = prev === undefined ? at : Math.min(prev, at)
    }
  }

  #retryDelay(): number {
    if (this.#consecutiveFailures === 0) return this.#o.flushMs
    const backoff = this.#o.flushMs * 2 ** Math.min(this.#consecutiveFailures, 16)
    return Math.min(backoff, this.#o.maxBackoffMs ?? 30_000)
  }

  /** Arms the timer for `ms` from now unless one fires sooner. */
  #schedule(ms: number): void {
    if (this.#closing) return
    const at = this.#o.clock.now() + ms
    if (this.#timer !== undefined && this.#timerAt <= at) return
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer)
    this.#timerAt = at
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined
      this.#timerAt = Number.POSITIVE_INFINITY
      void this.flush()
    }, ms)
  }

  /** Writes what waits, batch by batch, until empty or a write fails. Concurrent calls share one run. */
  flush(): Promise<void> {
    // A run under way may already have found its queue empty: items pushed since wait for the next one.
    if (this.#writing !== undefined) return this.#writing.then(() => this.flush())
    const run: Promise<void> = this.#drain().finally(() => {
      if (this.#writing === run) this.#writing = undefined
    })
    this.#writing = run
    return run
  }

  /**
   * Holds every write while the database is damaged (the file deleted or replaced, its WAL corrupt,
   * the disk full): items stay queued (bounded, as while failing), the writer is `failing` at once
   * with `reason` even when nothing waits, and writing resumes when the hold is lifted (undefined).
   */
  hold(reason: string | undefined): void {
    if (reason === this.#held) return
    this.#held = reason
    if (reason !== undefined) {
      if (this.#stats.state === 'ok') this.#failed(new Error(reason))
      else this.#stats.lastError = reason
    } else this.#schedule(0)
  }

  /** Items still queued (not in flight), oldest first, essential ones first; the queue is emptied. */
  takeAll(): T[] {
    const out: T[] = []
    for (let item = this.#essential.shift(); item !== undefined; item = this.#essential.shift())
      out.push(item)
    for (let item = this.#bulk.shift(); item !== undefined; item = this.#bulk.shift()) out.push(item)
    return out
  }

  /** Resolves when the write under way (if any) has ended. */
  settled(): Promise<void> {
    return this.#writing ?? Promise.resolve()
  }

  async #drain(): Promise<void> {
    if (!this.#closing && this.#o.ready?.() === false) return
    for (;;) {
      const batch: T[] = []
      while (batch.length < this.#o.batchRows) {
        const next = this.#essential.length > 0 ? this.#essential.shift() : this.#bulk.shift()
        if (next === undefined) break
        batch.push(next)
      }
      if (batch.length === 0) return
      if (this.#held !== undefined) {
        this.#requeue(batch)
        this.#failed(new Error(this.#held))
        return
      }
      this.#inFlight = batch.length
      const t0 = performance.now()
      try {
        await this.#o.write(batch)
      } catch (e) {
        this.#inFlight = 0
        this.#requeue(batch)
        this.#failed(e)
        return
      }
      const ms = performance.now() - t0
      this.#inFlight = 0
      this.#stats.lastWriteMs = ms
      this.#stats.maxWriteMs = Math.max(this.#stats.maxWriteMs, ms)
      this.#stats.totalWriteMs += ms
      this.#stats.batches += 1
      this.#stats.written += batch.length
      this.#succeeded()
      // A backlog (the database came back) drains batch by batch: let the event loop breathe between
      // them (SQLite writes are synchronous).
      if (this.#essential.length + this.#bulk.length > 0) await new Promise((r) => setImmediate(r))
    }
  }

  #requeue(batch: readonly T[]): void {
    this.#essential.unshiftAll(batch.filter((i) => !this.#o.isBulk(i)))
    this.#bulk.unshiftAll(batch.filter((i) => this.#o.isBulk(i)))
    // Items pushed while the batch was in flight may have overfilled the queue.
    while (this.depth > this.#o.capacity) {
      const victim = this.#bulk.length > 0 ? this.#bulk.shift() : this.#essential.shift()
      if (victim === undefined) break
      this.#drop(victim)
    }
  }

  #failed(e: unknown): void {
    this.#stats.failures += 1
    this.#consecutiveFailures += 1
    this.#stats.lastError = describeError(e)
    if (this.#stats.state === 'ok') {
      this.#stats.state = 'failing'
      this.#stats.failingSince = this.#o.clock.now()
      this.#o.onStateChange?.('failing', this.stats())
    }
    this.#schedule(this.#retryDelay())
  }

  #succeeded(): void {
    this.#consecutiveFailures = 0
    if (this.#stats.state === 'failing') {
      this.#stats.state = 'ok'
      this.#stats.failingSince = undefined
      this.#o.onStateChange?.('ok', this.stats())
    }
  }

  /**
   * Stops the timer, writes what waits (one attempt), hands what could not be written to `keep`
   * (the spool) or counts it dropped, refuses more.
   */
  async close(keep?: (items: readonly T[]) => number): Promise<WriterStats> {
    this.#closing = true
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer)
    this.#timer = undefined
    await this.flush()
    if (keep !== undefined) {
      const left = this.takeAll()
      // What the spool could not take (its bound, its own disk) is counted dropped.
      const kept = left.length === 0 ? 0 : keep(left)
      for (const item of left.slice(kept)) this.#drop(item)
    }
    for (let item = this.#essential.shift(); item !== undefined; item = this.#essential.shift())
      this.#drop(item)
    for (let item = this.#bulk.shift(); item !== undefined; item = this.#bulk.shift()) this.#drop(item)
    this.#stats.state = 'closed'
    return this.stats()
  }
}
