/**
 * The venue's public stream as the paper venue's market: a `StreamPool` on `tickers::all` and each
 * traded instrument's `bbo::`, `trades::` and `book::` (no credentials, no private socket), each push
 * turned into dataset rows (research/record/pushRows.ts) stamped with its receive time on the paper
 * clock and queued per instrument and kind. The replay's row driver (research/replay/replayDriver.ts)
 * takes them step by step, as it takes a recording's rows: the same fill model, live.
 */
import type { Clock } from '../clock.ts'
import { BotError, describeError } from '../errors.ts'
import { StreamPool } from '../perps/stream/streamPool.ts'
import { seededRandom } from '../random.ts'
import type { DataKind, RowOf } from '../research/dataset/format.ts'
import { rowsOfPush } from '../research/record/pushRows.ts'
import type { RowSource, RowSources } from '../research/replay/replayDriver.ts'

/** The venue's public feed did not answer (exit 1 with this message). */
export class PaperFeedError extends BotError {}

export interface FeedInstrument {
  id: number
  symbol: string
  priceDecimals: number
  quantityDecimals: number
  fundingIntervalMs: number
}

export interface LiveFeedOptions {
  url: string
  instruments: readonly FeedInstrument[]
  /** Stamps receive times (the paper venue's clock). */
  clock: Clock
  /** Runs the sockets' heartbeat and reconnects (wall time in production). */
  streamClock: Clock
  /** How long `ready` waits for a ticker of every instrument. Default 20 s. */
  readyTimeoutMs?: number | undefined
  /** Rows kept per instrument and kind while the venue is not stepped; older ones go first. Default 50,000. */
  maxQueued?: number | undefined
}

export interface LiveFeedHealth {
  state: string
  pushes: number
  /** Rows dropped because nothing took them (the paper venue not stepping). */
  dropped: number
  /** Receive time of the newest push, paper clock. */
  lastPushAt: number | undefined
  lastError: string | undefined
}

export interface LiveFeed {
  /** By symbol: the driver's row sources. */
  readonly sources: ReadonlyMap<string, RowSources>
  /** Resolves once every instrument has had a ticker; rejects with a `PaperFeedError` after the timeout. */
  readonly ready: Promise<void>
  health(): LiveFeedHealth
  /** Hears each instrument's ticker as it arrives (the paper venue pushes the moved price on at once). */
  onTicker(listener: (iid: number) => void): void
  close(): Promise<void>
}

/** A queue of live rows, oldest first (receive order is time order: one clock stamps them). */
export class LiveQueue<K extends DataKind> implements RowSource<K> {
  readonly present = true
  #rows: RowOf[K][] = []
  #head = 0
  readonly #max: number
  readonly #onDrop: () => void
  constructor(max: number, onDrop: () => void) {
    this.#max = max
    this.#onDrop = onDrop
  }
  push(row: RowOf[K]): void {
    if (this.#rows.length - this.#head >= this.#max) {
      this.#head++
      this.#onDrop()
    }
    this.#rows.push(row)
  }
  takeUntil(t: number): RowOf[K] | undefined {
    const r = this.#rows[this.#head]
    if (r === undefined || r.t > t) return undefined
    this.#head++
    if (this.#head > 1_024 && this.#head * 2 > this.#rows.length) {
      this.#rows = this.#rows.slice(this.#head)
      this.#head = 0
    }
    return r
  }
}

/**
 * Funding at each boundary: the venue's published estimate (the ticker's `fr`) as it stood when the
 * window closed, the rate the venue settles at that boundary.
 */
export class FundingAtBoundaries implements RowSource<'funding'> {
  readonly present = true
  #rate: string | undefined
  #rateAt = 0
  /** Boundary → the estimate of the window it closed. */
  readonly #closing = new Map<number, string>()
  #lastBoundary: number
  readonly intervalMs: number
  constructor(intervalMs: number, startedAt: number) {
    this.intervalMs = intervalMs
    this.#lastBoundary = Math.floor(startedAt / intervalMs) * intervalMs
  }
  estimate(r: string | undefined, t: number): void {
    if (r === undefined) return
    const window = Math.floor(t / this.intervalMs)
    if (this.#rate !== undefined && window > Math.floor(this.#rateAt / this.intervalMs))
      this.#closing.set(window * this.intervalMs, this.#rate)
    this.#rate = r
    this.#rateAt = t
  }
  takeUntil(t: number): RowOf['funding'] | undefined {
    const b = Math.floor(t / this.intervalMs) * this.intervalMs
    if (b <= this.#lastBoundary) return undefined
    this.#lastBoundary = b
    const r = this.#closing.get(b) ?? this.#rate
    this.#closing.clear()
    // No estimate seen (the stream never carried one): nothing is settled rather than a made-up rate.
    return r === undefined ? undefined : { t: b, r }
  }
}

export function startLiveFeed(o: LiveFeedOptions): LiveFeed {
  const max = o.maxQueued ?? 50_000
  let dropped = 0
  let pushes = 0
  let lastPushAt: number | undefined
  let lastError: string | undefined
  const onDrop = (): void => {
    dropped++
  }
  const startedAt = o.clock.now()
  const byId = new Map<
    number,
    {
      tickers: LiveQueue<'tickers'>
      bbo: LiveQueue<'bbo'>
      trades: LiveQueue<'trades'>
      book: LiveQueue<'book'>
      funding: FundingAtBoundaries
    }
  >()
  const sources = new Map<string, RowSources>()
  const none: RowSource<'klines'> = { present: false, takeUntil: () => undefined }
  for (const i of o.instruments) {
    const q = {
      tickers: new LiveQueue<'tickers'>(max, onDrop),
      bbo: new LiveQueue<'bbo'>(max, onDrop),
      trades: new LiveQueue<'trades'>(max, onDrop),
      book: new LiveQueue<'book'>(max, onDrop),
      funding: new FundingAtBoundaries(i.fundingIntervalMs, startedAt),
    }
    byId.set(i.id, q)
    sources.set(i.symbol, { pd: i.priceDecimals, qd: i.quantityDecimals, klines: none, ...q })
  }
  const ids = new Set(byId.keys())
  const pool = new StreamPool({
    url: o.url,
    clock: o.streamClock,
    random: seededRandom(0x9a9e7),
    // tickers::all plus three channels an instrument, 100 a socket (the venue's limit).
    maxConnections: Math.ceil((1 + 3 * ids.size) / 100),
    maxMessagesPerMinute: 100,
    acceptInstrument: (iid) => ids.has(iid),
  })
  const ticked = new Set<number>()
  const tickerListeners: ((iid: number) => void)[] = []
  let settle: { resolve: () => void; reject: (e: Error) => void } | undefined
  const ready = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject }
  })
  // A rejection nobody awaited yet must not crash the process; the caller awaits `ready`.
  ready.catch(() => undefined)
  pool.on('error', (e) => {
    lastError = describeError(e)
  })
  pool.on('push', (push) => {
    const t = o.clock.now()
    pushes++
    lastPushAt = t
    for (const r of rowsOfPush(push, t)) {
      const q = byId.get(r.iid)
      if (q === undefined) continue
      switch (r.kind) {
        case 'tickers':
          q.tickers.push(r.row)
          q.funding.estimate(r.row.r, t)
          for (const l of tickerListeners) l(r.iid)
          if (!ticked.has(r.iid)) {
            ticked.add(r.iid)
            if (ticked.size === ids.size) settle?.resolve()
          }
          break
        case 'bbo':
          q.bbo.push(r.row)
          break
        // Prints are stamped on arrival (the venue's own time may run ahead of ours).
        case 'trades':
          q.trades.push({ ...r.row, t })
          break
        case 'book':
          q.book.push(r.row)
          break
      }
    }
  })
  pool.start()
  pool.subscribe([
    'tickers::all',
    ...[...ids].flatMap((id) => [`bbo::${id}`, `trades::${id}`, `book::${id}`]),
  ])
  const timeoutMs = o.readyTimeoutMs ?? 20_000
  const timer = setTimeout(() => {
    const missing = o.instruments.filter((i) => !ticked.has(i.id)).map((i) => i.symbol)
    settle?.reject(
      new PaperFeedError(
        `the venue's public stream at ${o.url} sent no ticker for ${missing.join(', ')} within ${timeoutMs / 1000} s` +
          (lastError === undefined ? '' : ` (${lastError})`) +
          '; check PERPS_WS_URL and that the venue is reachable from here',
      ),
    )
  }, timeoutMs)
  timer.unref()
  void ready.then(
    () => clearTimeout(timer),
    () => undefined,
  )
  return {
    sources,
    ready,
    health: () => ({ state: pool.health().state, pushes, dropped, lastPushAt, lastError }),
    onTicker: (listener) => {
      tickerListeners.push(listener)
    },
    async close() {
      clearTimeout(timer)
      await pool.close()
    },
  }
}
