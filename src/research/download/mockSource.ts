/**
 * History from the embedded mock: the mock's own market (price process, traded volume, funding),
 * simulated on a private virtual clock and read off each step through the mock's market tap. Each
 * UTC day is simulated from its start with a seed derived from the day, so an hour's data does not
 * depend on which window a download asked for (a resumed download gets the same bytes).
 * What the mock's market is: one price per second (the mark; the index beside it), and per second one
 * print of the step's simulated volume at the mark, with no taker side (the mock keeps no tape).
 */
import { fromTicks } from '../../decimal.ts'
import type { InstrumentSpec, Market } from '../../mock/perps/index.ts'
import { createPerpsExchange, type PerpsExchange, rateString } from '../../mock/perps/index.ts'
import type { DatasetInstrument, RowOf } from '../dataset/format.ts'
import { DatasetError, HOUR_MS } from '../dataset/format.ts'
import { type HistoryKind, type HistoryPage, type HistorySource, PAGE_LIMIT } from './source.ts'

const DAY_MS = 86_400_000
/** Instruments of the embedded mock `download` and `record` read by default (one list for both). */
export const DEFAULT_MOCK_INSTRUMENTS = 10
const STEP_MS = 1_000

export function instrumentOfSpec(spec: InstrumentSpec): DatasetInstrument {
  return {
    id: spec.id,
    symbol: spec.symbol,
    baseAsset: spec.baseAsset,
    priceDecimals: spec.priceDecimals,
    quantityDecimals: spec.quantityDecimals,
    spec: { ...spec },
  }
}

/** Rows of one mock market step (the tap's view), shared by the mock source and the recorder. */
export function tapRows(
  m: Market,
  t: number,
  dtMs: number,
): {
  kline: RowOf['klines']
  trade: RowOf['trades'] | undefined
  ticker: RowOf['tickers']
} {
  const pd = m.spec.priceDecimals
  const qd = m.spec.quantityDecimals
  const mark = fromTicks(m.markTicks, pd)
  const vol = Math.round((m.volumeTicksPerSecond * dtMs) / 1000)
  const v = fromTicks(BigInt(vol), qd)
  return {
    kline: { t: t - dtMs, o: mark, h: mark, l: mark, c: mark, v, n: vol > 0 ? 1 : 0 },
    trade: vol > 0 ? { t, p: mark, q: v } : undefined,
    ticker: { t, i: fromTicks(m.indexTicks, pd), m: mark, r: rateString(m.lastFundingRate) },
  }
}

interface DayTape {
  day: number
  rows: Map<string, { [K in HistoryKind]: RowOf[K][] }>
  /** Simulated up to (ms). */
  until: number
  /** Rows before this time were dropped. */
  kept: number
  exchange: PerpsExchange
  clock: { t: number }
}

export class MockHistorySource implements HistorySource {
  readonly name: string
  readonly klineIntervalMs = STEP_MS
  readonly #specs: readonly InstrumentSpec[]
  readonly #seed: number
  #tape: DayTape | undefined

  constructor(specs: readonly InstrumentSpec[], seed: number) {
    this.#specs = specs
    this.#seed = seed
    this.name = `mock:seed=${seed}:instruments=${specs.length}`
  }

  async instruments(): Promise<DatasetInstrument[]> {
    return this.#specs.map(instrumentOfSpec)
  }

  async page<K extends HistoryKind>(
    kind: K,
    symbol: string,
    from: number,
    to: number,
  ): Promise<HistoryPage<K>> {
    if (!this.#specs.some((s) => s.symbol === symbol))
      throw new DatasetError(`the mock has no instrument ${symbol}`)
    const tape = this.#simulate(from, to)
    const all: readonly RowOf[K][] | undefined = tape.rows.get(symbol)?.[kind]
    const rows: RowOf[K][] = []
    const limit = PAGE_LIMIT[kind]
    let next: number | undefined
    for (const r of all ?? []) {
      if (r.t < from) continue
      if (r.t >= to) break
      if (rows.length === limit) {
        next = r.t
        break
      }
      rows.push(r)
    }
    return { rows, next }
  }

  /**
   * Simulates the day of `from` up to `to` (within that day). Rows before `from`'s hour are dropped:
   * the downloader asks hour by hour, so a day never sits in memory whole.
   */
  #simulate(from: number, to: number): DayTape {
    const day = Math.floor(from / DAY_MS) * DAY_MS
    const hour = Math.floor(from / HOUR_MS) * HOUR_MS
    let tape = this.#tape
    if (tape === undefined || tape.day !== day || from < tape.kept) tape = this.#startDay(day)
    if (hour > tape.kept) {
      for (const r of tape.rows.values()) {
        r.klines = r.klines.filter((x) => x.t >= hour)
        r.trades = r.trades.filter((x) => x.t >= hour)
        r.funding = r.funding.filter((x) => x.t >= hour)
      }
      tape.kept = hour
    }
    const end = Math.min(day + DAY_MS, to + STEP_MS)
    if (end > tape.until) {
      tape.clock.t = end
      tape.exchange.advanceTo(end)
      tape.until = end
    }
    this.#tape = tape
    return tape
  }

  #startDay(day: number): DayTape {
    const clock = { t: day }
    const rows: DayTape['rows'] = new Map()
    for (const s of this.#specs) rows.set(s.symbol, { klines: [], trades: [], funding: [] })
    const exchange = createPerpsExchange({
      clock: { now: () => clock.t },
      seed: (this.#seed ^ Math.imul(Math.floor(day / DAY_MS), 0x2c1b3c6d)) >>> 0,
      instruments: this.#specs,
      historyMinutes: 0,
      stepMs: STEP_MS,
      marketTap: (m, t, dtMs) => {
        const r = rows.get(m.spec.symbol)
        if (r === undefined) return
        const x = tapRows(m, t, dtMs)
        r.klines.push(x.kline)
        if (x.trade) r.trades.push(x.trade)
        const interval = m.fundingIntervalMs
        const b = Math.floor(t / interval) * interval
        if (b > t - dtMs) r.funding.push({ t: b, r: rateString(m.lastFundingRate) })
      },
    })
    return { day, rows, until: day, kept: day, exchange, clock }
  }
}
