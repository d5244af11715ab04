/**
 * How the timeline's ring keeps a sample: each instrument's numbers in one `Float64Array` (null kept
 * as NaN: a sample's numbers are finite or null), its strings in one array (state paths interned),
 * and the instruments' fixed part (id, symbol, decimals) shared with the sample before when unchanged.
 * A sample read back (`unpackSample`) equals the one packed, key for key. At 1,000 instruments a
 * sample held as objects was ~300 KB of heap (an object, four boxed numbers and a freshly built state
 * string per instrument), packed ~60 KB; the ring holds 45 of them.
 */
import type { TimelineInstrument, TimelineSample } from '../../ops/dashboard/timelineTypes.ts'

/** What does not change from sample to sample while the instrument list stays. */
interface InstrumentFixed {
  id: number
  symbol: string
  priceDecimals: number | undefined
  quantityDecimals: number | undefined
}

export interface PackedSample {
  at: number
  account: TimelineSample['account']
  limiter: TimelineSample['limiter']
  fixed: readonly InstrumentFixed[]
  /** Per instrument: state, reason, mode. */
  strings: string[]
  /** Per instrument: index, mark, bid, ask, position, open orders (NaN = null). */
  numbers: Float64Array
}

const NUMBERS = 6
const STRINGS = 3
/** Distinct state paths kept for sharing (the machine has a few dozen); past it, none are added. */
const MAX_INTERNED = 1_000

const toSlot = (n: number | null): number => (n === null ? Number.NaN : n)
const fromSlot = (n: number): number | null => (Number.isNaN(n) ? null : n)

export class SamplePacker {
  readonly #states = new Map<string, string>()
  #fixed: InstrumentFixed[] = []

  /** A sample's state path, one string for every instrument and sample that shares it. */
  #intern(state: string): string {
    const known = this.#states.get(state)
    if (known !== undefined) return known
    if (this.#states.size < MAX_INTERNED) this.#states.set(state, state)
    return state
  }

  /** The fixed part of the previous sample when every instrument's is the same, else a new one. */
  #fixedOf(instruments: readonly TimelineInstrument[]): InstrumentFixed[] {
    const prev = this.#fixed
    const same =
      prev.length === instruments.length &&
      instruments.every((i, k) => {
        const f = prev[k]
        return (
          f !== undefined &&
          f.id === i.id &&
          f.symbol === i.symbol &&
          f.priceDecimals === i.priceDecimals &&
          f.quantityDecimals === i.quantityDecimals
        )
      })
    if (same) return prev
    this.#fixed = instruments.map((i) => ({
      id: i.id,
      symbol: i.symbol,
      priceDecimals: i.priceDecimals,
      quantityDecimals: i.quantityDecimals,
    }))
    return this.#fixed
  }

  pack(s: TimelineSample): PackedSample {
    const n = s.instruments.length
    const strings: string[] = new Array(n * STRINGS)
    const numbers = new Float64Array(n * NUMBERS)
    for (const [k, i] of s.instruments.entries()) {
      strings[k * STRINGS] = this.#intern(i.state)
      strings[k * STRINGS + 1] = i.reason
      strings[k * STRINGS + 2] = i.mode
      const o = k * NUMBERS
      numbers[o] = toSlot(i.index)
      numbers[o + 1] = toSlot(i.mark)
      numbers[o + 2] = toSlot(i.bid)
      numbers[o + 3] = toSlot(i.ask)
      numbers[o + 4] = i.position
      numbers[o + 5] = i.openOrders
    }
    return {
      at: s.at,
      account: s.account,
      limiter: s.limiter,
      fixed: this.#fixedOf(s.instruments),
      strings,
      numbers,
    }
  }
}

export function unpackSample(p: PackedSample): TimelineSample {
  // Typed arrays and the strings array are filled for every index below their length (pack).
  const num = (i: number): number => p.numbers[i] ?? Number.NaN
  const str = (i: number): string => p.strings[i] ?? ''
  const instruments: TimelineInstrument[] = p.fixed.map((f, k) => {
    const o = k * NUMBERS
    return {
      id: f.id,
      symbol: f.symbol,
      state: str(k * STRINGS),
      reason: str(k * STRINGS + 1),
      mode: str(k * STRINGS + 2),
      index: fromSlot(num(o)),
      mark: fromSlot(num(o + 1)),
      bid: fromSlot(num(o + 2)),
      ask: fromSlot(num(o + 3)),
      position: num(o + 4),
      openOrders: num(o + 5),
      priceDecimals: f.priceDecimals,
      quantityDecimals: f.quantityDecimals,
    }
  })
  return { at: p.at, instruments, account: p.account, limiter: p.limiter }
}
