/** The quote diff tests' fixtures: an instrument, a tolerance, live orders and desired quotes. */
import { diffQuotes, type QuoteDiff, type QuoteDiffTolerance } from '../../../src/bot/quoting/quoteDiff.ts'
import { subDecimal } from '../../../src/decimal.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import type { DesiredQuote } from '../../../src/strategy/strategy.ts'

export const NOW = 1_767_000_000_000
export const INSTRUMENT = { id: 7, priceDecimals: 2, quantityDecimals: 3 }
export const TOL: QuoteDiffTolerance = { priceTicks: 1, priceBps: 0, maxOrderAgeMs: 120_000 }

export const order = (o: Partial<Order> & { oid: number }): Order => {
  const qty = o.qty ?? '1'
  const fill = o.fill ?? '0'
  return {
    iid: 7,
    buy: true,
    p: '99.9',
    tif: 'gtc',
    po: true,
    ro: false,
    cts: NOW - 1_000,
    uts: NOW - 1_000,
    status: 'open',
    ...o,
    qty,
    fill,
    rest: o.rest ?? subDecimal(qty, fill),
  }
}
export const bid = (price: string, qty = '1', reduceOnly?: boolean): DesiredQuote => ({
  side: 'buy',
  price,
  qty,
  ...(reduceOnly ? { reduceOnly } : {}),
})
export const ask = (price: string, qty = '1'): DesiredQuote => ({ side: 'sell', price, qty })
export const diff = (
  desired: DesiredQuote[],
  live: Order[],
  tolerance: Partial<QuoteDiffTolerance> = {},
  now = NOW,
) => diffQuotes({ desired, live, instrument: INSTRUMENT, now, tolerance: { ...TOL, ...tolerance } })
export const none: QuoteDiff = { modify: [], create: [], cancel: [] }
