/**
 * The pending-markout tracker (issue 39.3): for each of our fills, the book's mid at the fill and 1 s,
 * 10 s and 60 s after it, each handed to `write` (the journal) once its moment has passed. Pure and
 * in bounded memory: fed the touches the bot receives (`touch`), our fills (`fill`) and the time
 * (`advance`), all on one clock (the venue's, as the bot keeps it: a fill's own timestamp is on it).
 *
 * The mid at a moment T is the mid of the last touch received at or before T, when that touch was at
 * most `maxAgeMs` old at T and had both sides, not crossed; otherwise it is unknown and nothing is
 * written (the report says unknown, never a guess). Each instrument keeps its last `ringSize`
 * touches (and a fill may arrive after its own moment: the ring looks back); a moment older than the
 * ring's oldest touch is unknown. At most `maxPending` fills wait for a horizon: past it, a new fill
 * gets its mid at the fill only and is counted in `dropped`.
 */

import { MARKOUT_HORIZONS_MS } from '../analytics/markouts.ts'
import { addDecimal, compareDecimal, mulDecimal } from '../decimal.ts'
import type { FillMidRecord } from './records.ts'

/** The mid at the fill (0), then the analytics' horizons. */
export const FILL_MID_HORIZONS_MS: readonly number[] = [0, ...MARKOUT_HORIZONS_MS]

/** A touch older than this at a moment is no mid for it: the stream refreshes an unchanged touch every 1.5 s. */
export const DEFAULT_MID_MAX_AGE_MS = 3_000
export const DEFAULT_RING_SIZE = 256
export const DEFAULT_MAX_PENDING = 10_000

export interface FillMidsOptions {
  write(rec: FillMidRecord): void
  maxAgeMs?: number | undefined
  ringSize?: number | undefined
  maxPending?: number | undefined
}

export interface TrackedFill {
  iid: number
  tradeId: string
  orderId: number
  /** The fill's time (venue clock). */
  ts: number
}

export interface FillMidsStats {
  /** Fills waiting for a horizon. */
  pending: number
  fills: number
  /** Mids written (fill and horizons). */
  written: number
  /** Moments that passed with no fresh touch (nothing written for them). */
  unknown: number
  /** Fills not kept for their horizons (the pending cap was reached). */
  dropped: number
}

/** The last touches of one instrument, oldest overwritten first. */
class Ring {
  readonly #t: Float64Array
  readonly #bid: (string | undefined)[]
  readonly #ask: (string | undefined)[]
  #next = 0
  #size = 0

  constructor(size: number) {
    this.#t = new Float64Array(size)
    this.#bid = new Array(size)
    this.#ask = new Array(size)
  }

  get newest(): number | undefined {
    return this.#size === 0 ? undefined : this.#t[(this.#next - 1 + this.#t.length) % this.#t.length]
  }

  push(t: number, bid: string | undefined, ask: string | undefined): void {
    this.#t[this.#next] = t
    this.#bid[this.#next] = bid
    this.#ask[this.#next] = ask
    this.#next = (this.#next + 1) % this.#t.length
    this.#size = Math.min(this.#size + 1, this.#t.length)
  }

  /** The last touch received at or before `at`, or undefined when the ring does not reach back to it. */
  at(at: number): { t: number; bid: string | undefined; ask: string | undefined } | undefined {
    const n = this.#t.length
    for (let k = 1; k <= this.#size; k++) {
      const i = (this.#next - k + n) % n
      const t = this.#t[i] ?? Number.NaN
      if (t <= at) return { t, bid: this.#bid[i], ask: this.#ask[i] }
    }
    return undefined
  }
}

interface Pending extends TrackedFill {
  /** Index into FILL_MID_HORIZONS_MS of the next moment to settle. */
  next: number
}

export class FillMids {
  readonly #write: (rec: FillMidRecord) => void
  readonly #maxAgeMs: number
  readonly #ringSize: number
  readonly #maxPending: number
  readonly #rings = new Map<number, Ring>()
  readonly #pending = new Map<number, Pending[]>()
  #pendingCount = 0
  readonly #stats = { fills: 0, written: 0, unknown: 0, dropped: 0 }

  constructor(o: FillMidsOptions) {
    this.#write = o.write
    this.#maxAgeMs = o.maxAgeMs ?? DEFAULT_MID_MAX_AGE_MS
    this.#ringSize = Math.max(2, o.ringSize ?? DEFAULT_RING_SIZE)
    this.#maxPending = Math.max(0, o.maxPending ?? DEFAULT_MAX_PENDING)
  }

  /** The instrument's best bid and ask (decimal strings; a side may be missing) received at `t`. */
  touch(iid: number, t: number, bid: string | undefined, ask: string | undefined): void {
    let ring = this.#rings.get(iid)
    if (ring === undefined) {
      ring = new Ring(this.#ringSize)
      this.#rings.set(iid, ring)
    }
    const newest = ring.newest
    // Out of order: the ring stays sorted by receive time.
    if (newest !== undefined && t < newest) return
    // Moments before `t` are settled by the touches before it.
    this.#settle(iid, t)
    ring.push(t, bid, ask)
  }

  /**
   * The instrument's newest touch pushed again unchanged at `t` (the streams renew its age without
   * routing it): as a touch with the same sides, so a quiet book's mid stays known.
   */
  renew(iid: number, t: number): void {
    const last = this.#rings.get(iid)?.at(Number.POSITIVE_INFINITY)
    if (last !== undefined) this.touch(iid, t, last.bid, last.ask)
  }

  /** One of our fills, seen at `now`: every moment of it already past is settled at once. */
  fill(f: TrackedFill, now: number): void {
    this.#stats.fills++
    const p: Pending = { ...f, next: 0 }
    this.#settleOne(p, now)
    if (p.next >= FILL_MID_HORIZONS_MS.length) return
    if (this.#pendingCount >= this.#maxPending) {
      this.#stats.dropped++
      return
    }
    const list = this.#pending.get(f.iid)
    if (list === undefined) this.#pending.set(f.iid, [p])
    else list.push(p)
    this.#pendingCount++
    // A fill is a moment too: older fills of the instrument settle even when no touch comes.
    this.#settle(f.iid, now)
  }

  /** Settles every moment before `now` on every instrument (a timer, the stop). */
  advance(now: number): void {
    for (const iid of [...this.#pending.keys()]) this.#settle(iid, now)
  }

  /** Whether any touch of the instrument has been received. */
  touched(iid: number): boolean {
    return this.#rings.has(iid)
  }

  stats(): FillMidsStats {
    return { pending: this.#pendingCount, ...this.#stats }
  }

  #settle(iid: number, now: number): void {
    const list = this.#pending.get(iid)
    if (list === undefined) return
    let done = 0
    for (const p of list) {
      this.#settleOne(p, now)
      if (p.next >= FILL_MID_HORIZONS_MS.length) done++
    }
    if (done === 0) return
    const left = list.filter((p) => p.next < FILL_MID_HORIZONS_MS.length)
    this.#pendingCount -= list.length - left.length
    if (left.length === 0) this.#pending.delete(iid)
    else this.#pending.set(iid, left)
  }

  /** Writes each moment of `p` strictly before `now` (a later touch can no longer precede it). */
  #settleOne(p: Pending, now: number): void {
    for (;;) {
      const h = FILL_MID_HORIZONS_MS[p.next]
      if (h === undefined) return
      const at = p.ts + h
      if (at >= now) return
      p.next++
      const mid = this.#midAt(p.iid, at)
      if (mid === undefined) {
        this.#stats.unknown++
        continue
      }
      this.#stats.written++
      this.#write({
        tradeId: p.tradeId,
        orderId: p.orderId,
        fillTs: p.ts,
        horizonMs: h,
        mid: mid.mid,
        at: mid.t,
      })
    }
  }

  #midAt(iid: number, at: number): { mid: string; t: number } | undefined {
    const touch = this.#rings.get(iid)?.at(at)
    if (touch === undefined || at - touch.t > this.#maxAgeMs) return undefined
    return touchMid(touch.bid, touch.ask, touch.t)
  }
}

/** (bid + ask) / 2, exact; undefined for a one-sided, empty or crossed touch. */
export function touchMid(
  bid: string | undefined,
  ask: string | undefined,
  t: number,
): { mid: string; t: number } | undefined {
  if (bid === undefined || ask === undefined) return undefined
  if (compareDecimal(bid, '0') <= 0 || compareDecimal(bid, ask) > 0) return undefined
  return { mid: mulDecimal(addDecimal(bid, ask), '0.5'), t }
}
