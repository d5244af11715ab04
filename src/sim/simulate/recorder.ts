/**
 * Records a run in bounded memory: the mock's ground truth (every trade from its hook, liquidations
 * included; the resting orders, index prices and the account read at each sample) and the bot's
 * status (instrument states and reasons, limiter weights, alerts). Series sit on a regular
 * virtual-time grid that coarsens as the run grows (downsample.ts). Our bid and ask are the orders
 * resting on the mock's book at the sample, read there (an order tracked from change notifications
 * outlived its cancel: issue 33).
 */
import type { Alert } from '../../alerts/alert.ts'
import { MarketMakingAnalytics } from '../../analytics/marketMaking.ts'
import type { InstrumentState } from '../../bot/observe/statusView.ts'
import { fillSide } from '../../format/units.ts'
import type { PerpsExchange } from '../../mock/perps/index.ts'
import type { BotStatus } from '../../ops/status.ts'
import type { Order, OrderDataWire } from '../../perps/schemas/orders.ts'
import type { FillItem } from '../../perps/stream/pushSchemas.ts'
import { EventSample, Series } from './downsample.ts'
import type { AlertRow, FillPoint, FillTotals, SimMeta, SimRecord } from './model.ts'
import { maxDrawdown, StateTimer } from './summary.ts'

/** Points per series before it is thinned; fills kept per instrument; alert rows kept. */
export const SERIES_CAP = 1_500
export const FILLS_CAP = 2_000
export const ALERTS_CAP = 500
/** Instrument states are sampled this often (virtual ms) for the time-quoting / time-halted figures. */
export const STATE_SAMPLE_MS = 5_000
/** The venue's statuses of an order that rests on the book. */
const OPEN_STATUSES = new Set(['accepted', 'open', 'partial'])

interface Tracked {
  symbol: string
  id: number
  asset: string
  series: Series
  fills: EventSample<FillPoint>
  totals: FillTotals
  timer: StateTimer
}

/** What the recorder reads of the bot's status (`BotStatus` has it; the fast backtest engine builds its own). */
export interface RecordedStatus {
  limiter: Pick<BotStatus['limiter'], 'budgets'>
  instruments: readonly InstrumentState[]
}

export interface Recorder {
  /** The account to follow, once the bot has registered it (events before are buffered). */
  follow(owner: string): void
  /**
   * Samples what is due at `now` (call after every clock step): instrument states every
   * `STATE_SAMPLE_MS` from `states`, the charts' series with the limiter's `budgets` (both cheap reads,
   * not the whole status).
   */
  sample(
    now: number,
    read: { states: () => readonly InstrumentState[]; budgets: () => RecordedStatus['limiter']['budgets'] },
  ): void
  alert(a: Alert): void
  /** An instrument's mid after the market step at `t` (the mock's market tap): markouts, fill rate. */
  price(iid: number, t: number, mid: number): void
  finish(now: number, status: RecordedStatus): SimRecord
  dispose(): void
}

/** What the recorder reads of the mock exchange. */
export type RecordedExchange = Pick<
  PerpsExchange,
  'instrumentSpecs' | 'onTrade' | 'onOrderChange' | 'funding' | 'accountOf' | 'tickers'
>

export function createRecorder(o: {
  exchange: RecordedExchange
  meta: Omit<SimMeta, 'endMs'>
  /** Finest chart grid, virtual ms. */
  stepMs: number
}): Recorder {
  const { exchange } = o
  const tracked = new Map<number, Tracked>()
  for (const spec of exchange.instrumentSpecs()) {
    tracked.set(spec.id, {
      symbol: spec.symbol,
      id: spec.id,
      asset: spec.baseAsset,
      series: new Series(o.stepMs, SERIES_CAP),
      fills: new EventSample<FillPoint>(FILLS_CAP),
      totals: { fills: 0, makerFills: 0, volume: 0, realizedPnl: 0, fees: 0 },
      timer: new StateTimer(),
    })
  }
  const account = new Series(o.stepMs, SERIES_CAP)
  const weights = new Series(o.stepMs, SERIES_CAP)
  const alerts: AlertRow[] = []
  let alertsTotal = 0
  let funding = 0
  let fundingSince = 0
  let unrealized = 0
  let owner: string | undefined
  let pending: (() => void)[] | undefined = []
  let nextStateAt = 0
  const analytics = new MarketMakingAnalytics(new Map([...tracked.values()].map((t) => [t.id, t.symbol])))

  const onFill = (who: string, f: FillItem): void => {
    const apply = (): void => {
      if (who !== owner) return
      const t = tracked.get(f.iid)
      if (!t) return
      const price = Number(f.p)
      const qty = Number(f.qty)
      t.totals.fills += 1
      if (!f.taker) t.totals.makerFills += 1
      t.totals.volume += Math.abs(price * qty)
      t.totals.realizedPnl += Number(f.pnl)
      t.totals.fees += Number(f.fee)
      // The venue's sides are `long`/`short` (not `buy`/`sell`).
      const buy = fillSide(f.side) === 'buy'
      t.fills.add({ t: f.ts, price, qty, buy, maker: !f.taker })
      analytics.fill({ iid: f.iid, t: f.ts, price, qty: Math.abs(qty), buy, fee: Number(f.fee) })
    }
    if (pending) pending.push(apply)
    else apply()
  }
  // Every trade on the account, a liquidation's too (the `fills` push leaves those out).
  const offFill = exchange.onTrade(onFill)
  // Where our orders rest, for the analytics' fill rate against distance from mid (the mock tells its
  // listeners after each change, so a closed order is never seen resting). The chart reads the book.
  const onOrder = (who: string, oid: number, order: () => Order): void => {
    const apply = (): void => {
      if (who !== owner) return
      const o = order()
      const rests = OPEN_STATUSES.has(o.status) && Number(o.rest) > 0
      analytics.quote(o.iid, oid, rests ? { buy: o.buy, price: Number(o.p) } : undefined)
    }
    if (pending) pending.push(apply)
    else apply()
  }
  const offOrder = exchange.onOrderChange(onOrder)

  /** Our best resting bid and ask per instrument, from the book as it stands. */
  const bestQuotes = (
    resting: readonly OrderDataWire[],
  ): Map<number, { bid: number | null; ask: number | null }> => {
    const out = new Map<number, { bid: number | null; ask: number | null }>()
    for (const q of resting) {
      if (!(Number(q.resting_quantity) > 0)) continue
      const price = Number(q.price)
      const b = out.get(q.instrument_id) ?? { bid: null, ask: null }
      if (q.buy) b.bid = b.bid === null ? price : Math.max(b.bid, price)
      else b.ask = b.ask === null ? price : Math.min(b.ask, price)
      out.set(q.instrument_id, b)
    }
    return out
  }

  const readFunding = (): void => {
    if (owner === undefined) return
    for (let i = 0; i < 1_000; i++) {
      const page = exchange.funding(owner, { startTimestamp: fundingSince })
      for (const f of page.data) {
        funding += Number(f.funding)
        fundingSince = Math.max(fundingSince, f.timestamp + 1)
      }
      if (!page.more || page.data.length === 0) break
    }
  }

  const sampleStates = (now: number, states: readonly InstrumentState[]): void => {
    for (const i of states) tracked.get(i.id)?.timer.observe(now, i.state, i.reason)
  }

  const sampleSeries = (now: number, budgets: RecordedStatus['limiter']['budgets'], force = false): void => {
    const view = owner === undefined ? undefined : exchange.accountOf(owner)
    readFunding()
    const positions = new Map<number, number>()
    unrealized = 0
    for (const p of view?.portfolio.positions ?? []) {
      positions.set(p.instrument_id, Number(p.size))
      unrealized += Number(p.unrealized_pnl)
    }
    const index = new Map(exchange.tickers().map((t) => [t.instrument_id, Number(t.index_price)]))
    const best = bestQuotes(view?.openOrders ?? [])
    let realized = 0
    let fees = 0
    for (const t of tracked.values()) {
      realized += t.totals.realizedPnl
      fees += t.totals.fees
      const q = best.get(t.id)
      t.series.push(
        now,
        [index.get(t.id) ?? null, q?.bid ?? null, q?.ask ?? null, positions.get(t.id) ?? 0],
        force,
      )
    }
    const margin = view?.portfolio.margin
    const value = Number(margin?.total_account_value ?? 0)
    const ratio = value > 0 ? Number(margin?.total_maintenance_margin ?? 0) / value : null
    account.push(
      now,
      [realized + unrealized - fees - funding, realized, unrealized, fees, funding, ratio],
      force,
    )
    weights.push(
      now,
      [
        budgets.request?.used ?? null,
        budgets.request?.capacity ?? null,
        budgets.action?.used ?? null,
        budgets.action?.capacity ?? null,
      ],
      force,
    )
  }

  return {
    follow(who) {
      owner = who
      const queued = pending ?? []
      pending = undefined
      for (const apply of queued) apply()
    },
    sample(now, read) {
      if (now >= nextStateAt) {
        sampleStates(now, read.states())
        nextStateAt = (Math.floor(now / STATE_SAMPLE_MS) + 1) * STATE_SAMPLE_MS
      }
      if (account.wants(now)) sampleSeries(now, read.budgets())
    },
    alert(a) {
      alertsTotal += 1
      if (alerts.length < ALERTS_CAP)
        alerts.push({
          t: a.at,
          level: a.severity,
          kind: a.key,
          title: a.title,
          resolved: a.resolved === true,
        })
    },
    price(iid, t, mid) {
      if (owner !== undefined) analytics.price(iid, t, mid)
    },
    finish(now, status) {
      sampleStates(now, status.instruments)
      sampleSeries(now, status.limiter.budgets, true)
      const accountPoints = account.points()
      const pnl = accountPoints.map((p) => ({ t: p.t, v: p.v[0] ?? 0 }))
      const marketMaking = analytics.finish({
        pnl,
        maxDrawdown: maxDrawdown(pnl.map((p) => p.v)),
        positions: [...tracked.values()].map((t) =>
          t.series.points().map((p) => ({ t: p.t, q: p.v[3] ?? 0 })),
        ),
      })
      return {
        meta: { ...o.meta, endMs: now },
        instruments: [...tracked.values()].map((t) => ({
          symbol: t.symbol,
          id: t.id,
          series: t.series.points(),
          fills: t.fills.items(),
          fillStride: t.fills.stride,
          totals: { ...t.totals },
          time: t.timer.timesUntil(now),
        })),
        account: accountPoints,
        weights: weights.points(),
        marketMaking,
        alerts,
        alertsTotal,
        funding,
        unrealizedPnl: unrealized,
        currency: exchange.instrumentSpecs()[0]?.quoteAsset,
      }
    },
    dispose() {
      offFill()
      offOrder()
    },
  }
}
