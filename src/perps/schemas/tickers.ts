/** `GET /v1/info/tickers`: every instrument's index, mark, last, mid, open interest and funding at once. */
import { z } from 'zod'
import { DecimalString, InstrumentId, OptionalDecimal, TimestampMs } from './common.ts'
import { tolerantArray } from './tolerantArray.ts'

/**
 * One ticker row, the REST long names (the `tickers::*` push carries the same with terse keys). Only
 * the index is required: an instrument quotes from it; a new or illiquid instrument's blank mark,
 * last, mid, open interest or funding estimate is unknown (absent), and the row is kept.
 */
export const Ticker = z.looseObject({
  instrument_id: InstrumentId,
  symbol: z.string(),
  index_price: DecimalString,
  mark_price: OptionalDecimal,
  last_price: OptionalDecimal,
  mid_price: OptionalDecimal,
  open_interest: OptionalDecimal,
  /** Estimated rate of the current funding window. */
  funding_rate: OptionalDecimal,
  /** Next funding settlement, ms. */
  next_funding: TimestampMs,
  timestamp: TimestampMs.optional(),
})
export type Ticker = z.infer<typeof Ticker>
export const Tickers = tolerantArray(Ticker)
