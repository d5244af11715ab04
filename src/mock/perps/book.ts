/**
 * The resting-order book and trade booking: which orders rest, how an order leaves the book, and
 * how a fill lands on an account (position, realized PnL, fees). Shared by matching, margin and
 * liquidation.
 */

import { fromTicks } from '../../decimal.ts'
import { applyFill, entryPriceString, newPosition, scaledToMicros } from './account/positions.ts'
import type { Market } from './market/market.ts'
import { abs, applyRate, notionalMicros, usd } from './money.ts'
import type { Account, ExchangeState, FillRow, OrderState, OrderStatus } from './state.ts'

/** Tells the order listeners (the mock's WebSocket) that `order` was created or changed. */
export function touched(s: ExchangeState, order: OrderState): void {
  for (const listener of s.orderListeners) listener(order)
}

export function rest(s: ExchangeState, order: OrderState): void {
  order.account.open.set(order.oid, order)
  let set = s.resting.get(order.iid)
  if (set === undefined) {
    set = new Set()
    s.resting.set(order.iid, set)
  }
  set.add(order)
}

export function unrest(s: ExchangeState, order: OrderState): void {
  order.account.open.delete(order.oid)
  s.resting.get(order.iid)?.delete(order)
}

/** Takes the order off the book with its final status, then tells the listeners (they read it at once). */
export function closeOrder(s: ExchangeState, order: OrderState, status: OrderStatus, t: number): void {
  unrest(s, order)
  order.status = status
  order.uts = t
  touched(s, order)
}

/**
 * Keeps the order for `GET /v1/account/orders`, dropping the oldest closed ones past the limit. The
 * caller tells the listeners once the order has its status (placeOrder).
 */
export function remember(s: ExchangeState, account: Account, order: OrderState): void {
  account.orders.set(order.oid, order)
  if (account.orders.size <= s.o.orderHistoryLimit) return
  for (const [oid, o] of account.orders) {
    if (account.orders.size <= s.o.orderHistoryLimit) break
    if (!account.open.has(oid) && o !== order) account.orders.delete(oid)
  }
}

/** How much of a reduce-only order can still reduce the position. */
export function reducible(order: OrderState): bigint {
  const pos = order.account.positions.get(order.iid)
  if (pos === undefined || pos.size === 0n || pos.size > 0n === order.buy) return 0n
  return abs(pos.size)
}

export function fill(
  s: ExchangeState,
  order: OrderState,
  m: Market,
  qty: bigint,
  price: bigint,
  taker: boolean,
  t: number,
): void {
  // The caller tells the order listeners once the order has its new status (closeOrder or `touched`).
  order.filled += qty
  const kind = taker ? 'taker' : 'maker'
  const { row } = trade(s, order.account, m, order.buy ? qty : -qty, price, kind, t, order)
  // The `fills` push carries order fills only (docs/decisions.md); a copy, so no listener can
  // change the row GET /v1/account/fills serves.
  for (const listener of s.fillListeners) listener(order.account.owner, { ...row })
}

/**
 * Books a trade on the account: position, realized PnL, fees (and the liquidation fee), and records
 * its fill row; returns the realized PnL and fee (USD micros) and that row.
 */
export function trade(
  s: ExchangeState,
  account: Account,
  m: Market,
  signedQty: bigint,
  price: bigint,
  kind: 'taker' | 'maker' | 'liquidation',
  t: number,
  order?: OrderState | undefined,
): { realized: bigint; fee: bigint; row: FillRow } {
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  let pos = account.positions.get(m.spec.id)
  if (pos === undefined) {
    pos = newPosition(m.spec.id)
    account.positions.set(m.spec.id, pos)
  }
  // The fill reports the position before it (the bindings' previous_size / previous_entry_price).
  const previousSize = fromTicks(pos.size, qd)
  const previousEntry = pos.size === 0n ? '0' : entryPriceString(pos, pd)
  const realized = scaledToMicros(applyFill(pos, signedQty, price), qd, pd)
  if (pos.size === 0n) account.positions.delete(m.spec.id)
  const notional = notionalMicros(signedQty, qd, price, pd)
  const tier = feeTier(s, account)
  let fee = applyRate(notional, kind === 'maker' ? tier.maker : tier.taker)
  if (kind === 'liquidation') fee += applyRate(notional, m.liquidationFeeUnits)
  account.collateral += realized - fee
  account.volumeMicros += notional
  account.feesMicros += fee
  m.klines.addVolume(Number(abs(signedQty)), 1)
  s.fills++
  s.lastTradeAt = t
  const row: FillRow = {
    tid: s.fills,
    // A liquidation trade has no order of ours: oid 0.
    oid: order?.oid ?? 0,
    iid: m.spec.id,
    side: signedQty > 0n ? 'long' : 'short',
    p: fromTicks(price, pd),
    qty: fromTicks(abs(signedQty), qd),
    taker: kind !== 'maker',
    fee: usd(fee),
    fea: s.o.collateral.asset,
    psz: previousSize,
    pep: previousEntry,
    pnl: usd(realized),
    liq: kind === 'liquidation',
    ts: t,
    ...(order?.coid !== undefined ? { coid: order.coid } : {}),
  }
  account.fills.push(row)
  if (account.fills.length > s.o.fundingHistoryLimit)
    account.fills.splice(0, account.fills.length - s.o.fundingHistoryLimit)
  for (const listener of s.tradeListeners) listener(account.owner, { ...row })
  return { realized, fee, row }
}

/** Decision: the fee tier follows the account's cumulative volume (the mock keeps no 30-day window). */
function feeTier(s: ExchangeState, account: Account): { taker: bigint; maker: bigint } {
  let tier = s.o.feeTiers[0] ?? { minVolumeMicros: 0n, taker: 0n, maker: 0n }
  for (const t of s.o.feeTiers) if (account.volumeMicros >= t.minVolumeMicros) tier = t
  return tier
}
