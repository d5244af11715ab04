/**
 * Where each stream push goes: ONE table from channel kind to handler, so adding an input is one
 * entry. Handlers turn push data into what the pollers would have produced (INDEX, STATISTICS,
 * ACCOUNT events for the instruments; order states for the open-order book; fills, withdrawals and
 * the portfolio for account supervision). Pure routing: the targets are injected.
 */
import type { Fill, Portfolio } from '../../perps/schemas/account.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type { ChannelKind } from '../../perps/stream/channels.ts'
import type { StatisticsPush, TickerPush, WithdrawalPush } from '../../perps/stream/pushSchemas.ts'
import type { StreamPush } from '../../perps/stream/schemas.ts'
import { bboForStrategy, marginForStrategy, positionForStrategy } from '../../strategy/snapshot.ts'
import type { StrategyIndex, StrategyStatistics } from '../../strategy/strategy.ts'
import type { InstrumentEvent } from '../instrument/context.ts'

type RoutedEvent = Extract<InstrumentEvent, { type: 'INDEX' | 'STATISTICS' | 'ACCOUNT' | 'BBO' }>

export interface StreamRouteTargets {
  /** Base clock ms (`receivedAt`). */
  now(): number
  /** The traded instruments (pushes for others are dropped). */
  readonly traded: ReadonlySet<number>
  /** Sends an input event to these instruments' actors. */
  route(ids: readonly number[], event: RoutedEvent): void
  /** Newest klines kept per instrument (0: none). */
  readonly klinesKept: number
  /**
   * True when `value` differs from the last one routed under `key`, or that one is due a refresh
   * (see `createChangeFilter`). Default: always true.
   */
  changed?: ((key: string, value: string, refreshMs: 'index' | 'bbo') => boolean) | undefined
  orders: { observe(order: Order): void }
  account: {
    observePortfolio(p: Portfolio): void
    observeFill(f: Fill): void
    observeWithdrawal(w: WithdrawalPush): void
  }
}

type PushOf<K extends ChannelKind> = Extract<StreamPush, { kind: K }>
export type StreamRoute<K extends ChannelKind> = (push: PushOf<K>, t: StreamRouteTargets) => void
export type StreamRouteTable = { readonly [K in ChannelKind]?: StreamRoute<K> }

export function indexFromTickerPush(d: TickerPush, ts: number): StrategyIndex {
  return { price: d.idx, ts, mark: d.mark }
}

export function statisticsFromPush(d: StatisticsPush, klinesKept: number): StrategyStatistics {
  // Keep only the newest klines: a day of 1-minute klines per actor would dominate memory.
  return { volume: d.vol, openPrice: d.open, klines: klinesKept > 0 ? d.klines.slice(-klinesKept) : [] }
}

/** The bot's routes (public `book`, `klines`, `trades` and private `funding`, `balances`, `deposits` are not taken). */
export const STREAM_ROUTES: StreamRouteTable = {
  tickers: (p, t) => {
    if (!t.traded.has(p.data.iid)) return
    const d = p.data
    if (t.changed && !t.changed(`i${d.iid}`, `${d.idx}|${d.mark}`, 'index')) return
    const at = t.now()
    t.route([p.data.iid], { type: 'INDEX', index: indexFromTickerPush(p.data, p.ts), receivedAt: at })
  },
  // No REST read has the book: a BBO lives only while the stream delivers it (strategies check its age).
  bbo: (p, t) => {
    if (!t.traded.has(p.data.iid)) return
    const d = p.data
    if (t.changed && !t.changed(`b${d.iid}`, `${d.bp}|${d.bq}|${d.ap}|${d.aq}`, 'bbo')) return
    t.route([p.data.iid], { type: 'BBO', bbo: bboForStrategy(p.data), receivedAt: t.now() })
  },
  statistics: (p, t) => {
    if (!t.traded.has(p.data.iid)) return
    const statistics = statisticsFromPush(p.data, t.klinesKept)
    t.route([p.data.iid], { type: 'STATISTICS', statistics, receivedAt: t.now() })
  },
  portfolio: (p, t) => {
    const at = t.now()
    const margin = marginForStrategy(p.data)
    t.account.observePortfolio(p.data)
    for (const id of t.traded)
      t.route([id], { type: 'ACCOUNT', margin, position: positionForStrategy(p.data, id), receivedAt: at })
  },
  orders: (p, t) => t.orders.observe(p.data),
  fills: (p, t) => {
    // Oldest first, as the REST read hands them to the ledger.
    for (const f of [...p.data].sort((a, b) => a.ts - b.ts)) t.account.observeFill(f)
  },
  withdrawals: (p, t) => t.account.observeWithdrawal(p.data),
}

/**
 * Which pushes are worth an actor event: every ticker and BBO of every instrument is pushed each
 * second, and at 1,000 instruments an event each is most of the bot's time, so an unchanged value is
 * routed again only when its refresh is due (keeping the input's age well inside its staleness bound).
 */
export function createChangeFilter(
  now: () => number,
  refreshMs: { index: number; bbo: number },
): (key: string, value: string, kind: 'index' | 'bbo') => boolean {
  const last = new Map<string, { value: string; at: number }>()
  return (key, value, kind) => {
    const t = now()
    const seen = last.get(key)
    if (seen !== undefined && seen.value === value && t - seen.at < refreshMs[kind]) return false
    last.set(key, { value, at: t })
    return true
  }
}

/** Runs the push's route; false when the table has none for its kind. */
export function routePush(table: StreamRouteTable, push: StreamPush, targets: StreamRouteTargets): boolean {
  // The entry under `push.kind` takes exactly that kind's push (the table's mapped type).
  const route = table[push.kind] as StreamRoute<ChannelKind> | undefined
  if (route === undefined) return false
  route(push, targets)
  return true
}
