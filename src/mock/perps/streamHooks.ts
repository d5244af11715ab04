/**
 * What the mock's WebSocket reads from the exchange beyond the REST answers: tickers with open
 * interest, the best bid/offer, and the order and fill hooks (the listeners live on the state; book.ts
 * and matching.ts notify them).
 */
import type { Order } from '../../perps/schemas/orders.ts'
import type { Ticker } from '../../perps/schemas/tickers.ts'
import type { BboPush, FillItem } from '../../perps/stream/pushSchemas.ts'
import type { Market } from './market/market.ts'
import { maxBig } from './money.ts'
import { type ExchangeState, nowOf, type OrderState } from './state.ts'
import { bboToWire, tickerToWire } from './tickerWire.ts'
import { orderWire } from './wire.ts'

/** `GET /v1/info/tickers`; open interest is the sum of the accounts' long sizes. */
export function tickers(s: ExchangeState, instrumentId: number | undefined): Ticker[] {
  const now = nowOf(s)
  return marketsOf(s, instrumentId).map((m) => {
    let oi = 0n
    for (const a of s.accounts.values()) oi += maxBig(0n, a.positions.get(m.spec.id)?.size ?? 0n)
    return tickerToWire(m, now, oi)
  })
}

export function bbo(s: ExchangeState, instrumentId: number | undefined): BboPush[] {
  return marketsOf(s, instrumentId).map(bboToWire)
}

/** Every market, or the one of `instrumentId` by the id map (ids are unique): a move's push asks for one of 1,000. */
function marketsOf(s: ExchangeState, instrumentId: number | undefined): readonly Market[] {
  if (instrumentId === undefined) return s.markets
  const m = s.byId.get(instrumentId)
  return m === undefined ? [] : [m]
}

/** Each fill of an order, as the `fills` push item. */
export type FillListener = (owner: string, fill: FillItem) => void
/** An order created or changed; `order()` renders its state when called. */
export type OrderListener = (owner: string, oid: number, order: () => Order) => void

export function addFillListener(s: ExchangeState, listener: FillListener): () => void {
  s.fillListeners.add(listener)
  return () => s.fillListeners.delete(listener)
}

/** Every trade booked on an account, a liquidation's included (the `fills` push carries order fills only). */
export function addTradeListener(s: ExchangeState, listener: FillListener): () => void {
  s.tradeListeners.add(listener)
  return () => s.tradeListeners.delete(listener)
}

/** `order()` renders the order's state when called (after the change), not at the notification. */
export function addOrderListener(s: ExchangeState, listener: OrderListener): () => void {
  const hook = (o: OrderState): void => listener(o.account.owner, o.oid, () => orderWire(o))
  s.orderListeners.add(hook)
  return () => s.orderListeners.delete(hook)
}
