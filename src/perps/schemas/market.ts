/**
 * Public market history reads (bindings `perps/market.ts`): the order book, candles, public trades
 * and funding-rate history. Rows we cannot read are dropped and reported (tolerantArray), not the read.
 */
import { z } from 'zod'
import { DecimalString, InstrumentId, PendingTxHash, TimestampMs } from './common.ts'
import { Kline } from './info.ts'
import { tolerantArray } from './tolerantArray.ts'

/** `[price, quantity]`, both decimal strings. */
export const BookLevel = z.tuple([DecimalString, DecimalString])
export type BookLevel = z.infer<typeof BookLevel>

/** `GET /v1/info/book`: both sides, best first, with the venue's sequence number. */
export const Book = z.looseObject({
  instrument_id: InstrumentId,
  bids: tolerantArray(BookLevel),
  asks: tolerantArray(BookLevel),
  timestamp: TimestampMs,
  sequence: z.number().int().nonnegative(),
})
export type Book = z.infer<typeof Book>

/** `GET /v1/info/klines`: candles oldest first, at most 1,000 per page. */
export const KlinesPage = z.looseObject({ data: tolerantArray(Kline), more: z.boolean() })
export type KlinesPage = z.infer<typeof KlinesPage>

export const KLINE_INTERVALS_REST = ['1s', '1m', '5m', '15m', '1h', '4h', '1d', '1w'] as const
export type KlineIntervalRest = (typeof KLINE_INTERVALS_REST)[number]

/** A public trade: the taker's side. */
export const PublicTrade = z.looseObject({
  trade_id: z.number().int().nonnegative(),
  instrument_id: InstrumentId,
  side: z.string(),
  price: DecimalString,
  quantity: DecimalString,
  timestamp: TimestampMs,
  /** `0x` while unknown (`''`, null, absent on the wire). */
  hash: PendingTxHash,
})
export type PublicTrade = z.infer<typeof PublicTrade>
/** `GET /v1/info/trades`: newest first, at most 100 per page. */
export const TradesPage = z.looseObject({ data: tolerantArray(PublicTrade), more: z.boolean() })
export type TradesPage = z.infer<typeof TradesPage>

export const FundingRate = z.looseObject({ funding_rate: DecimalString, timestamp: TimestampMs })
export type FundingRate = z.infer<typeof FundingRate>
/** `GET /v1/info/funding`: the instrument's settled funding rates, newest first, at most 100 per page. */
export const FundingRatesPage = z.looseObject({ data: tolerantArray(FundingRate), more: z.boolean() })
export type FundingRatesPage = z.infer<typeof FundingRatesPage>
