/**
 * Where each stream push goes: ONE table from channel kind to handler, so adding an input is one
 * entry. Handlers turn push data into what the pollers would have produced (INDEX, STATISTICS,
 * ACCOUNT events for the instruments; order states for the open-order book; fills, withdrawals and
 * the portfolio for account supervision). Pure routing: the targets are injected.
 */
import type { Fill, Portfolio } from '../../../perps/schemas/account.ts'
import type { Order } from '../../../perps/schemas/orders.ts'
import type { ChannelKind } from '../../../perps/stream/channels.ts'
import type {
  StatisticsPush,
  TickerPush,
  VenueNotification,
  WithdrawalPush,
} from '../../../perps/stream/pushSchemas.ts'
import type { StreamPush, StreamPushByKind } from '../../../perps/stream/schemas.ts'
import { bboForStrategy, marginForStrategy, positionForStrategy } from '../../../strategy/snapshot.ts'
import type { StrategyIndex, StrategyStatistics } from '../../../strategy/strategy.ts'
import type { InstrumentEvent } from '../../instrument/context.ts'

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
   * Routes an input that can wait (an unchanged value's refresh, the portfolio's fan-out, statistics)
   * after the pushes in hand (routeQueue.ts). Default: `route`.
   */
  defer?: ((ids: readonly number[], event: RoutedEvent) => void) | undefined
  /**
   * True when `value` differs from the last one routed under `key`, or that one is due a refresh
   * (see `createChangeFilter`, whose `classify` also tells the two apart). Default: always true.
   */
  changed?: ChangeFilter | ((key: string, value: string, refreshMs: FilterKind) => boolean) | undefined
  orders: { observe(order: Order): void }
  account: {
    observePortfolio(p: Portfolio): void
    observeFill(f: Fill): void
    observeWithdrawal(w: WithdrawalPush): void
  }
  /** The venue's own notifications (alerts/venueAlerts.ts turns them into alerts). Default: dropped. */
  notify?: ((n: VenueNotification) => void) | undefined
}

type PushOf<K extends ChannelKind> = StreamPushByKind[K]
export type StreamRoute<K extends ChannelKind> = (push: PushOf<K>, t: StreamRouteTargets) => void
export type StreamRouteTable = { readonly [K in ChannelKind]?: StreamRoute<K> }

export function indexFromTickerPush(d: TickerPush, ts: number): StrategyIndex {
  return { price: d.idx, ts, mark: d.mark, fundingRate: d.fr }
}

export function statisticsFromPush(d: StatisticsPush, klinesKept: number): StrategyStatistics {
  // Keep only the newest klines: a day of 1-minute klines per actor would dominate memory.
  return { volume: d.vol, openPrice: d.open, klines: klinesKept > 0 ? d.klines.slice(-klinesKept) : [] }
}

/** What the change filter says of a value: new, unchanged but due a refresh, or held back. */
export type FilterVerdict = 'new' | 'refresh' | 'hold'
export type FilterKind = 'index' | 'bbo' | 'margin'

function verdictOf(t: StreamRouteTargets, key: string, value: string, kind: FilterKind): FilterVerdict {
  const f = t.changed
  if (f === undefined) return 'new'
  if ('classify' in f) return f.classify(key, value, kind)
  return f(key, value, kind) ? 'new' : 'hold'
}

/** Routes a new value at once, a refresh deferred, and drops a held-back one. */
function routeBy(t: StreamRouteTargets, verdict: FilterVerdict, id: number, event: RoutedEvent): void {
  if (verdict === 'new') t.route([id], event)
  else if (verdict === 'refresh') (t.defer ?? t.route)([id], event)
}

/** The bot's routes (public `book`, `klines`, `trades` and private `funding`, `balances`, `deposits` are not taken). */
export const STREAM_ROUTES: StreamRouteTable = {
  tickers: (p, t) => {
    const d = p.data
    if (!t.traded.has(d.iid)) return
    const verdict = verdictOf(t, `i${d.iid}`, `${d.idx}|${d.mark}`, 'index')
    if (verdict === 'hold') return
    routeBy(t, verdict, d.iid, { type: 'INDEX', index: indexFromTickerPush(d, p.ts), receivedAt: t.now() })
  },
  // No REST read has the book: a BBO lives only while the stream delivers it (strategies check its age).
  bbo: (p, t) => {
    const d = p.data
    if (!t.traded.has(d.iid)) return
    const verdict = verdictOf(t, `b${d.iid}`, `${d.bp}|${d.bq}|${d.ap}|${d.aq}`, 'bbo')
    if (verdict === 'hold') return
    routeBy(t, verdict, d.iid, { type: 'BBO', bbo: bboForStrategy(d), receivedAt: t.now() })
  },
  // Once a minute for every instrument, and each one plans: after the pushes in hand.
  statistics: (p, t) => {
    if (!t.traded.has(p.data.iid)) return
    const statistics = statisticsFromPush(p.data, t.klinesKept)
    ;(t.defer ?? t.route)([p.data.iid], { type: 'STATISTICS', statistics, receivedAt: t.now() })
  },
  // One ACCOUNT event per instrument every second: only a changed margin or position is routed (a
  // liquidation at once, the rest after the pushes in hand), an unchanged one when its refresh is due.
  portfolio: (p, t) => {
    const at = t.now()
    const margin = marginForStrategy(p.data)
    t.account.observePortfolio(p.data)
    const marginKey = `${margin.accountValue}|${margin.initialMargin}|${margin.maintenanceMargin}|${margin.inLiquidation}`
    // Each instrument's positions looked up once (a scan per instrument is quadratic at 1,000).
    const byId = new Map<number, Portfolio['positions']>()
    for (const x of p.data.positions) byId.set(x.instrument_id, [...(byId.get(x.instrument_id) ?? []), x])
    for (const id of t.traded) {
      const own = byId.get(id)
      const position = own === undefined ? undefined : positionForStrategy({ ...p.data, positions: own }, id)
      const key =
        position === undefined ? '' : `${position.size}|${position.entryPrice}|${position.liquidationPrice}`
      const verdict = verdictOf(t, `a${id}`, `${marginKey}|${key}`, 'margin')
      if (verdict === 'hold') continue
      const event: RoutedEvent = { type: 'ACCOUNT', margin, position, receivedAt: at }
      if (margin.inLiquidation) t.route([id], event)
      else (t.defer ?? t.route)([id], event)
    }
  },
  orders: (p, t) => t.orders.observe(p.data),
  fills: (p, t) => {
    // Oldest first, as the REST read hands them to the ledger.
    for (const f of [...p.data].sort((a, b) => a.ts - b.ts)) t.account.observeFill(f)
  },
  withdrawals: (p, t) => t.account.observeWithdrawal(p.data),
  notifications: (p, t) => {
    // Per-fill position notifications (opened, increased, reduced) are not alerts: the fills say it.
    for (const n of p.data) if (n.alert) t.notify?.(n)
  },
}

/** `createChangeFilter`'s answer: the boolean form, and `classify` telling a new value from a refresh. */
export interface ChangeFilter {
  (key: string, value: string, kind: FilterKind): boolean
  classify(key: string, value: string, kind: FilterKind): FilterVerdict
}

/**
 * Which pushes are worth an actor event: every ticker and BBO of every instrument is pushed each
 * second, and at 1,000 instruments an event each is most of the bot's time, so an unchanged value is
 * routed again only when its refresh is due (keeping the input's age well inside its staleness bound).
 * `margin` (the portfolio's ACCOUNT events) refreshes as often as the index unless given.
 */
export function createChangeFilter(
  now: () => number,
  refreshMs: { index: number; bbo: number; margin?: number | undefined },
): ChangeFilter {
  const every: Record<FilterKind, number> = { ...refreshMs, margin: refreshMs.margin ?? refreshMs.index }
  const last = new Map<string, { value: string; at: number }>()
  const classify = (key: string, value: string, kind: FilterKind): FilterVerdict => {
    const t = now()
    const seen = last.get(key)
    if (seen !== undefined && seen.value === value) {
      if (t - seen.at < every[kind]) return 'hold'
      seen.at = t
      return 'refresh'
    }
    last.set(key, { value, at: t })
    return 'new'
  }
  const filter = (key: string, value: string, kind: FilterKind): boolean =>
    classify(key, value, kind) !== 'hold'
  return Object.assign(filter, { classify })
}

/**
 * How often an unchanged BBO is routed again: a third of the 5 s a strategy trusts a best bid/offer by
 * default (`maxBboAgeMs`), as the index refreshes at a third of `quoting.staleIndexMs`.
 */
export const BBO_REFRESH_MS = 1_500

/** The bot's change filter: unchanged values are refreshed at a third of their staleness bounds. */
export function botChangeFilter(now: () => number, quoting: { staleIndexMs: number }): ChangeFilter {
  return createChangeFilter(now, { index: Math.floor(quoting.staleIndexMs / 3), bbo: BBO_REFRESH_MS })
}

/** Runs the push's route; false when the table has none for its kind. */
export function routePush(table: StreamRouteTable, push: StreamPush, targets: StreamRouteTargets): boolean {
  return runRoute(table, push.kind, push, targets)
}

/** Generic in the kind, so the table's entry and the push stay correlated (no cast at the lookup). */
function runRoute<K extends ChannelKind>(
  table: StreamRouteTable,
  kind: K,
  push: StreamPushByKind[K],
  targets: StreamRouteTargets,
): boolean {
  const route: StreamRoute<K> | undefined = table[kind]
  if (route === undefined) return false
  route(push, targets)
  return true
}
