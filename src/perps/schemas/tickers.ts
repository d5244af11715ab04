/** `GET /v1/info/tickers`: every instrument's index, mark, last, mid, open interest and funding at once. */
import { z } from 'zod'
import { DecimalString, InstrumentId, TimestampMs } from './common.ts'
import { tolerantArray } from './tolerantArray.ts'

/** One ticker row, the REST long names (the `tickers::*` push carries the same with terse keys). */
export const Ticker = z.looseObject({
  instrument_id: InstrumentId,
  symbol: z.string(),
  index_price: DecimalString,
  mark_price: DecimalString,
  last_price: DecimalString,
  mid_price: DecimalString,
  open_interest: DecimalString,
  /** Estimated rate of the current funding window. */
  funding_rate: DecimalString,
  /** Next funding settlement, ms. */
  next_funding: TimestampMs,
  timestamp: TimestampMs.optional(),
})
export type Ticker = z.infer<typeof Ticker>
export const Tickers = tolerantArray(Ticker)
