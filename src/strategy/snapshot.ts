/**
 * Mapping from wire resources (instruments, index, statistics, best bid/offer, portfolio, catalogue
 * events) to the pieces of a `StrategySnapshot`, so every actor builds snapshots the same way.
 */
import { compareDecimal } from '../decimal.ts'
import type { Portfolio } from '../perps/schemas/account.ts'
import type { Index, Instrument, StatisticsItem } from '../perps/schemas/info.ts'
import type { BboPush } from '../perps/stream/pushSchemas.ts'
import {
  type CatalogueSignalEvent,
  type CatalogueSignalMarket,
  computeMarginRatio,
  type StrategyBbo,
  type StrategyBookLevel,
  type StrategyIndex,
  type StrategyInstrument,
  type StrategyMargin,
  type StrategyPosition,
  type StrategyStatistics,
} from './strategy.ts'

export function instrumentForStrategy(i: Instrument): StrategyInstrument {
  return {
    id: i.instrument_id,
    symbol: i.symbol,
    priceDecimals: i.price_decimals,
    quantityDecimals: i.quantity_decimals,
    priceBounds: i.price_bounds,
    minNotional: i.min_notional,
    maxOrderCount: i.max_order_count,
    maxLimitNotional: i.max_limit_notional,
    maxMarketNotional: i.max_market_notional,
  }
}

export function indexForStrategy(index: Index): StrategyIndex {
  return { price: index.index_price, ts: index.ts }
}

export function statisticsForStrategy(item: StatisticsItem): StrategyStatistics {
  return { volume: item.volume, openPrice: item.open_price, klines: item.klines }
}

/** A side with a zero (or negative) price or size is an empty side: the book has no such orders. */
function bookLevel(price: string, qty: string): StrategyBookLevel | undefined {
  return compareDecimal(price, '0') > 0 && compareDecimal(qty, '0') > 0 ? { price, qty } : undefined
}

/** The touch of a `bbo::{iid}` push; its receive time travels beside it (the `BBO` event). */
export function bboForStrategy(push: BboPush): StrategyBbo {
  return { bid: bookLevel(push.bp, push.bq), ask: bookLevel(push.ap, push.aq) }
}

/** This instrument's position, or undefined when flat or absent. */
export function positionForStrategy(
  portfolio: Portfolio,
  instrumentId: number,
): StrategyPosition | undefined {
  const p = portfolio.positions.find((x) => x.instrument_id === instrumentId)
  if (p === undefined || compareDecimal(p.size, '0') === 0) return undefined
  return { size: p.size, entryPrice: p.entry_price, liquidationPrice: p.liquidation_price }
}

export function marginForStrategy(portfolio: Portfolio): StrategyMargin {
  const m = portfolio.margin
  return {
    accountValue: m.total_account_value,
    initialMargin: m.total_initial_margin,
    maintenanceMargin: m.total_maintenance_margin,
    marginRatio: computeMarginRatio(m.total_account_value, m.total_maintenance_margin),
    inLiquidation: portfolio.in_liquidation,
  }
}

/** The catalogue fields a signal event is read from (the real `Event` is assignable to this). */
export interface CatalogueEventLike {
  id: string
  slug?: string | null | undefined
  title?: string | null | undefined
  volume24hr?: number | null | undefined
  markets?:
    | readonly {
        slug?: string | null | undefined
        question?: string | null | undefined
        /** JSON-encoded array of decimal strings on the wire, e.g. `"[\"0.62\",\"0.38\"]"`. */
        outcomePrices?: string | null | undefined
        bestBid?: number | null | undefined
        bestAsk?: number | null | undefined
        lastTradePrice?: number | null | undefined
        volume24hr?: number | null | undefined
      }[]
    | null
    | undefined
}

/** Parses the catalogue's JSON-encoded outcome prices; undefined when absent or malformed. */
export function parseOutcomePrices(raw: string | null | undefined): number[] | undefined {
  if (raw === null || raw === undefined || raw === '') return undefined
  try {
    const v: unknown = JSON.parse(raw)
    if (!Array.isArray(v)) return undefined
    const out = v.map((x) => (typeof x === 'string' || typeof x === 'number' ? Number(x) : Number.NaN))
    return out.every(Number.isFinite) ? out : undefined
  } catch {
    return undefined
  }
}

const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v)

export function catalogueEventToSignal(e: CatalogueEventLike): CatalogueSignalEvent {
  const markets: CatalogueSignalMarket[] = (e.markets ?? []).map((m) => ({
    slug: opt(m.slug),
    question: opt(m.question),
    outcomePrices: parseOutcomePrices(m.outcomePrices),
    bestBid: opt(m.bestBid),
    bestAsk: opt(m.bestAsk),
    lastTradePrice: opt(m.lastTradePrice),
    volume24hr: opt(m.volume24hr),
  }))
  return { id: e.id, slug: opt(e.slug), title: opt(e.title), volume24hr: opt(e.volume24hr), markets }
}
