/**
 * Matching: placing, modifying and cancelling orders, and filling resting orders as the mark moves.
 * The mock's book is synthetic (deep at its touch around the mark), so a crossing order takes at the
 * touch at once and a resting order fills by a share of each step's volume. Functions over the plain
 * state, with no signatures involved (the command gate runs before them).
 */
import { toTicks } from '../../decimal.ts'
import type { CancelResult, CreateOrderAck, ModifyResult } from '../../perps/schemas/orders.ts'
import type { CreateOrderBody, ModifyOrderInput } from '../../perps/signing/ops.ts'
import { exceedsMargin } from './account/margin.ts'
import { closeOrder, fill, reducible, remember, rest, touched, unrest } from './book.ts'
import { MockRejection, TEXT } from './errors.ts'
import { askTicks, bidTicks, type Market, withinBounds } from './market/market.ts'
import { maxBig, minBig, notionalMicros } from './money.ts'
import { checkClientOrderId, checkPrice, checkQuantity } from './orderRules.ts'
import { type Account, type ExchangeState, goneCode, marketOf, type OrderState } from './state.ts'
import { orderWire } from './wire.ts'

/**
 * Decision: the resting-order caps (per instrument `max_order_count`, per account
 * `accountOpenOrderLimit`) are checked for the whole batch up front, counting every GTC order as
 * potentially resting; breaching either is a request-level 429 `open_orders_limit` (no Retry-After).
 * @throws {@link MockRejection} 429 `open_orders_limit`.
 */
export function checkOpenOrderCap(
  s: ExchangeState,
  account: Account,
  orders: readonly CreateOrderBody[],
): void {
  const perInstrument = new Map<number, number>()
  let total = 0
  for (const o of orders) {
    if ((o.tif ?? 'gtc') !== 'gtc' || o.p === undefined || !s.byId.has(o.iid)) continue
    perInstrument.set(o.iid, (perInstrument.get(o.iid) ?? 0) + 1)
    total++
  }
  if (total === 0) return
  if (account.open.size + total > s.o.accountOpenOrderLimit) throw new MockRejection(429, 'open_orders_limit')
  for (const [iid, n] of perInstrument) {
    const open = [...account.open.values()].filter((o) => o.iid === iid).length
    if (open + n > marketOf(s, iid).spec.maxOrderCount) throw new MockRejection(429, 'open_orders_limit')
  }
}

/** One createOrders item: validates, books and matches it; returns its ack. */
export function placeOrder(
  s: ExchangeState,
  account: Account,
  o: CreateOrderBody,
  now: number,
): CreateOrderAck {
  const coid = o.c
  const err = (error: string): CreateOrderAck =>
    coid === undefined ? { status: 'err', error } : { status: 'err', error, coid }
  const m = s.byId.get(o.iid)
  if (m === undefined) return err('unknown instrument')
  // Decision: TP/SL triggers and groups are outside the mock's scope.
  if (o.tr !== undefined) return err('trigger orders are not supported')
  const ro = o.ro === true
  if (account.inLiquidation && !ro) return err('account_liquidating')
  const tif = o.tif ?? 'gtc'
  const po = o.po === true
  if (po && tif === 'ioc') return err(TEXT.iocPostOnly)
  if (po && tif === 'fok') return err(TEXT.fokPostOnly)
  if (tif === 'gtc' && o.p === undefined) return err(TEXT.gtcNeedsPrice)
  if (coid !== undefined) {
    const bad = checkClientOrderId(coid)
    if (bad !== undefined) return err(bad)
    for (const open of account.open.values()) if (open.coid === coid) return err('duplicate_order')
  }
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  let price: bigint | undefined
  if (o.p !== undefined) {
    const bad = checkPrice(o.p, pd)
    if (bad !== undefined) return err(bad)
    price = toTicks(o.p, pd)
  }
  const badQty = checkQuantity(o.qty, qd)
  if (badQty !== undefined) return err(badQty)
  const qty = toTicks(o.qty, qd)
  if (price !== undefined && !withinBounds(m, price)) return err('price_outside_bounds')
  const takerPrice = o.buy ? askTicks(m) : bidTicks(m)
  const notional = notionalMicros(qty, qd, price ?? takerPrice, pd)
  // Decision: reduce-only orders are exempt from the minimum notional (closing dust must work).
  if (!ro && notional < m.minNotionalMicros) return err('order notional below minimum')
  if (notional > (price === undefined ? m.maxMarketNotionalMicros : m.maxLimitNotionalMicros))
    return err('order notional above maximum')
  const pos = account.positions.get(m.spec.id)
  if (ro && (pos === undefined || pos.size === 0n || pos.size > 0n === o.buy))
    return err('reduce_only_invalid')
  if (!ro && exceedsMargin(s, account, m, o.buy ? qty : 0n, o.buy ? 0n : qty))
    return err('insufficient_margin')

  const order: OrderState = {
    oid: s.nextOid++,
    iid: m.spec.id,
    buy: o.buy,
    price: price ?? takerPrice,
    qty,
    filled: 0n,
    tif,
    po,
    ro,
    status: 'open',
    cts: now,
    uts: now,
    coid,
    account,
    pd,
    qd,
  }
  remember(s, account, order)
  const crosses = price === undefined || (o.buy ? price >= takerPrice : price <= takerPrice)
  if (po && crosses) order.status = 'post_only_rejected'
  else if (crosses) takeImmediately(s, order, m, takerPrice, now)
  else if (tif === 'gtc') rest(s, order)
  else order.status = tif === 'ioc' ? 'ioc_no_fill' : 'fok_unfilled'
  // Listeners (the stream, the simulate recorder) read the order when told: tell them once it has
  // its status, never while a rejected or filled order still reads `open`.
  touched(s, order)
  return coid === undefined ? { status: 'ok', oid: order.oid } : { status: 'ok', oid: order.oid, coid }
}

/** One modifyOrders item: new price and total quantity of a resting order. */
export function modifyOrder(
  s: ExchangeState,
  account: Account,
  mod: ModifyOrderInput,
  now: number,
): ModifyResult {
  const order = account.open.get(mod.oid)
  if (order === undefined) return { status: 'err', error: goneAnswer(s, account, mod.oid), oid: mod.oid }
  const err = (error: string): ModifyResult =>
    order.coid === undefined
      ? { status: 'err', error, oid: order.oid }
      : { status: 'err', error, oid: order.oid, coid: order.coid }
  if (account.inLiquidation && !order.ro) return err('account_liquidating')
  const m = marketOf(s, order.iid)
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  const badPrice = checkPrice(mod.p, pd)
  if (badPrice !== undefined) return err(badPrice)
  const badQty = checkQuantity(mod.qty, qd)
  if (badQty !== undefined) return err(badQty)
  const price = toTicks(mod.p, pd)
  const qty = toTicks(mod.qty, qd)
  // Decision: the new total must leave something to rest.
  if (qty <= order.filled) return err('quantity must exceed filled quantity')
  if (!withinBounds(m, price)) return err('price_outside_bounds')
  const notional = notionalMicros(qty, qd, price, pd)
  if (!order.ro && notional < m.minNotionalMicros) return err('order notional below minimum')
  if (notional > m.maxLimitNotionalMicros) return err('order notional above maximum')
  const delta = qty - order.qty
  if (!order.ro && delta > 0n && exceedsMargin(s, account, m, order.buy ? delta : 0n, order.buy ? 0n : delta))
    return err('insufficient_margin')
  order.price = price
  order.qty = qty
  order.uts = now
  const takerPrice = order.buy ? askTicks(m) : bidTicks(m)
  const crosses = order.buy ? price >= takerPrice : price <= takerPrice
  // Decision: a post-only order modified to cross is rejected like a new one (it leaves the book).
  if (crosses && order.po) closeOrder(s, order, 'post_only_rejected', now)
  else {
    if (crosses) {
      unrest(s, order)
      takeImmediately(s, order, m, takerPrice, now)
    }
    touched(s, order)
  }
  return { status: 'ok', order: orderWire(order) }
}

/**
 * Why an order is not resting, as the venue says it: an order of the account that left the book
 * (filled, cancelled) is answered with a seeded draw of the official "gone" codes (`goneCodes`);
 * an id never seen is `order_not_found`.
 */
export function goneAnswer(s: ExchangeState, account: Account, oid: number): string {
  return account.orders.has(oid) ? goneCode(s) : 'order_not_found'
}

/** One cancelOrders item: ok, or a "gone" code (`goneAnswer`) when the order is not resting. */
export function cancelOrder(s: ExchangeState, account: Account, oid: number, now: number): CancelResult {
  const order = account.open.get(oid)
  if (order === undefined) return { status: 'err', error: goneAnswer(s, account, oid), oid }
  closeOrder(s, order, 'cancelled', now)
  return order.coid === undefined ? { status: 'ok', oid } : { status: 'ok', oid, coid: order.coid }
}

/** Closes every resting order of the account (of `iid` when given) with `status`. */
export function cancelAllOrders(
  s: ExchangeState,
  account: Account,
  iid: number | undefined,
  now: number,
  status: 'cancelled' | 'auto_cancelled' = 'cancelled',
): void {
  for (const order of [...account.open.values()]) {
    if (iid === undefined || order.iid === iid) closeOrder(s, order, status, now)
  }
}

/** Fills the order's remainder at once as a taker (the mock's book is deep at its synthetic touch). */
function takeImmediately(
  s: ExchangeState,
  order: OrderState,
  m: Market,
  takerPrice: bigint,
  now: number,
): void {
  let qty = order.qty - order.filled
  if (order.ro) qty = minBig(qty, reducible(order))
  if (qty > 0n) fill(s, order, m, qty, takerPrice, true, now)
  order.status =
    order.filled === order.qty ? 'filled' : order.filled > 0n ? 'cancelled' : 'reduce_only_invalid'
  order.uts = now
  if (order.account.open.has(order.oid)) unrest(s, order)
}

/** True when the mark trades at or through one of the orders (most steps cross none: no copy then). */
function anyCrossed(set: ReadonlySet<OrderState>, mark: bigint): boolean {
  for (const order of set) if (order.buy ? mark <= order.price : mark >= order.price) return true
  return false
}

/**
 * Resting orders fill when the mark trades at or through them, each by a random 20–60 % share of
 * the volume traded in the step (at least one lot), so large orders fill partially over several steps.
 */
export function fillResting(s: ExchangeState, m: Market, t: number, dtMs: number): void {
  const set = s.resting.get(m.spec.id)
  if (set === undefined || set.size === 0 || !anyCrossed(set, m.markTicks)) return
  for (const order of [...set]) {
    const crossed = order.buy ? m.markTicks <= order.price : m.markTicks >= order.price
    if (!crossed) continue
    const stepVolume = (m.volumeTicksPerSecond * dtMs) / 1000
    const share = BigInt(Math.round(stepVolume * (0.2 + 0.4 * s.fillRng.next())))
    let qty = minBig(order.qty - order.filled, maxBig(1n, share))
    if (order.ro) {
      const left = reducible(order)
      if (left === 0n) {
        closeOrder(s, order, 'reduce_only_invalid', t)
        continue
      }
      qty = minBig(qty, left)
    }
    fill(s, order, m, qty, order.price, false, t)
    order.uts = t
    if (order.filled === order.qty) closeOrder(s, order, 'filled', t)
    else {
      order.status = 'partial'
      touched(s, order)
    }
  }
}
