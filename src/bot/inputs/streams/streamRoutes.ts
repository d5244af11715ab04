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
  BboPush,
  StatisticsPush,
  TickerPush,
  VenueNotification,
  WithdrawalPush,
} from '../../../perps/stream/pushSchemas.ts'
import type { StreamPush, StreamPushByKind } from '../../../perps/stream/schemas.ts'
import { bboForStrategy, marginForStrategy, positionForStrategy } from '../../../strategy/snapshot.ts'
import type { StrategyIndex, StrategyStatistics } from '../../../strategy/strategy.ts'
import type { AgedInput, InputAges, InstrumentEvent } from '../../instrument/context.ts'

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
  /**
   * An unchanged BBO pushed again and not routed (its age renewed in the change filter): the markout
   * tracker's touch. Default: nothing.
   */
  touchRenewed?: ((id: number) => void) | undefined
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
const FILTER_KINDS: readonly FilterKind[] = ['index', 'bbo', 'margin']

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

/**
 * Significant figures of the margin totals that make a change worth an ACCOUNT event (a relative
 * move of about 1e-4; the risk modes' thresholds and their hysteresis are far coarser).
 */
export const MARGIN_KEY_FIGURES = 4

/** A margin total for the change key only (a float's figures; the routed event keeps the decimal). */
const coarse = (s: string): string => Number(s).toPrecision(MARGIN_KEY_FIGURES)

/**
 * The margins in the change key, in units of 1e-4 of the account value: what the margin ratio and the
 * risk modes see. Their own leading figures moved with every mark (a position's margin is its
 * notional's share, a few hundred on an account of 100,000: a 4th figure of 0.1), so nearly every
 * poll sent every instrument an ACCOUNT event (issue 36). Exact when the account value is not positive.
 */
function marginShares(accountValue: string, ...totals: string[]): string {
  const unit = Number(accountValue) * 10 ** -MARGIN_KEY_FIGURES
  return totals.map((t) => (unit > 0 ? String(Math.round(Number(t) / unit)) : t)).join('|')
}

const indexValue = (d: TickerPush): string => `${d.idx}|${d.mark}`
const bboValue = (d: BboPush): string => `${d.bp}|${d.bq}|${d.ap}|${d.aq}`
/** The change filter's value of each push's data, by the data object (see `filterValue`). */
const FILTER_VALUES = new WeakMap<object, string>()

/**
 * The change filter's value of a ticker's or BBO's data, made once per data object: a push that
 * repeats its key's last one carries the very data object accepted then (pushIntake.ts reuses it, no
 * parse), so at 1,000 instruments nearly every frame of a tick finds its value here, and the filter's
 * comparison with the value it kept is the same string (no string built, flattened and compared per
 * frame). The data is never written after it is read, so its value cannot change.
 */
function filterValue<D extends object>(d: D, value: (d: D) => string): string {
  let v = FILTER_VALUES.get(d)
  if (v === undefined) {
    v = value(d)
    FILTER_VALUES.set(d, v)
  }
  return v
}

/** The bot's routes (public `book`, `klines`, `trades` and private `funding`, `balances`, `deposits` are not taken). */
export const STREAM_ROUTES: StreamRouteTable = {
  tickers: (p, t) => {
    const d = p.data
    if (!t.traded.has(d.iid)) return
    const verdict = verdictOf(t, filterKey('index', d.iid), filterValue(d, indexValue), 'index')
    if (verdict === 'hold') return
    routeBy(t, verdict, d.iid, { type: 'INDEX', index: indexFromTickerPush(d, p.ts), receivedAt: t.now() })
  },
  // No REST read has the book: a BBO lives only while the stream delivers it (strategies check its age).
  bbo: (p, t) => {
    const d = p.data
    if (!t.traded.has(d.iid)) return
    const verdict = verdictOf(t, filterKey('bbo', d.iid), filterValue(d, bboValue), 'bbo')
    if (verdict === 'hold') return t.touchRenewed?.(d.iid)
    routeBy(t, verdict, d.iid, { type: 'BBO', bbo: bboForStrategy(d), receivedAt: t.now() })
  },
  // Once a minute for every instrument, and each one plans: after the pushes in hand.
  statistics: (p, t) => {
    if (!t.traded.has(p.data.iid)) return
    const statistics = statisticsFromPush(p.data, t.klinesKept)
    ;(t.defer ?? t.route)([p.data.iid], { type: 'STATISTICS', statistics, receivedAt: t.now() })
  },
  // Pushed every second: only a changed margin or position is routed (`routePortfolio`), a
  // liquidation at once, the rest after the pushes in hand.
  portfolio: (p, t) => {
    t.account.observePortfolio(p.data)
    routePortfolio(
      p.data,
      t.traded,
      t.now(),
      (key, value) => verdictOf(t, key, value, 'margin'),
      (id, event) => (event.margin.inLiquidation ? t.route : (t.defer ?? t.route))([id], event),
    )
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

/** The portfolio's event to an instrument's actor. */
export type AccountEvent = Extract<RoutedEvent, { type: 'ACCOUNT' }>

/**
 * The portfolio's ACCOUNT events (a stream push or a poll), one per instrument in `ids` whose margin
 * or position changed, or whose refresh is due (`classify`, the change filter under the `margin` kind).
 * The margin counts as changed when the account value moved in its first MARGIN_KEY_FIGURES
 * significant figures or a margin total by 1e-4 of the account value (`marginShares`): any order's
 * reprice changes the initial margin by a few millionths, and an exact key sent every instrument an
 * event every second (1,000 at 1,000 instruments on the stream: most of the bot's allocation and its
 * scavenges; every poll, each instrument re-planning, in the simulated day: issue 36). A position's
 * liquidation price counts by its leading figures too, a margin number (a cross-margin account's moves
 * with every mark); its size and entry are exact. The event carries the exact figures; an unchanged
 * margin only renews its age in the filter (`botChangeFilter`: silent), so the actor's exact figures
 * are those of the last change in the key (the margin ratio within about 1e-4 of the venue's).
 */
export function routePortfolio(
  p: Portfolio,
  ids: Iterable<number>,
  at: number,
  classify: (key: string, value: string) => FilterVerdict,
  emit: (id: number, event: AccountEvent) => void,
): void {
  const margin = marginForStrategy(p)
  const marginKey = `${coarse(margin.accountValue)}|${marginShares(margin.accountValue, margin.initialMargin, margin.maintenanceMargin)}|${margin.inLiquidation}`
  // Each instrument's positions looked up once (a scan per instrument is quadratic at 1,000).
  const byId = new Map<number, Portfolio['positions']>()
  for (const x of p.positions) byId.set(x.instrument_id, [...(byId.get(x.instrument_id) ?? []), x])
  // The value of every instrument without a position, built once (not once per instrument).
  const flatValue = `${marginKey}|`
  for (const id of ids) {
    const own = byId.get(id)
    const position = own === undefined ? undefined : positionForStrategy({ ...p, positions: own }, id)
    const value =
      position === undefined
        ? flatValue
        : `${flatValue}${position.size}|${position.entryPrice}|${coarse(position.liquidationPrice)}`
    if (classify(filterKey('margin', id), value) === 'hold') continue
    emit(id, { type: 'ACCOUNT', margin, position, receivedAt: at })
  }
}

/**
 * `createChangeFilter`'s answer: the boolean form, `classify` telling a new value from a refresh, and
 * `seenAt`, the input ages it keeps (the instrument actors read them as their `InputAges`).
 */
export interface ChangeFilter extends InputAges {
  (key: string, value: string, kind: FilterKind): boolean
  classify(key: string, value: string, kind: FilterKind): FilterVerdict
  /** Forgets an instrument's values (its actor restarted with none): their next pushes are new. */
  forget(id: number): void
}

const KEY_PREFIX: Readonly<Record<FilterKind, string>> = { index: 'i', bbo: 'b', margin: 'a' }
/**
 * Keys made so far, per kind: the routes ask for one per push (3,000 a second at 1,000 instruments),
 * and a key made once is also hashed once. Bounded by the instruments ever routed (pushes for others
 * are dropped before they ask).
 */
const KEYS: Readonly<Record<FilterKind, Map<number, string>>> = {
  index: new Map(),
  bbo: new Map(),
  margin: new Map(),
}

/** The change filter's key of an instrument's input (one fact: the routes and `seenAt` both use it). */
export function filterKey(kind: FilterKind, id: number): string {
  const keys = KEYS[kind]
  let key = keys.get(id)
  if (key === undefined) {
    key = `${KEY_PREFIX[kind]}${id}`
    keys.set(id, key)
  }
  return key
}

/**
 * Which pushes are worth an actor event: every ticker and BBO of every instrument is pushed each
 * second, and at 1,000 instruments an event each is most of the bot's time, so an unchanged value is
 * routed again only when its refresh is due (keeping the input's age well inside its staleness bound).
 * `margin` (the portfolio's ACCOUNT events) refreshes as often as the index unless given.
 *
 * Kinds in `silent` are not refreshed by events: an unchanged push only renews the time the filter
 * last saw it (`seenAt`, which the actors read when they judge the input's age), and it is routed
 * again only after a silence of at least its refresh period (so an actor that judged it stale gets an
 * event, and re-plans, when the feed comes back). The index is never silent: the price guard counts
 * the repeats of a jumped index as its confirmations (`screenIndex`).
 */
export function createChangeFilter(
  now: () => number,
  refreshMs: { index: number; bbo: number; margin?: number | undefined },
  silent: readonly Exclude<FilterKind, 'index'>[] = [],
): ChangeFilter {
  const every: Record<FilterKind, number> = { ...refreshMs, margin: refreshMs.margin ?? refreshMs.index }
  const quiet: Record<FilterKind, boolean> = {
    index: false,
    bbo: silent.includes('bbo'),
    margin: silent.includes('margin'),
  }
  // `at`: when last routed, or for a silent kind when last seen (changed or not).
  const last = new Map<string, { value: string; at: number }>()
  const classify = (key: string, value: string, kind: FilterKind): FilterVerdict => {
    const t = now()
    const seen = last.get(key)
    if (seen !== undefined && seen.value === value) {
      const due = t - seen.at >= every[kind]
      if (due || quiet[kind]) seen.at = t
      return due ? 'refresh' : 'hold'
    }
    last.set(key, { value, at: t })
    return 'new'
  }
  const filter = (key: string, value: string, kind: FilterKind): boolean =>
    classify(key, value, kind) !== 'hold'
  const seenAt = (kind: AgedInput, id: number): number | undefined =>
    quiet[kind] ? last.get(filterKey(kind, id))?.at : undefined
  const forget = (id: number): void => {
    for (const kind of FILTER_KINDS) last.delete(filterKey(kind, id))
  }
  return Object.assign(filter, { classify, seenAt, forget })
}

/**
 * How often an unchanged BBO is routed again: a third of the 5 s a strategy trusts a best bid/offer by
 * default (`maxBboAgeMs`), as the index refreshes at a third of `quoting.staleIndexMs`.
 */
export const BBO_REFRESH_MS = 1_500

/**
 * The bot's change filter: unchanged indices are refreshed at a third of their staleness bound; the
 * BBO and the margin are silent (their ages renewed in the filter, read by the actors through
 * `InputAges`), routed again unchanged only after a silence of `BBO_REFRESH_MS` or a third of
 * `staleMarginMs` (10 s by default; the index's third when not given).
 */
export function botChangeFilter(
  now: () => number,
  quoting: { staleIndexMs: number; staleMarginMs?: number | undefined },
): ChangeFilter {
  return createChangeFilter(
    now,
    {
      index: Math.floor(quoting.staleIndexMs / 3),
      bbo: BBO_REFRESH_MS,
      margin: quoting.staleMarginMs === undefined ? undefined : Math.floor(quoting.staleMarginMs / 3),
    },
    ['bbo', 'margin'],
  )
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
