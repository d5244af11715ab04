/**
 * What an operator sees, from each part's snapshot: `/status`, `/readyz`, each instrument's state and
 * the inputs of a timeline sample. The parts are read through the small interfaces below (declared
 * here, by the reader), so observing needs nothing of a part but its `snapshot()`/`state()`.
 */
import type { Alert } from '../../alerts/alert.ts'
import type { OpenEpisode } from '../../alerts/episodes.ts'
import type { BotMode, BotStatus, LimiterStatus } from '../../ops/status.ts'
import type { WeightLimiterState } from '../../perps/throttle/weightLimiter.ts'
import type { AccountWatchSnapshot } from '../account/accountWatch.ts'
import type { PnlSnapshot } from '../account/pnlLedger.ts'
import type { InputGatesSnapshot } from '../inputs/inputGates.ts'
import type { StreamsHealth } from '../inputs/streams/botStreams.ts'
import type { BatcherState } from '../orders/batcher.ts'
import type { ModifyCapabilityState } from '../orders/modifyCapability.ts'
import {
  buildReadiness,
  buildStatus,
  currencyOf,
  type InstrumentState,
  type InstrumentView,
  instrumentBasics,
  limiterBudgets,
  type StatusInputs,
} from './statusView.ts'
import type { TimelineInputs } from './timelineSample.ts'

/** The parts as the views read them. */
export interface ObservedParts {
  mode: BotMode
  startedAt: number
  /** The proxy key in use: read at each view, so a rotation shows at once. */
  proxy: { readonly address: string }
  clock: { now(): number }
  venueClock: { now(): number; readonly offsetMs: number }
  actors: {
    readonly instruments: readonly { id: number; symbol: string; strategy: string; quoteAsset?: string }[]
    snapshotOf(id: number): InstrumentView['actor']
  }
  account: { snapshot(): AccountWatchSnapshot; pnl(): PnlSnapshot; readonly fundingCharges: number }
  openOrders: { snapshot(): { orders: readonly unknown[]; reconciledAt: number | undefined } }
  deadMan: { state(): StatusInputs['deadManSwitch'] } | undefined
  limiter: { state(): WeightLimiterState }
  orders: { batcher: { state(): BatcherState }; modify: { state(): ModifyCapabilityState } }
  pollerHealth: { counts(): Record<string, number> }
  gates: { snapshot(): InputGatesSnapshot }
  streams: { health(): StreamsHealth } | undefined
  alerts: { recent(): readonly Alert[]; open(): readonly OpenEpisode[] }
}

/** What the run's status line reads: each instrument's state, counts and the account, no whole status. */
export interface BotSummary {
  instruments: readonly InstrumentState[]
  /** Orders in the open-order book (ours and foreign). */
  openOrders: number
  marginRatio: number | undefined
  /** The unit of the PnL (the instruments' quote asset). */
  currency: string | undefined
  pnl: PnlSnapshot['account']
}

export interface BotViews {
  status(): BotStatus
  /** The cheap part of the status for the run's status line (at 1,000 instruments `status()` held the thread 14-18 ms). */
  summary(): BotSummary
  ready(): { ok: boolean; reasons: string[] }
  /** Each instrument's state and reason only: the cheap part of `status()` (the simulator samples it). */
  instrumentStates(): readonly InstrumentState[]
  /** The limiter's budgets only, as `status().limiter.budgets` (the simulator charts them). */
  limiterBudgets(): LimiterStatus['budgets']
  /** What a timeline sample reads, and no more (the whole status inputs copy the open-order book too). */
  timelineInputs(): TimelineInputs
  /** Liveness for `/livez`: false once the stop began. */
  live(): { ok: boolean; reason: string }
  markStopping(): void
}

export function createBotViews(p: ObservedParts): BotViews {
  let stopping = false
  const instruments = (): InstrumentView[] =>
    p.actors.instruments.map((i) => ({ ...i, actor: p.actors.snapshotOf(i.id) }))
  const inputs = (): StatusInputs => {
    const book = p.openOrders.snapshot()
    return {
      mode: p.mode,
      startedAt: p.startedAt,
      now: p.clock.now(),
      venueNow: p.venueClock.now(),
      stopping,
      instruments: instruments(),
      account: p.account.snapshot(),
      pnl: p.account.pnl(),
      proxyAddress: p.proxy.address,
      fundingCharges: p.account.fundingCharges,
      openOrders: book.orders.length,
      reconciledAt: book.reconciledAt,
      clockOffsetMs: p.venueClock.offsetMs,
      deadManSwitch: p.deadMan?.state(),
      limiter: p.limiter.state(),
      batcher: p.orders.batcher.state(),
      modify: p.orders.modify.state(),
      feedErrors: p.pollerHealth.counts(),
      inputs: p.gates.snapshot(),
      stream: p.streams?.health(),
      alerts: p.alerts.recent(),
    }
  }
  const instrumentStates = (): InstrumentState[] =>
    p.actors.instruments.map((i) => {
      const b = instrumentBasics({ ...i, actor: p.actors.snapshotOf(i.id) })
      return { id: i.id, symbol: i.symbol, state: b.state, reason: b.reason }
    })
  return {
    status: () => buildStatus(inputs()),
    summary: () => ({
      instruments: instrumentStates(),
      openOrders: p.openOrders.snapshot().orders.length,
      marginRatio: p.account.snapshot().marginRatio,
      currency: currencyOf(p.actors.instruments),
      pnl: p.account.pnl().account,
    }),
    ready: () => buildReadiness(inputs()),
    instrumentStates,
    limiterBudgets: () => limiterBudgets(p.limiter.state()),
    timelineInputs: () => ({
      mode: p.mode,
      now: p.clock.now(),
      venueNow: p.venueClock.now(),
      instruments: instruments(),
      alerts: p.alerts.recent(),
      openEpisodes: p.alerts.open(),
      account: p.account.snapshot(),
      pnl: p.account.pnl(),
      limiter: p.limiter.state(),
    }),
    live: () => ({ ok: !stopping, reason: stopping ? 'stopping' : 'running' }),
    markStopping: () => {
      stopping = true
    },
  }
}
