/**
 * The timeline part: every `intervalMs` of the bot's clock it takes one sample (see timelineSample.ts)
 * into a ring of the last `capacity` samples, and tells its subscribers (the dashboard's event
 * stream). Memory is bounded by the ring and the board; the sampling itself is pure. The ring keeps
 * samples packed (timelinePack.ts) and reads them back as samples for a snapshot.
 */
import type { Clock } from '../../clock.ts'
import type {
  TimelineBoard,
  TimelineSample,
  TimelineSource,
  TimelineUpdate,
} from '../../ops/dashboard/timelineTypes.ts'
import { startPoller } from '../shared/poller.ts'
import { type PackedSample, SamplePacker, unpackSample } from './timelinePack.ts'

/** Every 2 s of bot time; 900 samples keep the last 30 minutes. */
export const TIMELINE_INTERVAL_MS = 2_000
export const TIMELINE_CAPACITY = 900
/** Instrument entries kept across the ring (~60 B each packed: ~3 MB); many instruments keep less history. */
export const TIMELINE_MAX_ENTRIES = 45_000
const TIMELINE_MIN_CAPACITY = 30

/** The ring's length for this many instruments: 900 samples up to 50 instruments, fewer beyond (at least 30). */
export function timelineCapacity(instruments: number): number {
  const fit = Math.floor(TIMELINE_MAX_ENTRIES / Math.max(1, instruments))
  return Math.max(TIMELINE_MIN_CAPACITY, Math.min(TIMELINE_CAPACITY, fit))
}

export interface Timeline extends TimelineSource {
  /** Stops sampling (subscribers get nothing more). */
  stop(): Promise<void>
}

export interface TimelineReading {
  sample: TimelineSample
  board: TimelineBoard
}

export interface TimelineOptions {
  clock: Clock
  /**
   * One sample and the current board, from the parts' snapshots; a promise when the sample is made a
   * slice at a time (many instruments: opsSurface.ts).
   */
  read: () => TimelineReading | Promise<TimelineReading>
  intervalMs?: number | undefined
  capacity?: number | undefined
  /** A failed read (a bug in a snapshot): reported, the next tick tries again. */
  onError?: ((error: unknown) => void) | undefined
}

/** A ring of the last `capacity` items, oldest first on read. */
export class Ring<T> {
  readonly #items: T[] = []
  #start = 0
  readonly capacity: number
  constructor(capacity: number) {
    this.capacity = capacity
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('ring capacity must be ≥ 1')
  }
  push(item: T): void {
    if (this.#items.length < this.capacity) this.#items.push(item)
    else {
      this.#items[this.#start] = item
      this.#start = (this.#start + 1) % this.capacity
    }
  }
  get size(): number {
    return this.#items.length
  }
  toArray(): T[] {
    return [...this.#items.slice(this.#start), ...this.#items.slice(0, this.#start)]
  }
}

export function startTimeline(o: TimelineOptions): Timeline {
  const intervalMs = o.intervalMs ?? TIMELINE_INTERVAL_MS
  const ring = new Ring<PackedSample>(o.capacity ?? TIMELINE_CAPACITY)
  const packer = new SamplePacker()
  const listeners = new Set<(u: TimelineUpdate) => void>()
  let board: TimelineBoard = { botMode: '', fills: [], openAlerts: [], recentAlerts: [] }
  let boardJson = JSON.stringify(board)

  const took = (next: TimelineReading): void => {
    ring.push(packer.pack(next.sample))
    const json = JSON.stringify(next.board)
    const changed = json !== boardJson
    if (changed) {
      board = next.board
      boardJson = json
    }
    const update: TimelineUpdate = changed ? { sample: next.sample, board } : { sample: next.sample }
    for (const l of listeners) {
      try {
        l(update)
      } catch (e) {
        o.onError?.(e)
      }
    }
  }
  const poller = startPoller({
    name: 'timeline',
    clock: o.clock,
    intervalMs: () => intervalMs,
    // A reading given at once is taken in the same turn (as before: a stepped clock's tests see it).
    run: async () => {
      const r = o.read()
      took(r instanceof Promise ? await r : r)
    },
    onError: (e) => o.onError?.(e),
  })
  return {
    snapshot: () => ({
      intervalMs,
      capacity: ring.capacity,
      samples: ring.toArray().map(unpackSample),
      board,
    }),
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    async stop() {
      listeners.clear()
      await poller.stop()
    },
  }
}
