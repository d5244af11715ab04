/**
 * The mock's market-history and account-state reads (issue 23's "reads the official client has"),
 * built from the mock's own state so they agree with everything else it serves: the book holds the
 * synthetic touch and the accounts' resting orders; klines are the 1-minute ring aggregated; trades
 * are the accounts' fills plus one synthetic print per minute of flow; funding rates are the settled
 * ones; equity and PnL histories are rebuilt from fills and funding (see `pnlPoints`).
 */
import { addDecimal, fromTicks, negateDecimal, subDecimal } from '../../decimal.ts'
import type { Instrument, Kline, PublicPortfolio } from '../../perps/schemas/info.ts'
import { accountRisk } from './account/margin.ts'
import { badRequest } from './errors.ts'
import { rateString, usd } from './money.ts'
import type { Account, ExchangeState } from './state.ts'
import { marketOf, nowOf } from './state.ts'
import { bboToWire } from './tickerWire.ts'
import { type HistoryWindowFilter, page, portfolioWire } from './wire.ts'

type Level = [string, string]
const MINUTE = 60_000
const INTERVAL_MS: Readonly<Record<string, number>> = {
  '1m': MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '1h': 60 * MINUTE,
  '4h': 240 * MINUTE,
  '1d': 1_440 * MINUTE,
  '1w': 10_080 * MINUTE,
}
/** Synthetic prints get ids far above any fill's trade id. */
const SYNTHETIC_TID_BASE = 2 ** 40

/** `GET /v1/info/book`: the synthetic touch plus every account's resting orders, best first. */
export function bookWire(s: ExchangeState, iid: number, depth: number) {
  const m = marketOf(s, iid)
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  const touch = bboToWire(m)
  const bids = new Map<bigint, bigint>()
  const asks = new Map<bigint, bigint>()
  for (const account of s.accounts.values())
    for (const o of account.open.values()) {
      if (o.iid !== iid) continue
      const side = o.buy ? bids : asks
      side.set(o.price, (side.get(o.price) ?? 0n) + (o.qty - o.filled))
    }
  const levels = (side: Map<bigint, bigint>, best: Level, desc: boolean): Level[] => {
    const rows: Level[] = [...side.entries()]
      .sort(([a], [b]) => (desc ? (b > a ? 1 : b < a ? -1 : 0) : a > b ? 1 : a < b ? -1 : 0))
      .map(([p, q]) => [fromTicks(p, pd), fromTicks(q, qd)])
    // The synthetic touch sits among our orders by price.
    const all = [...rows, best].sort((x, y) =>
      desc ? Number(y[0]) - Number(x[0]) : Number(x[0]) - Number(y[0]),
    )
    return all.slice(0, depth)
  }
  return {
    instrument_id: iid,
    bids: levels(bids, [touch.bp, touch.bq], true),
    asks: levels(asks, [touch.ap, touch.aq], false),
    timestamp: nowOf(s),
    sequence: s.fills,
  }
}

/** `GET /v1/info/klines`: the 1-minute ring aggregated to `interval`, oldest first, at most 1,000. */
export function klinesWire(s: ExchangeState, iid: number, interval: string, start: number, end: number) {
  const step = INTERVAL_MS[interval]
  if (step === undefined)
    throw badRequest(`invalid query parameters: interval ${interval} is not kept by this venue`)
  const m = marketOf(s, iid)
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  const out: Kline[] = []
  for (const k of m.klines.toWire(Math.floor(start / step) * step, pd, qd)) {
    if (k[0] > end) break
    const open = Math.floor(k[0] / step) * step
    const last = out.at(-1)
    if (last === undefined || last[0] !== open) {
      out.push([open, k[1], k[2], k[3], k[4], k[5], k[6]])
      continue
    }
    if (Number(k[2]) > Number(last[2])) last[2] = k[2]
    if (Number(k[3]) < Number(last[3])) last[3] = k[3]
    last[4] = k[4]
    last[5] = addDecimal(last[5], k[5])
    last[6] += k[6]
  }
  const inWindow = out.filter((k) => k[0] + step > start && k[0] <= end)
  return { data: inWindow.slice(0, 1_000), more: inWindow.length > 1_000 }
}

/** A public print as `GET /v1/info/trades` serves it. */
export interface PublicPrint {
  trade_id: number
  instrument_id: number
  /** The taker's side. */
  side: 'long' | 'short'
  price: string
  quantity: string
  timestamp: number
  hash: string
}

/**
 * Our accounts' fill as the public tape shows it: the taker's side (a resting order of ours was hit
 * by the market's flow from the other side).
 */
export function printOfFill(f: {
  tid: number | string
  iid: number
  side: string
  taker: boolean
  p: string
  qty: string
  ts: number
}): PublicPrint {
  const side = f.side === 'long' ? 'long' : 'short'
  return {
    // The mock's trade ids are numbers (the fill schema also admits the venue's strings).
    trade_id: Number(f.tid),
    instrument_id: f.iid,
    side: f.taker ? side : side === 'long' ? 'short' : 'long',
    price: f.p,
    quantity: f.qty,
    timestamp: f.ts,
    hash: '0x',
  }
}

/** A minute of the market's own flow as one print at its close (none for a minute without volume). */
export function printOfMinute(iid: number, k: Kline): PublicPrint | undefined {
  if (k[6] <= 0 || Number(k[5]) <= 0) return undefined
  return {
    trade_id: SYNTHETIC_TID_BASE + Math.floor(k[0] / MINUTE),
    instrument_id: iid,
    side: Number(k[4]) >= Number(k[1]) ? 'long' : 'short',
    price: k[4],
    quantity: k[5],
    timestamp: k[0] + MINUTE - 1,
    hash: '0x',
  }
}

/**
 * The market's own flow since the last push tick as one print at the current close (the stream's
 * `tick` tape; none when nothing traded). Ids above the minute prints' (ms, not minutes, past the base).
 */
export function printOfFlow(
  iid: number,
  price: string,
  qty: string,
  side: 'long' | 'short',
  ts: number,
): PublicPrint {
  return {
    trade_id: SYNTHETIC_TID_BASE * 2 + ts,
    instrument_id: iid,
    side,
    price,
    quantity: qty,
    timestamp: ts,
    hash: '0x',
  }
}

/** `GET /v1/info/trades`: every account's fills on the instrument plus one print per minute of flow. */
export function tradesWire(s: ExchangeState, iid: number, window: HistoryWindowFilter) {
  const m = marketOf(s, iid)
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  const rows: PublicPrint[] = []
  for (const account of s.accounts.values())
    for (const f of account.fills) if (f.iid === iid) rows.push(printOfFill(f))
  for (const k of m.klines.toWire(0, pd, qd)) {
    const p = printOfMinute(iid, k)
    if (p !== undefined) rows.push(p)
  }
  rows.sort((a, b) => a.timestamp - b.timestamp || a.trade_id - b.trade_id)
  return page(
    s,
    rows,
    (r) => r.timestamp,
    window,
    (r) => r,
  )
}

/** `GET /v1/info/funding`: the instrument's settled rates in the window. */
export function fundingRatesWire(s: ExchangeState, iid: number, window: HistoryWindowFilter) {
  const m = marketOf(s, iid)
  return page(
    s,
    m.fundingRates,
    (r) => r.timestamp,
    window,
    (r) => ({
      funding_rate: rateString(r.rate),
      timestamp: r.timestamp,
    }),
  )
}

/** `GET /v1/account/balances`: the collateral and what the account is worth. */
export function balancesWire(s: ExchangeState, account: Account) {
  const risk = accountRisk(s, account)
  return [{ asset: s.o.collateral.asset, balance: usd(account.collateral), value: usd(risk.equity) }]
}

/** `GET /v1/account/config`: leverage and margin mode per instrument (all, or one). */
export function accountConfigWire(s: ExchangeState, account: Account, iid: number | undefined) {
  return s.markets
    .filter((m) => iid === undefined || m.spec.id === iid)
    .map((m) => ({
      instrument_id: m.spec.id,
      leverage: Math.min(account.leverage.get(m.spec.id) ?? s.o.defaultLeverage, m.spec.maxLeverage),
      cross: account.cross.get(m.spec.id) ?? !m.spec.isolatedOnly,
    }))
}

/**
 * `GET /v1/account/equity` and `/pnl`: one point per interval boundary in the window (at most 1,000).
 * PnL(t) = realized PnL − fees of fills up to t − funding paid up to t; equity(t) = equity now − (PnL
 * now − PnL(t)). Decision: unrealized PnL between points is not replayed (the mock keeps no equity
 * history), so equity history moves only with fills and funding.
 */
export function pnlPoints(
  s: ExchangeState,
  account: Account,
  kind: 'equity' | 'pnl',
  interval: string,
  start: number,
  end: number,
) {
  const step = INTERVAL_MS[interval]
  if (step === undefined || interval === '1m' || interval === '5m' || interval === '15m')
    throw badRequest('invalid query parameters: interval must be one of 1h, 4h, 1d, 1w')
  const events: { t: number; delta: string }[] = [
    ...account.fills.map((f) => ({ t: f.ts, delta: subDecimal(f.pnl, f.fee) })),
    ...account.funding.map((c) => ({ t: c.timestamp, delta: negateDecimal(c.funding) })),
  ].sort((a, b) => a.t - b.t)
  const pnlAt = (t: number): string =>
    events.filter((e) => e.t <= t).reduce((sum, e) => addDecimal(sum, e.delta), '0')
  const now = nowOf(s)
  const pnlNow = pnlAt(now)
  const equityNow = usd(accountRisk(s, account).equity)
  const data: [number, string][] = []
  for (let t = Math.ceil(start / step) * step; t <= Math.min(end, now) && data.length <= 1_000; t += step) {
    const pnl = pnlAt(t)
    data.push([t, kind === 'pnl' ? pnl : subDecimal(equityNow, subDecimal(pnlNow, pnl))])
  }
  return { data: data.slice(0, 1_000), more: data.length > 1_000 }
}

export interface InstrumentFilter {
  instrumentId?: number | undefined
  instrumentType?: string | undefined
  category?: string | undefined
}

/** `GET /v1/info/instruments`: the listed instruments matching every given field. */
export function instrumentsMatching(s: ExchangeState, filter: InstrumentFilter): Instrument[] {
  return s.instrumentWire.filter(
    (i) =>
      (filter.instrumentId === undefined || i.instrument_id === filter.instrumentId) &&
      (filter.instrumentType === undefined || i.instrument_type === filter.instrumentType) &&
      (filter.category === undefined || i.category === filter.category),
  )
}

/** The public portfolio of any address: positions without margin detail, and equity (0 without an account). */
export function publicPortfolioOf(s: ExchangeState, address: string): PublicPortfolio {
  const account = s.accounts.get(address.toLowerCase())
  if (account === undefined) return { positions: [], equity: '0', timestamp: nowOf(s) }
  const risk = accountRisk(s, account)
  const full = portfolioWire(s, account, risk)
  return {
    positions: full.positions.map((p) => ({
      instrument_id: p.instrument_id,
      symbol: p.symbol,
      size: p.size,
      entry_price: p.entry_price,
      unrealized_pnl: p.unrealized_pnl,
      return_on_equity: p.return_on_equity,
    })),
    equity: usd(risk.equity),
    timestamp: nowOf(s),
  }
}
