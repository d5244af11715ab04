/**
 * Wire rendering of the mock exchange's state: orders (terse and REST shapes), the portfolio, the
 * `{data, more}` history pages, and the test-facing account view and venue snapshot.
 */
import { divRound, fromTicks } from '../../decimal.ts'
import type { Portfolio, Position } from '../../perps/schemas/account.ts'
import type { Order, OrderDataWire } from '../../perps/schemas/orders.ts'
import { type AccountRisk, accountRisk } from './account/margin.ts'
import { entryPriceString, liquidationPriceTicks, scaledToMicros } from './account/positions.ts'
import type { RegimeName } from './market/priceProcess.ts'
import type { ScenarioName } from './market/scenarios.ts'
import { abs, maxBig, minBig, rateString, usd } from './money.ts'
import { HISTORY_PAGE_LIMIT } from './options.ts'
import { type Account, type ExchangeState, marketOf, nowOf, type OrderState } from './state.ts'

export interface HistoryWindowFilter {
  startTimestamp?: number | undefined
  endTimestamp?: number | undefined
}

export interface AccountView {
  owner: string
  collateral: string
  equity: string
  inLiquidation: boolean
  portfolio: Portfolio
  openOrders: OrderDataWire[]
  proxies: { proxy: string; expiry: number; label?: string | undefined }[]
}

export interface ExchangeSnapshot {
  time: number
  simTime: number
  scenario: ScenarioName
  markets: {
    instrument_id: number
    symbol: string
    regime: RegimeName
    index_price: string
    mark_price: string
    funding_rate: string
  }[]
  accounts: {
    owner: string
    collateral: string
    equity: string
    in_liquidation: boolean
    positions: { instrument_id: number; size: string; entry_price: string }[]
    open_orders: number
    withdrawals: { withdraw_id: number; status: string }[]
    funding_rows: number
  }[]
  fills: number
  /** Time of the last fill (0 before any). */
  last_fill_at: number
}

function resting(o: OrderState): bigint {
  return o.status === 'open' || o.status === 'partial' ? o.qty - o.filled : 0n
}

/** The terse `Order` (modifyOrders results). */
export function orderWire(o: OrderState): Order {
  const out: Order = {
    oid: o.oid,
    iid: o.iid,
    buy: o.buy,
    p: fromTicks(o.price, o.pd),
    qty: fromTicks(o.qty, o.qd),
    tif: o.tif,
    po: o.po,
    ro: o.ro,
    status: o.status,
    rest: fromTicks(resting(o), o.qd),
    fill: fromTicks(o.filled, o.qd),
    cts: o.cts,
    uts: o.uts,
  }
  if (o.coid !== undefined) out.coid = o.coid
  return out
}

/** The REST `OrderData` (long names, `ro` short). */
export function orderDataWire(o: OrderState): OrderDataWire {
  const out: OrderDataWire = {
    order_id: o.oid,
    instrument_id: o.iid,
    buy: o.buy,
    price: fromTicks(o.price, o.pd),
    quantity: fromTicks(o.qty, o.qd),
    tif: o.tif,
    post_only: o.po,
    ro: o.ro,
    status: o.status,
    resting_quantity: fromTicks(resting(o), o.qd),
    filled_quantity: fromTicks(o.filled, o.qd),
    created_timestamp: o.cts,
    updated_timestamp: o.uts,
  }
  if (o.coid !== undefined) out.client_order_id = o.coid
  return out
}

export function portfolioWire(s: ExchangeState, account: Account, risk: AccountRisk): Portfolio {
  const positions: Position[] = []
  for (const [iid, r] of risk.perInstrument) {
    const pos = account.positions.get(iid)
    if (pos === undefined) continue
    const m = marketOf(s, iid)
    const { priceDecimals: pd, quantityDecimals: qd } = m.spec
    const costMicros = scaledToMicros(abs(pos.cost), qd, pd)
    const marginAtEntry = divRound(costMicros, BigInt(r.leverage), 'up')
    const roe = marginAtEntry === 0n ? 0n : divRound(r.upnl * 1_000_000n, marginAtEntry, 'half-even')
    const liq = liquidationPriceTicks({
      size: pos.size,
      qd,
      pd,
      markTicks: m.markTicks,
      leverage: r.leverage,
      equityMicros: risk.equity,
      otherMaintenanceMicros: risk.mm - r.mm,
    })
    positions.push({
      instrument_id: iid,
      symbol: m.spec.symbol,
      size: fromTicks(pos.size, qd),
      entry_price: entryPriceString(pos, pd),
      leverage: r.leverage,
      cross: account.cross.get(iid) ?? true,
      initial_margin: usd(r.im),
      maintenance_margin: usd(r.mm),
      position_value: usd(r.notional),
      liquidation_price: fromTicks(liq, pd),
      unrealized_pnl: usd(r.upnl),
      return_on_equity: fromTicks(roe, 6),
      cumulative_funding: usd(pos.cumulativeFunding),
    })
  }
  const free = maxBig(0n, risk.equity - risk.imWorst)
  return {
    positions,
    margin: {
      total_account_value: usd(risk.equity),
      available_order_margin: usd(free),
      total_initial_margin: usd(risk.im),
      total_maintenance_margin: usd(risk.mm),
      total_position_value: usd(risk.positionValue),
    },
    // Decision: unrealized profit is not withdrawable: min(collateral, equity) − worst-case IM.
    withdrawable: usd(maxBig(0n, minBig(account.collateral, risk.equity) - risk.imWorst)),
    in_liquidation: account.inLiquidation,
    timestamp: nowOf(s),
  }
}

/** Filters rows (ascending by time) to [start, end ?? now] and cuts a page per `historyOrder`. */
export function page<R, W>(
  s: ExchangeState,
  rows: readonly R[],
  timeOf: (r: R) => number,
  window: HistoryWindowFilter,
  toWire: (r: R) => W,
): { data: W[]; more: boolean } {
  const start = window.startTimestamp ?? 0
  const end = window.endTimestamp ?? nowOf(s)
  const inWindow = rows.filter((r) => timeOf(r) >= start && timeOf(r) <= end)
  const ordered = s.o.historyOrder === 'newest-first' ? [...inWindow].reverse() : inWindow
  return {
    data: ordered.slice(0, HISTORY_PAGE_LIMIT).map(toWire),
    more: ordered.length > HISTORY_PAGE_LIMIT,
  }
}

/**
 * `page` for rows already ascending by time (an account's fills, appended as they happen): the
 * window's bounds by binary search and only the page's rows copied, so a read costs the page, not
 * the account's whole history (a simulated day's ~20,000 fills were scanned at every fills poll).
 * Same answer as `page` for such rows.
 */
export function pageOfAscending<R, W>(
  s: ExchangeState,
  rows: readonly R[],
  timeOf: (r: R) => number,
  window: HistoryWindowFilter,
  toWire: (r: R) => W,
): { data: W[]; more: boolean } {
  return ascendingPage(rows, timeOf, window, nowOf(s), s.o.historyOrder, toWire)
}

/** The pure part of `pageOfAscending` (`now` ends an open window). */
export function ascendingPage<R, W>(
  rows: readonly R[],
  timeOf: (r: R) => number,
  window: HistoryWindowFilter,
  now: number,
  order: 'newest-first' | 'oldest-first',
  toWire: (r: R) => W,
): { data: W[]; more: boolean } {
  const start = window.startTimestamp ?? 0
  const end = window.endTimestamp ?? now
  const from = firstIndex(rows, (r) => timeOf(r) >= start)
  const to = firstIndex(rows, (r) => timeOf(r) > end)
  const n = Math.max(0, to - from)
  const take = Math.min(n, HISTORY_PAGE_LIMIT)
  const picked =
    order === 'newest-first' ? rows.slice(to - take, to).reverse() : rows.slice(from, from + take)
  return { data: picked.map(toWire), more: n > HISTORY_PAGE_LIMIT }
}

/** The first index whose row satisfies `ok` (monotone: false … false true … true), else the length. */
function firstIndex<R>(rows: readonly R[], ok: (r: R) => boolean): number {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const r = rows[mid]
    if (r === undefined || ok(r)) hi = mid
    else lo = mid + 1
  }
  return lo
}

export function accountView(s: ExchangeState, account: Account): AccountView {
  const risk = accountRisk(s, account)
  return {
    owner: account.owner,
    collateral: usd(account.collateral),
    equity: usd(risk.equity),
    inLiquidation: account.inLiquidation,
    portfolio: portfolioWire(s, account, risk),
    openOrders: [...account.open.values()].map(orderDataWire),
    proxies: account.proxies.map((p) => ({ proxy: p.proxy, expiry: p.expiry, label: p.label })),
  }
}

/** A JSON-safe summary of the whole venue. */
export function snapshot(s: ExchangeState): ExchangeSnapshot {
  return {
    time: nowOf(s),
    simTime: s.simTime,
    scenario: s.scenario,
    markets: s.markets.map((m) => ({
      instrument_id: m.spec.id,
      symbol: m.spec.symbol,
      regime: m.regime,
      index_price: fromTicks(m.indexTicks, m.spec.priceDecimals),
      mark_price: fromTicks(m.markTicks, m.spec.priceDecimals),
      funding_rate: rateString(m.lastFundingRate),
    })),
    accounts: [...s.accounts.values()].map((a) => ({
      owner: a.owner,
      collateral: usd(a.collateral),
      equity: usd(accountRisk(s, a).equity),
      in_liquidation: a.inLiquidation,
      positions: [...a.positions.values()].map((p) => {
        const m = marketOf(s, p.iid)
        return {
          instrument_id: p.iid,
          size: fromTicks(p.size, m.spec.quantityDecimals),
          entry_price: entryPriceString(p, m.spec.priceDecimals),
        }
      }),
      open_orders: a.open.size,
      withdrawals: a.withdrawals.map((w) => ({ withdraw_id: w.id, status: w.status })),
      funding_rows: a.funding.length,
    })),
    fills: s.fills,
    last_fill_at: s.lastTradeAt,
  }
}
