/**
 * The mock's tickers and best bid/offer, from one market's state: `GET /v1/info/tickers` rows and
 * the `bbo::{iid}` push. The book is synthetic (one deep level each side of the mark, as the
 * matching assumes), so the touch is `bidTicks`/`askTicks`.
 */
import { fromTicks } from '../../decimal.ts'
import type { Ticker } from '../../perps/schemas/tickers.ts'
import type { BboPush } from '../../perps/stream/pushSchemas.ts'
import { askTicks, bidTicks, type Market } from './market/market.ts'
import { rateString } from './money.ts'

/** Displayed size at each side of the synthetic touch, in lots. */
const TOUCH_LOTS = 1_000n

/**
 * Decision: `last_price` is the mark (the mock keeps no public trade tape); `open_interest` is the
 * sum of the long sizes of every account (the caller's `openInterestTicks`).
 */
export function tickerToWire(m: Market, now: number, openInterestTicks: bigint): Ticker {
  const pd = m.spec.priceDecimals
  const mid = (bidTicks(m) + askTicks(m)) / 2n
  const interval = m.fundingIntervalMs
  return {
    instrument_id: m.spec.id,
    symbol: m.spec.symbol,
    index_price: fromTicks(m.indexTicks, pd),
    mark_price: fromTicks(m.markTicks, pd),
    last_price: fromTicks(m.markTicks, pd),
    mid_price: fromTicks(mid, pd),
    open_interest: fromTicks(openInterestTicks, m.spec.quantityDecimals),
    funding_rate: rateString(m.lastFundingRate),
    next_funding: (Math.floor(now / interval) + 1) * interval,
    timestamp: now,
  }
}

export function bboToWire(m: Market): BboPush {
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  const size = fromTicks(TOUCH_LOTS, qd)
  return {
    iid: m.spec.id,
    bp: fromTicks(bidTicks(m), pd),
    bq: size,
    ap: fromTicks(askTicks(m), pd),
    aq: size,
  }
}
