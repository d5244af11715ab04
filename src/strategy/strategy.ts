/**
 * The strategy contract. A strategy is a pure function from a typed, read-only snapshot of one
 * instrument (market data, position, margin, live orders, risk mode, optional catalogue signal) to the
 * quotes it wants resting. It never performs I/O, never reads the clock (`snapshot.now` is the time)
 * and never draws random numbers, so the same snapshot always gives the same quotes.
 *
 * A strategy module (shipped or dropped into the top-level `strategies/` folder) has a named export
 * `strategy`, built with `defineStrategy`.
 *
 * Every order the bot sends for a quote is post-only: a bid at or above the best ask (an ask at or
 * below the best bid) would be rejected. `snapshot.bbo` is the book's touch as last pushed by the
 * venue's stream, with its receive time; a strategy trusts it only while young (`freshBbo`) and keeps
 * its quotes behind it (`buildLadder` does, given `bbo`). There is no REST read of the book, so without
 * the stream there is no BBO, and a stale or absent BBO must leave the quotes as they would be without it.
 */
import { z } from 'zod'
import type { Kline } from '../perps/schemas/info.ts'
import type { Order } from '../perps/schemas/orders.ts'

// ---------------------------------------------------------------------------------------------------
// Snapshot
// ---------------------------------------------------------------------------------------------------

/** Risk modes under which the actor asks for quotes (`halted` never reaches a strategy). */
export const QUOTE_MODES = ['normal', 'widened', 'reduce-only'] as const
export type QuoteMode = (typeof QUOTE_MODES)[number]

export interface StrategyInstrument {
  readonly id: number
  readonly symbol: string
  /** Prices carry at most this many decimals (and at most 5 significant figures unless integer). */
  readonly priceDecimals: number
  /** Quantities carry at most this many decimals and at most 5 significant figures. */
  readonly quantityDecimals: number
  /** Allowed deviation of an order price from the mark, as a decimal fraction ("0.05" = 5%); "0" = unknown. */
  readonly priceBounds: string
  /** Minimum order notional (price × quantity), decimal string in quote currency. */
  readonly minNotional: string
  /** Maximum resting orders on this instrument; 0 = not limited by the instrument. */
  readonly maxOrderCount: number
  /** Maximum notional of one limit order (every quote is one), decimal string; "0" or absent = not limited. */
  readonly maxLimitNotional?: string | undefined
  /** Maximum notional of one unpriced (market) order; "0" or absent = not limited. */
  readonly maxMarketNotional?: string | undefined
}

export interface StrategyIndex {
  /** Index price, decimal string. */
  readonly price: string
  /** Index timestamp, Unix ms. */
  readonly ts: number
  /** Mark price, decimal string, when the input carries it (tickers). */
  readonly mark?: string | undefined
  /** The venue's estimate of the current funding window's rate (decimal fraction), when the input carries it. */
  readonly fundingRate?: string | undefined
}

/** One side of the book's touch: price and displayed size, decimal strings (both positive). */
export interface StrategyBookLevel {
  readonly price: string
  readonly qty: string
}

/**
 * The best bid and offer as the venue pushes it on `bbo::{iid}` (see `bboForStrategy`). A side is
 * undefined when the book has none (a one-sided or empty book). The touch may be locked or crossed
 * (bid ≥ ask) for a moment; a post-only quote must then stay behind both sides.
 */
export interface StrategyBbo {
  readonly bid: StrategyBookLevel | undefined
  readonly ask: StrategyBookLevel | undefined
}

/** The BBO in a snapshot: the touch and when the bot received it. */
export interface StrategySnapshotBbo extends StrategyBbo {
  /** Receive time, Unix ms on the snapshot's clock: its age is `snapshot.now − receivedAt`. */
  readonly receivedAt: number
}

export interface StrategyStatistics {
  /** 24-hour volume in contracts, decimal string. */
  readonly volume: string
  /** Price 24 hours ago, decimal string. */
  readonly openPrice: string
  /** 1-minute klines `[openTime, open, high, low, close, volume, trades]`, oldest first. */
  readonly klines: readonly Kline[]
}

export interface StrategyPosition {
  /** Signed size in contracts (negative = short), decimal string. */
  readonly size: string
  readonly entryPrice: string
  readonly liquidationPrice: string
}

export interface StrategyMargin {
  /** Total account value (equity), decimal string. */
  readonly accountValue: string
  readonly initialMargin: string
  readonly maintenanceMargin: string
  /**
   * Total maintenance margin ÷ total account value (see `computeMarginRatio`): 0 with no margin in
   * use, 1 at the liquidation threshold (equity = maintenance margin), +∞ when equity ≤ 0 with margin
   * in use. A signal only (float).
   */
  readonly marginRatio: number
  readonly inLiquidation: boolean
}

/** A catalogue market reduced to the numbers a strategy can use. Prices are probabilities in [0, 1]. */
export interface CatalogueSignalMarket {
  readonly slug?: string | undefined
  readonly question?: string | undefined
  /** Outcome prices in outcome order (the first is YES for binary markets). */
  readonly outcomePrices?: readonly number[] | undefined
  readonly bestBid?: number | undefined
  readonly bestAsk?: number | undefined
  readonly lastTradePrice?: number | undefined
  readonly volume24hr?: number | undefined
}

/** A catalogue event reduced for strategies (see `catalogueEventToSignal` for the mapping). */
export interface CatalogueSignalEvent {
  readonly id: string
  readonly slug?: string | undefined
  readonly title?: string | undefined
  readonly volume24hr?: number | undefined
  readonly markets: readonly CatalogueSignalMarket[]
}

export interface StrategyCatalogue {
  /** Events as returned for the strategy's `CatalogueQuery`, in the server's order. */
  readonly events: readonly CatalogueSignalEvent[]
  /** When the bot fetched them, Unix ms (compare with `snapshot.now` for staleness). */
  readonly fetchedAt: number
}

/** Everything a strategy may look at. Pure data: no functions, no clients, no clock. */
export interface StrategySnapshot {
  /** The decision time, Unix ms. Strategies use this instead of `Date.now()`. */
  readonly now: number
  readonly instrument: StrategyInstrument
  readonly index: StrategyIndex | undefined
  readonly statistics: StrategyStatistics | undefined
  /** Undefined when flat (no position on this instrument). */
  readonly position: StrategyPosition | undefined
  readonly margin: StrategyMargin
  /** This instrument's live orders. */
  readonly openOrders: readonly Order[]
  readonly mode: QuoteMode
  /** Present only when the strategy declared a `CatalogueQuery` and a fetch has succeeded. */
  readonly catalogue?: StrategyCatalogue | undefined
  /**
   * The last best bid and offer the stream delivered, however old (absent before the first push or
   * without the stream): check its age (`freshBbo`) before trusting it.
   */
  readonly bbo?: StrategySnapshotBbo | undefined
}

// ---------------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------------

export type QuoteSide = 'buy' | 'sell'

/** One order the strategy wants resting: decimal strings valid for the instrument (see `validateQuotes`). */
export interface DesiredQuote {
  readonly side: QuoteSide
  readonly price: string
  /** Resting quantity wanted, decimal string. */
  readonly qty: string
  readonly reduceOnly?: boolean | undefined
  /** Free label for logs (e.g. `bid-0`); never sent to the venue. */
  readonly tag?: string | undefined
  /** Client order id (32 lowercase hex) for the order created for this quote; unique per order. */
  readonly coid?: string | undefined
}

// ---------------------------------------------------------------------------------------------------
// Catalogue query
// ---------------------------------------------------------------------------------------------------

/** The subset of listEventsKeyset params a strategy may ask for, plus how often to refresh. */
export const CatalogueQuerySchema = z.strictObject({
  tagSlug: z.string().min(1).optional(),
  titleSearch: z.string().min(1).optional(),
  slugs: z.array(z.string().min(1)).min(1).readonly().optional(),
  ids: z.array(z.string().regex(/^\d+$/, 'must be a non-negative integer id')).min(1).readonly().optional(),
  closed: z.boolean().optional(),
  /** camelCase Event field names (e.g. `volume24hr`). */
  order: z.array(z.string().min(1)).min(1).readonly().optional(),
  ascending: z.boolean().optional(),
  limit: z.number().int().min(1).max(500).optional(),
  /** Refresh period, ms (at least 1 s: the catalogue is a slow signal). */
  refreshMs: z.number().int().min(1_000),
})

export interface CatalogueQuery {
  readonly tagSlug?: string | undefined
  readonly titleSearch?: string | undefined
  readonly slugs?: readonly string[] | undefined
  readonly ids?: readonly string[] | undefined
  readonly closed?: boolean | undefined
  readonly order?: readonly string[] | undefined
  readonly ascending?: boolean | undefined
  readonly limit?: number | undefined
  readonly refreshMs: number
}

// ---------------------------------------------------------------------------------------------------
// Strategy
// ---------------------------------------------------------------------------------------------------

/**
 * Inputs a strategy may leave out of its answer (see `Strategy.reads`). `equity` is the margin numbers
 * (account value, initial and maintenance margin, margin ratio, a position's liquidation price: a
 * change of these alone asks only a strategy that reads it again); `inLiquidation` halts the instrument
 * whatever a strategy reads. The others are the snapshot fields of the same name.
 */
export const OPTIONAL_INPUTS = ['equity', 'statistics', 'bbo', 'catalogue'] as const
export type OptionalInput = (typeof OPTIONAL_INPUTS)[number]

/**
 * A strategy plug-in. `P` is the parsed params type (the output of `paramsSchema`). Methods use method
 * syntax so a `Strategy<P>` is usable wherever a `Strategy<unknown>` is stored.
 */
export interface Strategy<P = unknown> {
  /** Unique registry name, kebab-case by convention (`index-peg`). */
  readonly name: string
  readonly description: string
  /** Parses raw config params; defaults live here. Must produce a `positionCap` decimal string. */
  readonly paramsSchema: z.ZodType<P>
  /** Desired quotes for this snapshot; [] to quote nothing. Pure and deterministic. */
  quote(snapshot: StrategySnapshot, params: P): DesiredQuote[]
  /** The catalogue data this strategy wants in `snapshot.catalogue`; undefined or absent = none. */
  catalogue?(params: P): CatalogueQuery | undefined
  /**
   * The first time after `snapshot.now` at which `quote` could answer differently for the same inputs
   * (an age limit it applies runs out; see `revisit.ts`); undefined when time alone never changes it.
   * The bot asks again then, or sooner when an input changes. Absent: asked again every second. The
   * conformance kit checks that quotes stay the same until then.
   */
  revisitAt?(snapshot: StrategySnapshot, params: P): number | undefined
  /**
   * The optional inputs whose change can change `quote`'s answer; the index, the position, the open
   * orders, the mode and time always can. A change to an input not listed plans nothing: the account
   * value moves with every mark, so a strategy that does not size by it saves a plan per instrument at
   * each portfolio update. Absent: every input. The conformance kit checks that quotes stay the same
   * when an unlisted input changes.
   */
  readonly reads?: readonly OptionalInput[]
  /**
   * The most orders `quote` asks to rest at once with these params (a ladder of `levels`: 2 × levels).
   * The bot adds these up against the venue's open-order cap at start (`perpbot doctor`, the live
   * preflight) and refuses a plan with more. Absent: not known beforehand.
   */
  maxOrders?(params: P): number
}

/** Identity helper that infers `P` from `paramsSchema` so `quote` gets typed params. */
export function defineStrategy<P>(strategy: Strategy<P>): Strategy<P> {
  return strategy
}

/**
 * Margin ratio = maintenance margin ÷ account value, as a float signal: 0 when no maintenance margin
 * is in use, +∞ when the account value is ≤ 0 with margin in use; ≥ 1 means liquidation territory.
 */
export function computeMarginRatio(accountValue: string, maintenanceMargin: string): number {
  const mm = Number(maintenanceMargin)
  const av = Number(accountValue)
  if (!(mm > 0)) return 0
  if (!(av > 0)) return Number.POSITIVE_INFINITY
  return mm / av
}
