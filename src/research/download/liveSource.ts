/**
 * History from the live venue over the perps client's public reads (`getInstruments`, `getKlines`,
 * `getTrades`, `getFundingHistory`), mapped onto the dataset rows. Every request passes the client's
 * request gate: the download command gives it the bot's weight limiter with its own budget, so pages
 * are spent within the venue's request weight (5 a klines page, 10 a trades or funding page).
 *
 * Paging (protocol notes c.1; windows inclusive at both ends, so `[from, to)` is asked as
 * `[from, to − 1]`):
 * - klines come oldest first, at most 1,000 a page, from a required start: one call is one page, the
 *   next starts an interval after the last candle (a start inside a candle returns that candle again);
 * - trades and funding come newest first, at most 100 a page, walked backwards from the window's end
 *   with the client's history walker (`historyPaging.ts`: inclusive end cursor, rows seen at the
 *   cursor dropped by id); one call returns the whole window, oldest first (a window is one hour of
 *   one instrument, which the chunk holds whole anyway).
 * These reads are public: no credentials are needed or sent.
 */

import { BotError } from '../../errors.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import { walkHistoryBackwards } from '../../perps/client/historyPaging.ts'
import type { KlineIntervalRest } from '../../perps/schemas/market.ts'
import type { DatasetInstrument, RowOf } from '../dataset/format.ts'
import { DatasetError } from '../dataset/format.ts'
import { instrumentOfVenue } from '../record/venueInstruments.ts'
import type { HistoryKind, HistoryPage, HistorySource } from './source.ts'

/** What the live source reads of the perps client (a narrow joint: tests and the CLI pass the real one). */
export type HistoryClient = Pick<
  PerpsClient,
  'getInstruments' | 'getKlines' | 'getTrades' | 'getFundingHistory'
>

export const LIVE_KLINE_INTERVALS = {
  '1s': 1_000,
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
} as const satisfies Partial<Record<KlineIntervalRest, number>>
export type LiveKlineInterval = keyof typeof LIVE_KLINE_INTERVALS

export function isLiveKlineInterval(v: string): v is LiveKlineInterval {
  return Object.hasOwn(LIVE_KLINE_INTERVALS, v)
}

export interface LiveSourceOptions {
  client: HistoryClient
  /** The venue's address as the user gave it (named in the manifest and in errors). */
  baseUrl: string
  interval: LiveKlineInterval
  signal?: AbortSignal | undefined
}

/** A venue read failed mid-download: what was saved stays, a rerun resumes from the missing chunks. */
export class VenueReadError extends DatasetError {
  override name = 'VenueReadError'
}

export class LiveHistorySource implements HistorySource {
  readonly name: string
  readonly klineIntervalMs: number
  readonly #o: LiveSourceOptions
  /** The instrument list, read once per source. */
  #list: Promise<DatasetInstrument[]> | undefined

  constructor(o: LiveSourceOptions) {
    this.#o = o
    this.klineIntervalMs = LIVE_KLINE_INTERVALS[o.interval]
    // The interval is part of the source: a folder holds klines of one interval.
    this.name = `live:${o.baseUrl}:klines=${o.interval}`
  }

  instruments(): Promise<DatasetInstrument[]> {
    this.#list ??= this.#read('the instrument list', () =>
      this.#o.client.getInstruments(undefined, { signal: this.#o.signal }),
    ).then((rows) => rows.map(instrumentOfVenue))
    // A failed read is not kept: the next call asks again.
    this.#list.catch(() => {
      this.#list = undefined
    })
    return this.#list
  }

  async page<K extends HistoryKind>(
    kind: K,
    symbol: string,
    from: number,
    to: number,
  ): Promise<HistoryPage<K>> {
    const instrumentId = (await this.instruments()).find((i) => i.symbol === symbol)?.id
    if (instrumentId === undefined) throw new DatasetError(`the venue has no instrument ${symbol}`)
    const what = `${kind} of ${symbol} from ${new Date(from).toISOString()}`
    // One reader per kind, indexed by the generic kind (TypeScript correlates the result with K).
    const readers: { [X in HistoryKind]: () => Promise<HistoryPage<X>> } = {
      klines: () => this.#klines(instrumentId, from, to, what),
      trades: () => this.#trades(instrumentId, from, to, what),
      funding: () => this.#funding(instrumentId, from, to, what),
    }
    return readers[kind]()
  }

  async #klines(
    instrumentId: number,
    from: number,
    to: number,
    what: string,
  ): Promise<HistoryPage<'klines'>> {
    const step = this.klineIntervalMs
    const res = await this.#read(what, () =>
      this.#o.client.getKlines(
        { instrumentId, interval: this.#o.interval, startTimestamp: from, endTimestamp: to - 1 },
        { signal: this.#o.signal },
      ),
    )
    const rows: RowOf['klines'][] = res.data
      .filter((k) => k[0] >= from && k[0] < to)
      .map(([t, o, h, l, c, v, n]) => ({ t, o, h, l, c, v, n }))
    const last = rows.at(-1)
    // A full page is read as "more" even if the flag says otherwise: a missed page is a silent gap.
    const more = res.more || res.data.length >= KLINES_PAGE
    const next = more && last !== undefined && last.t + step < to ? last.t + step : undefined
    return { rows, next }
  }

  async #trades(
    instrumentId: number,
    from: number,
    to: number,
    what: string,
  ): Promise<HistoryPage<'trades'>> {
    const rows: (RowOf['trades'] & { id: number })[] = []
    const walk = walkHistoryBackwards({
      path: '/v1/info/trades',
      window: { startTimestamp: from, endTimestamp: to - 1 },
      fetchPage: (w) => this.#o.client.getTrades({ instrumentId, ...w }, { signal: this.#o.signal }),
      timestampOf: (r) => r.timestamp,
      keyOf: (r) => String(r.trade_id),
      options: { signal: this.#o.signal, maxPages: MAX_WALK_PAGES },
    })
    await this.#read(what, async () => {
      for await (const p of walk)
        for (const r of p.data)
          if (r.timestamp >= from && r.timestamp < to)
            rows.push({
              id: r.trade_id,
              t: r.timestamp,
              p: r.price,
              q: r.quantity,
              ...(r.side === 'long' || r.side === 'short' ? { s: r.side } : {}),
            })
    })
    rows.sort((a, b) => a.t - b.t || a.id - b.id)
    return { rows: rows.map(({ id: _, ...r }) => r), next: undefined }
  }

  async #funding(
    instrumentId: number,
    from: number,
    to: number,
    what: string,
  ): Promise<HistoryPage<'funding'>> {
    const rows: RowOf['funding'][] = []
    const walk = walkHistoryBackwards({
      path: '/v1/info/funding',
      window: { startTimestamp: from, endTimestamp: to - 1 },
      fetchPage: (w) => this.#o.client.getFundingHistory({ instrumentId, ...w }, { signal: this.#o.signal }),
      timestampOf: (r) => r.timestamp,
      // One instrument settles once per timestamp.
      keyOf: (r) => String(r.timestamp),
      options: { signal: this.#o.signal, maxPages: MAX_WALK_PAGES },
    })
    await this.#read(what, async () => {
      for await (const p of walk)
        for (const r of p.data)
          if (r.timestamp >= from && r.timestamp < to) rows.push({ t: r.timestamp, r: r.funding_rate })
    })
    rows.sort((a, b) => a.t - b.t)
    return { rows, next: undefined }
  }

  /** Runs one read; a client error becomes a `VenueReadError` naming what was being read. */
  async #read<T>(what: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f()
    } catch (e) {
      if (e instanceof BotError)
        throw new VenueReadError(`${this.#o.baseUrl} failed while reading ${what}: ${e.message}`, {
          cause: e,
        })
      throw e
    }
  }
}

/**
 * Bound on backwards pages per hour window: 100 rows a page, so 2,000 pages is 200,000 prints in one
 * hour of one instrument; a walk that long is stopped (the walker ends) rather than run away.
 */
const MAX_WALK_PAGES = 2_000
/** Candles per klines page (protocol notes c.1). */
const KLINES_PAGE = 1_000
