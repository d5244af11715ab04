/**
 * A `MarketDriver` (src/mock/perps/market/replayMarket.ts) over a dataset: each mock step takes the rows of
 * (t − dt, t] per instrument. What the bot reads (index, mark) comes from tickers rows, or from kline
 * closes when there are none, as of t − feed latency; what fills our orders comes from trades rows
 * (tier `trades`), or from klines turned into prints (tier `klines`), through the fill model.
 */
import { pow10, toTicks } from '../../decimal.ts'
import type {
  Market,
  MarketDriver,
  ReplayedStep,
  ReplayFill,
  RestingOrderView,
} from '../../mock/perps/index.ts'
import { ChunkCursor } from '../dataset/cursor.ts'
import { type DataKind, DatasetError, type RowOf } from '../dataset/format.ts'
import type { DatasetStore } from '../dataset/store.ts'
import {
  type BookLevels,
  barPrints,
  type FillModelConfig,
  matchPrint,
  type Print,
  type QueuedOrder,
  queueAheadFromBook,
} from './fillModel.ts'

/** A stretch with no data for an instrument (prices held, nothing fills). */
export interface DataGap {
  symbol: string
  from: number
  to: number
}

/**
 * Rows of one kind of one instrument, oldest first: a dataset's chunks (`ChunkCursor`) or a live
 * public stream's queue (src/paper/liveFeed.ts).
 */
export interface RowSource<K extends DataKind> {
  /** True when this kind has rows at all (a recording without books, a live feed with them). */
  readonly present: boolean
  /** Takes the next row when its time is at most `t`. */
  takeUntil(t: number): RowOf[K] | undefined
}

/** One instrument's row sources and decimals. */
export type RowSources = { readonly [K in DataKind]: RowSource<K> } & { pd: number; qd: number }

interface InstrumentFeed {
  pd: number
  qd: number
  klines: RowSource<'klines'>
  trades: RowSource<'trades'>
  funding: RowSource<'funding'>
  tickers: RowSource<'tickers'>
  bbo: RowSource<'bbo'>
  book: RowSource<'book'>
  /** The recorded book as of the step (exchange side), when the data has book snapshots. */
  levels: BookLevels | undefined
  /** The recorded touch as of the step (exchange side), when the data has a book. */
  touch: { bp: bigint; bq: bigint; ap: bigint; aq: bigint } | undefined
  index: bigint | undefined
  mark: bigint | undefined
  /** Prints of the current step (exchange time). */
  prints: Print[]
  /** Kline closes not yet seen by the bot (feed latency). */
  closes: { at: number; price: bigint }[]
  /** Time of the last row seen (gap detection). */
  lastRowAt: number
  queue: Map<RestingOrder, QueuedOrder<RestingOrder>>
}

export interface ReplayDriverOptions {
  store: DatasetStore
  symbols: readonly string[]
  from: number
  to: number
  model: FillModelConfig
  /** A stretch longer than this without rows is a gap. Default 60 s. */
  gapMs?: number | undefined
}

/** What the fill model reads of a resting order. */
export type RestingOrder = RestingOrderView

export interface ReplayDriver extends MarketDriver {
  /** The first dataset error met during the run (a corrupt file): the market holds from there. */
  readonly failure: DatasetError | undefined
  readonly gaps: readonly DataGap[]
  /** Fills granted by the model so far. */
  readonly modelFills: number
  /** Other traders' prints replayed so far, over every instrument. */
  readonly prints: number
}

export function createReplayDriver(o: ReplayDriverOptions): ReplayDriver {
  const { store, model } = o
  const interval = store.manifest.klineIntervalMs
  const sources = new Map<string, RowSources>()
  for (const symbol of o.symbols) {
    const i = store.manifest.instruments[symbol]
    if (i === undefined) throw new DatasetError(`instrument ${symbol} is not in the dataset`)
    // Klines are stamped at their open: the one closing in the window opened an interval earlier.
    sources.set(symbol, {
      pd: i.priceDecimals,
      qd: i.quantityDecimals,
      klines: new ChunkCursor(store, 'klines', symbol, o.from - interval - model.feedLatencyMs, o.to),
      trades: new ChunkCursor(store, 'trades', symbol, o.from - model.feedLatencyMs, o.to),
      funding: new ChunkCursor(store, 'funding', symbol, o.from, o.to),
      tickers: new ChunkCursor(store, 'tickers', symbol, o.from - model.feedLatencyMs, o.to),
      bbo: new ChunkCursor(store, 'bbo', symbol, o.from - 60_000, o.to),
      book: new ChunkCursor(store, 'book', symbol, o.from - 60_000, o.to),
    })
  }
  return createRowDriver({ sources, model, klineIntervalMs: interval, from: o.from, gapMs: o.gapMs })
}

export interface RowDriverOptions {
  /** By symbol. */
  sources: ReadonlyMap<string, RowSources>
  model: FillModelConfig
  klineIntervalMs: number
  /** Start of the run (gap detection). */
  from: number
  /** A stretch longer than this without rows is a gap. Default 60 s. */
  gapMs?: number | undefined
}

/** The replay's market and fill model over any row sources (a dataset, or the live public stream). */
export function createRowDriver(o: RowDriverOptions): ReplayDriver {
  const { model } = o
  const gapMs = o.gapMs ?? 60_000
  const interval = o.klineIntervalMs
  const feeds = new Map<string, InstrumentFeed>()
  for (const [symbol, src] of o.sources) {
    const feed: InstrumentFeed = {
      ...src,
      levels: undefined,
      touch: undefined,
      index: undefined,
      mark: undefined,
      prints: [],
      closes: [],
      lastRowAt: o.from,
      queue: new Map(),
    }
    if (!feed.klines.present && !feed.tickers.present)
      throw new DatasetError(`the dataset has no klines or tickers for ${symbol} in the window`)
    if (model.tier === 'trades' && !feed.trades.present)
      throw new DatasetError(
        `fill model 'trades' needs trades for ${symbol}; the dataset has none (use --fill-model klines)`,
      )
    feeds.set(symbol, feed)
  }
  const gaps: DataGap[] = []
  let modelFills = 0
  let printsSeen = 0
  let failure: DatasetError | undefined

  function feedOf(m: Market): InstrumentFeed {
    const f = feeds.get(m.spec.symbol)
    if (f === undefined) throw new DatasetError(`instrument ${m.spec.symbol} is not in the replay`)
    return f
  }

  function noteRow(f: InstrumentFeed, symbol: string, t: number): void {
    if (t - f.lastRowAt > gapMs) gaps.push({ symbol, from: f.lastRowAt, to: t })
    f.lastRowAt = t
  }

  function fillsOf<O extends RestingOrder>(
    m: Market,
    resting: readonly O[],
  ): { order: O; qty: bigint; price: bigint }[] {
    const f = feedOf(m)
    const live = new Set<RestingOrder>(resting)
    for (const o of f.queue.keys()) if (!live.has(o)) f.queue.delete(o)
    const queued: QueuedOrder<O>[] = []
    for (const o of resting) {
      let q = f.queue.get(o)
      if (q === undefined || q.price !== o.price) {
        // New or repriced: joins the back of the level once the order reaches the venue.
        q = {
          key: o,
          buy: o.buy,
          price: o.price,
          leaves: o.qty - o.filled,
          activeFrom: (q === undefined ? o.cts : o.uts) + model.orderLatencyMs,
          // A recorded book is deeper than the touch: it knows the queue at prices behind the best.
          queueAhead:
            f.levels !== undefined
              ? queueAheadFromBook(f.levels, o.buy, o.price)
              : queueOnJoin(f.touch, o.buy, o.price),
        }
        f.queue.set(o, q)
      } else {
        q.leaves = o.qty - o.filled
        // Risk-averse: a smaller displayed size at our price caps the queue ahead; growth never moves us.
        const shown =
          f.levels !== undefined ? shownInBook(f.levels, o.buy, o.price) : shownAt(f.touch, o.buy, o.price)
        if (q.queueAhead !== undefined && shown !== undefined && shown < q.queueAhead) q.queueAhead = shown
      }
      queued.push({ ...q, key: o })
    }
    if (queued.length === 0 || f.prints.length === 0) return []
    const out: ReplayFill<O>[] = []
    for (const p of f.prints)
      for (const x of matchPrint(queued, p, model)) out.push({ order: x.key, qty: x.qty, price: x.price })
    // Queue positions advance on the kept entries.
    for (const q of queued) {
      const kept = f.queue.get(q.key)
      if (kept !== undefined) {
        kept.queueAhead = q.queueAhead
        kept.leaves = q.leaves
      }
    }
    modelFills += out.length
    return out
  }

  return {
    get gaps() {
      return gaps
    },
    get modelFills() {
      return modelFills
    },
    get prints() {
      return printsSeen
    },
    get failure() {
      return failure
    },
    step(m: Market, t: number, _dtMs: number): ReplayedStep {
      const f = feedOf(m)
      // A dataset error inside the mock's step must not surface as a venue error the bot retries:
      // it is kept for the caller (which stops the run) and the market holds still.
      if (failure === undefined)
        try {
          return readStep(f, m, t)
        } catch (e) {
          if (!(e instanceof DatasetError)) throw e
          failure = e
        }
      f.prints = []
      const mark = f.mark ?? m.markTicks
      return { indexTicks: f.index ?? mark, markTicks: mark, volumeTicks: 0, trades: 0 }
    },
    fills: (m, resting) => fillsOf(m, resting),
  }

  function readStep(f: InstrumentFeed, m: Market, t: number): ReplayedStep {
    const seen = t - model.feedLatencyMs
    // What the bot reads, as of t − feed latency.
    if (f.tickers.present) {
      for (let r = f.tickers.takeUntil(seen); r !== undefined; r = f.tickers.takeUntil(seen)) {
        f.index = ticksOf(r.i, f.pd)
        f.mark = ticksOf(r.m, f.pd)
      }
    }
    // Exchange side: the touch and the prints of (t − dt, t]; klines close at open + interval.
    for (let r = f.bbo.takeUntil(t); r !== undefined; r = f.bbo.takeUntil(t))
      f.touch = {
        bp: ticksOf(r.bp, f.pd),
        bq: ticksOf(r.bq, f.qd),
        ap: ticksOf(r.ap, f.pd),
        aq: ticksOf(r.aq, f.qd),
      }
    for (let r = f.book.takeUntil(t); r !== undefined; r = f.book.takeUntil(t)) {
      const side = (levels: readonly (readonly [string, string])[]): BookLevels['bids'] =>
        levels.map(([p, q]) => [ticksOf(p, f.pd), ticksOf(q, f.qd)])
      f.levels = { bids: side(r.b), asks: side(r.a) }
    }
    f.prints = []
    let volume = 0n
    let trades = 0
    if (model.tier === 'trades' || !f.klines.present) {
      for (let r = f.trades.takeUntil(t); r !== undefined; r = f.trades.takeUntil(t)) {
        const qty = ticksOf(r.q, f.qd)
        f.prints.push({
          t: r.t,
          price: ticksOf(r.p, f.pd),
          qty,
          buyAggressor: r.s === undefined ? undefined : r.s === 'long',
        })
        volume += qty
        trades++
        noteRow(f, m.spec.symbol, r.t)
      }
    }
    for (let r = f.klines.takeUntil(t - interval); r !== undefined; r = f.klines.takeUntil(t - interval)) {
      const close = ticksOf(r.c, f.pd)
      if (model.tier === 'klines') {
        const v = ticksOf(r.v, f.qd)
        f.prints.push(
          ...barPrints(r.t + interval, ticksOf(r.o, f.pd), ticksOf(r.h, f.pd), ticksOf(r.l, f.pd), close, v),
        )
        volume += v
        trades += r.n
        noteRow(f, m.spec.symbol, r.t + interval)
      }
      if (!f.tickers.present) f.closes.push({ at: r.t + interval, price: close })
    }
    printsSeen += f.prints.length
    // Kline closes reach the bot a feed latency after the bar closed.
    while (f.closes.length > 0 && (f.closes[0]?.at ?? Infinity) <= seen) {
      const c = f.closes.shift()
      f.index = c?.price
      f.mark = c?.price
    }
    let fundingRate: bigint | undefined
    for (let r = f.funding.takeUntil(t); r !== undefined; r = f.funding.takeUntil(t))
      fundingRate = ticksOf(r.r, 8)
    const mark = f.mark ?? m.markTicks
    return {
      indexTicks: f.index ?? mark,
      markTicks: mark,
      volumeTicks: Number(volume),
      trades,
      fundingRate,
    }
  }
}

/**
 * Queue ahead of an order joining at `price`, from the recorded touch: the displayed size when it
 * joins the best price, nothing when it improves on it, and the whole level (undefined) behind the
 * touch or without a book.
 */
export function queueOnJoin(
  touch: { bp: bigint; bq: bigint; ap: bigint; aq: bigint } | undefined,
  buy: boolean,
  price: bigint,
): bigint | undefined {
  if (touch === undefined) return undefined
  const best = buy ? touch.bp : touch.ap
  if (price === best) return buy ? touch.bq : touch.aq
  return (buy ? price > best : price < best) ? 0n : undefined
}

/** The size a recorded book shows at exactly `price` on our side (undefined: not shown). */
function shownInBook(book: BookLevels, buy: boolean, price: bigint): bigint | undefined {
  for (const [p, q] of buy ? book.bids : book.asks) if (p === price) return q
  return undefined
}

function shownAt(
  touch: { bp: bigint; bq: bigint; ap: bigint; aq: bigint } | undefined,
  buy: boolean,
  price: bigint,
): bigint | undefined {
  if (touch === undefined) return undefined
  return buy ? (price === touch.bp ? touch.bq : undefined) : price === touch.ap ? touch.aq : undefined
}

/**
 * A dataset decimal (checked when its chunk was read) in ticks of `d` decimals, half-even beyond
 * them, as `toTicks` gives it. Parsed here rather than through decimal.ts's cache of spellings: a
 * day of rows would evict the bot's own prices from it at every step.
 */
export function ticksOf(s: string, d: number): bigint {
  const dot = s.indexOf('.')
  if (dot < 0) return BigInt(s) * pow10(d)
  const places = s.length - dot - 1
  if (places > d) return toTicks(s, d, 'half-even')
  return BigInt(s.slice(0, dot) + s.slice(dot + 1)) * pow10(d - places)
}
