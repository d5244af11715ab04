/**
 * An account's history reads as the venue pages them: withdrawals, fills, funding, resting orders and
 * the order history, each filtered as its endpoint's query says and paged by `page` (wire.ts).
 */
import type { FundingPage, RestFillWire, WithdrawalsPage } from '../../../perps/schemas/account.ts'
import type { OrderDataWire } from '../../../perps/schemas/orders.ts'
import type { Account, ExchangeState, FillRow } from '../state.ts'
import { type HistoryWindowFilter, orderDataWire, page, pageOfAscending } from '../wire.ts'
import { withdrawalToWire } from './withdrawals.ts'

export interface WithdrawalFilter extends HistoryWindowFilter {
  status?: string | undefined
  hash?: string | undefined
}

export interface FundingFilter extends HistoryWindowFilter {
  instrumentId?: number | undefined
}

export interface OrderHistoryFilter extends HistoryWindowFilter {
  orderId?: number | undefined
  clientOrderId?: string | undefined
  instrumentId?: number | undefined
}

export function withdrawalsPage(
  s: ExchangeState,
  account: Account,
  filter: WithdrawalFilter,
): WithdrawalsPage {
  const rows = account.withdrawals.filter(
    (w) =>
      (filter.status === undefined || w.status === filter.status) &&
      (filter.hash === undefined || w.hash.toLowerCase() === filter.hash.toLowerCase()),
  )
  return page(s, rows, (w) => w.createdAt, filter, withdrawalToWire)
}

export function fillsPage(
  s: ExchangeState,
  account: Account,
  filter: HistoryWindowFilter,
): { data: RestFillWire[]; more: boolean } {
  // Fills are appended as they happen, so ascending: no scan of the whole history per read.
  return pageOfAscending(s, account.fills, (f) => f.ts, filter, restFillWire)
}

/** A fill row with the REST long keys (bindings `PerpsAccountFillSchema`); the channel keeps the terse row. */
export function restFillWire(f: FillRow): RestFillWire {
  return {
    trade_id: f.tid,
    order_id: f.oid,
    instrument_id: f.iid,
    side: f.side,
    price: f.p,
    quantity: f.qty,
    taker: f.taker,
    fee: f.fee,
    fee_asset: f.fea,
    previous_size: f.psz,
    previous_entry_price: f.pep,
    pnl: f.pnl,
    liquidation: f.liq,
    timestamp: f.ts,
    // The mock settles nothing on chain: no transaction hash ('0x' is the venue's "none").
    hash: '0x',
  }
}

export function fundingPage(s: ExchangeState, account: Account, filter: FundingFilter): FundingPage {
  const rows = account.funding.filter(
    (f) => filter.instrumentId === undefined || f.instrument_id === filter.instrumentId,
  )
  return page(
    s,
    rows,
    (f) => f.timestamp,
    filter,
    (f) => f,
  )
}

/** Resting orders (REST long names), ascending by order id. */
export function openOrdersOf(account: Account, instrumentId: number | undefined): OrderDataWire[] {
  return [...account.open.values()]
    .filter((o) => instrumentId === undefined || o.iid === instrumentId)
    .map(orderDataWire)
}

/** Latest state of kept orders matching the filter; same window/order rule as the history pages, bare array. */
export function orderHistory(
  s: ExchangeState,
  account: Account,
  filter: OrderHistoryFilter,
): OrderDataWire[] {
  const rows = [...account.orders.values()].filter(
    (o) =>
      (filter.orderId === undefined || o.oid === filter.orderId) &&
      (filter.clientOrderId === undefined || o.coid === filter.clientOrderId) &&
      (filter.instrumentId === undefined || o.iid === filter.instrumentId),
  )
  return page(s, rows, (o) => o.cts, filter, orderDataWire).data
}
