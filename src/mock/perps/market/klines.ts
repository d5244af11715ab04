/**
 * 1-minute klines in a fixed-size ring (memory stays bounded however long the mock runs). Prices and
 * volumes are stored as integer ticks in typed arrays and turned into wire tuples on demand.
 */
import { fromTicks } from '../../../decimal.ts'
import { slotOf } from '../../../guards.ts'
import type { Kline } from '../../../perps/schemas/info.ts'

export const MINUTE_MS = 60_000

export class KlineRing {
  readonly capacity: number
  readonly #openTime: Float64Array
  readonly #open: Float64Array
  readonly #high: Float64Array
  readonly #low: Float64Array
  readonly #close: Float64Array
  readonly #volume: Float64Array
  readonly #trades: Float64Array
  /**
   * Wire tuples of closed klines by slot: a day of them is read every statistics poll, and only the
   * newest kline still changes. Cleared when a slot is reused; keyed on the decimals they were made with.
   */
  readonly #wire: (Kline | undefined)[]
  #wireDecimals = ''
  /** Index of the oldest kline, and how many are stored. */
  #start = 0
  #count = 0

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('kline capacity must be >= 1')
    this.capacity = capacity
    this.#openTime = new Float64Array(capacity)
    this.#open = new Float64Array(capacity)
    this.#high = new Float64Array(capacity)
    this.#low = new Float64Array(capacity)
    this.#close = new Float64Array(capacity)
    this.#volume = new Float64Array(capacity)
    this.#trades = new Float64Array(capacity)
    this.#wire = new Array<Kline | undefined>(capacity)
  }

  get size(): number {
    return this.#count
  }

  #slot(i: number): number {
    return (this.#start + i) % this.capacity
  }

  #push(openTime: number, price: number): void {
    const slot = this.#count < this.capacity ? this.#slot(this.#count) : this.#start
    if (this.#count < this.capacity) this.#count++
    else this.#start = (this.#start + 1) % this.capacity
    this.#wire[slot] = undefined
    this.#openTime[slot] = openTime
    this.#open[slot] = price
    this.#high[slot] = price
    this.#low[slot] = price
    this.#close[slot] = price
    this.#volume[slot] = 0
    this.#trades[slot] = 0
  }

  /**
   * Records a trade print at `time` (ms): extends the current minute or opens new ones. Skipped
   * minutes become flat klines at the previous close (only as many as the ring holds).
   */
  record(time: number, priceTicks: number, volumeTicks: number, trades: number): void {
    const bucket = Math.floor(time / MINUTE_MS) * MINUTE_MS
    if (this.#count === 0) {
      this.#push(bucket, priceTicks)
    } else {
      const lastSlot = this.#slot(this.#count - 1)
      const lastOpen = slotOf(this.#openTime, lastSlot)
      if (bucket < lastOpen) return
      if (bucket > lastOpen) {
        const prevClose = slotOf(this.#close, lastSlot)
        const first = Math.max(lastOpen + MINUTE_MS, bucket - (this.capacity - 1) * MINUTE_MS)
        for (let t = first; t <= bucket; t += MINUTE_MS) this.#push(t, prevClose)
      }
    }
    const slot = this.#slot(this.#count - 1)
    this.#high[slot] = Math.max(slotOf(this.#high, slot), priceTicks)
    this.#low[slot] = Math.min(slotOf(this.#low, slot), priceTicks)
    this.#close[slot] = priceTicks
    this.#volume[slot] = slotOf(this.#volume, slot) + volumeTicks
    this.#trades[slot] = slotOf(this.#trades, slot) + trades
  }

  /** Adds volume to the current minute without moving the price (fills of account orders). */
  addVolume(volumeTicks: number, trades: number): void {
    if (this.#count === 0) return
    const slot = this.#slot(this.#count - 1)
    this.#volume[slot] = slotOf(this.#volume, slot) + volumeTicks
    this.#trades[slot] = slotOf(this.#trades, slot) + trades
  }

  /**
   * Klines whose minute starts at or after `fromMs`, oldest first, as wire tuples; with `newest`, only
   * the newest that many of them (a push carries two, not the day).
   */
  toWire(fromMs: number, pd: number, qd: number, newest?: number | undefined): Kline[] {
    const decimals = `${pd}/${qd}`
    if (decimals !== this.#wireDecimals) {
      this.#wire.fill(undefined)
      this.#wireDecimals = decimals
    }
    const out: Kline[] = []
    const last = this.#count - 1
    const first = newest === undefined ? 0 : Math.max(0, this.#count - newest)
    for (let i = first; i < this.#count; i++) {
      const s = this.#slot(i)
      const t = slotOf(this.#openTime, s)
      if (t < fromMs) continue
      const cached = this.#wire[s]
      if (cached !== undefined && i < last) {
        out.push(cached)
        continue
      }
      const k: Kline = [
        t,
        fromTicks(BigInt(slotOf(this.#open, s)), pd),
        fromTicks(BigInt(slotOf(this.#high, s)), pd),
        fromTicks(BigInt(slotOf(this.#low, s)), pd),
        fromTicks(BigInt(slotOf(this.#close, s)), pd),
        fromTicks(BigInt(slotOf(this.#volume, s)), qd),
        slotOf(this.#trades, s),
      ]
      // Only a closed kline is final (the newest one still takes trades and volume).
      if (i < last) this.#wire[s] = k
      out.push(k)
    }
    return out
  }

  /** Sum of volume ticks and the first open (ticks) of klines starting at or after `fromMs`. */
  summary(fromMs: number): { volumeTicks: number; openTicks: number | undefined } {
    let volumeTicks = 0
    let openTicks: number | undefined
    for (let i = 0; i < this.#count; i++) {
      const s = this.#slot(i)
      if (slotOf(this.#openTime, s) < fromMs) continue
      if (openTicks === undefined) openTicks = slotOf(this.#open, s)
      volumeTicks += slotOf(this.#volume, s)
    }
    return { volumeTicks, openTicks }
  }
}
