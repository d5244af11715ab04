/**
 * The bot's `/status` and `/readyz` as pure functions of the parts' snapshots: the composition root
 * gathers the snapshots, these build the views. Nothing here reads a clock or an actor itself.
 */
import type { Alert } from '../../alerts/alert.ts'
import { formatStatePath, type StateValueLike } from '../../ops/metrics.ts'
import type { BotMode, BotStatus, InstrumentStatus, LimiterStatus } from '../../ops/status.ts'
import type { WeightLimiterState } from '../../perps/throttle/weightLimiter.ts'
import type { AccountWatchSnapshot } from '../account/accountWatch.ts'
import type { InstrumentPnl, PnlSnapshot } from '../account/pnlLedger.ts'
import type { InputGatesSnapshot } from '../inputs/inputGates.ts'
import type { StreamsHealth } from '../inputs/streams/botStreams.ts'
import {
  currentBbo,
  degradations,
  type InstrumentContext,
  instrumentStateValue,
} from '../instrument/instrument.machine.ts'
import type { BatcherState } from '../orders/batcher.ts'
import type { ModifyCapabilityState } from '../orders/modifyCapability.ts'

/** One instrument as the status sees it: its config and its actor's snapshot (none once stopped). */
export interface InstrumentView {
  id: number
  symbol: string
  strategy: string
  /** The currency its prices and PnL are quoted in (e.g. "USDC"). */
  quoteAsset?: string | undefined
  actor: { value: StateValueLike; context: InstrumentContext } | undefined
}

/** The unit of the account's amounts: the instruments' quote asset (they share one on this venue). */
export const currencyOf = (instruments: readonly { quoteAsset?: string | undefined }[]): string | undefined =>
  instruments.find((i) => i.quoteAsset !== undefined)?.quoteAsset

export interface StatusInputs {
  mode: BotMode
  startedAt: number
  /** Base clock now. */
  now: number
  /** Venue-corrected now (quote ages). */
  venueNow: number
  stopping: boolean
  instruments: readonly InstrumentView[]
  account: AccountWatchSnapshot
  pnl: PnlSnapshot
  proxyAddress: string
  fundingCharges: number
  openOrders: number
  reconciledAt: number | undefined
  clockOffsetMs: number
  deadManSwitch: { armed: boolean; deadline: number | undefined; failures: number } | undefined
  limiter: WeightLimiterState
  batcher: BatcherState
  /** How reprices go out (absent: modifies). */
  modify?: ModifyCapabilityState | undefined
  feedErrors: Record<string, number>
  /** Per streamed input: from the stream or polling, and why. */
  inputs?: InputGatesSnapshot | undefined
  /** The streams' health; absent when they are off. */
  stream?: StreamsHealth | undefined
  alerts: readonly Alert[]
}

/**
 * Each actor snapshot's state path, made once: a snapshot is immutable (a step makes a new one), and
 * an idle instrument's stays the same object from read to read. The gauges (every second), the
 * timeline (every 2 s) and `/status` each formatted it anew for every instrument (~1-2 µs each).
 */
const statePaths = new WeakMap<object, string>()

/** An instrument's state path as `/status` and the metrics show it (`stopped` without an actor). */
export function instrumentState(actor: InstrumentView['actor']): string {
  if (actor === undefined) return 'stopped'
  let path = statePaths.get(actor)
  if (path === undefined) {
    path = formatStatePath(instrumentStateValue(actor), ['ticker'])
    statePaths.set(actor, path)
  }
  return path
}

/** An instrument's state path and the reason for its risk mode (`RunningBot.instrumentStates`). */
export interface InstrumentState {
  id: number
  symbol: string
  state: string
  reason?: string | undefined
}

/** The cheap part of an instrument's status (the timeline samples it for every instrument). */
export function instrumentBasics(
  i: InstrumentView,
): Pick<InstrumentStatus, 'state' | 'reason' | 'mode' | 'openOrders'> {
  const ctx = i.actor?.context
  return {
    state: instrumentState(i.actor),
    reason: ctx?.assessment.reason ?? 'actor stopped',
    mode: ctx?.mode.mode ?? 'halted',
    openOrders: ctx?.openOrders.length ?? 0,
  }
}

export function instrumentStatus(i: InstrumentView, venueNow: number, pnl?: InstrumentPnl): InstrumentStatus {
  const ctx = i.actor?.context
  const last = ctx?.stats.lastSubmitAt
  return {
    symbol: i.symbol,
    id: i.id,
    ...instrumentBasics(i),
    strategy: i.strategy,
    lastQuoteAt: last,
    quoteAgeMs: last === undefined ? undefined : venueNow - last,
    stats: {
      plans: ctx?.stats.plans ?? 0,
      submitted: ctx?.stats.submitted ?? 0,
      rejected: ctx?.stats.rejected ?? 0,
      unknown: ctx?.stats.unknown ?? 0,
      strategyErrors: ctx?.stats.strategyErrors ?? 0,
    },
    degraded: ctx ? degradations(ctx.health).map((d) => `${d.cause}: ${d.reason}`) : [],
    details: {
      indexPrice: ctx?.index?.price ?? null,
      // The age of the index the actor would act on now (venue time): the inputs' freshness.
      indexAgeMs: ctx?.index ? venueNow - ctx.index.ts : null,
      // How long ago the book's touch arrived or was last pushed unchanged (null without a `bbo::{iid}`
      // subscription).
      bboAgeMs: ctx?.bbo ? venueNow - (currentBbo(ctx)?.receivedAt ?? ctx.bbo.receivedAt) : null,
      rejectBackoffMs: ctx?.backoffMs ?? 0,
    },
    ...(pnl ? { pnl } : {}),
  }
}

export function buildReadiness(s: StatusInputs): { ok: boolean; reasons: string[] } {
  const reasons: string[] = []
  if (s.stopping) reasons.push('stopping')
  if (s.reconciledAt === undefined) reasons.push('open orders not reconciled yet')
  for (const view of s.instruments) {
    const i = instrumentStatus(view, s.venueNow)
    if (i.state === 'syncing') reasons.push(`${i.symbol}: syncing`)
    else if (i.state.startsWith('halted') && /stale|no /.test(i.reason ?? ''))
      reasons.push(`${i.symbol}: ${i.reason}`)
    for (const d of i.degraded ?? []) reasons.push(`${i.symbol}: degraded (${d})`)
  }
  return { ok: reasons.length === 0, reasons }
}

/** The limiter's two budgets as `/status` shows them (`limiter.budgets`). */
export function limiterBudgets(l: WeightLimiterState): LimiterStatus['budgets'] {
  return {
    request: { used: l.request.used, capacity: l.request.limit, queued: l.queued.read + l.queued.quote },
    action: { used: l.action.used, capacity: l.action.limit, queued: l.queued.risk },
  }
}

export function buildStatus(s: StatusInputs): BotStatus {
  const l = s.limiter
  const b = s.batcher
  return {
    mode: s.mode,
    startedAt: s.startedAt,
    uptimeMs: s.now - s.startedAt,
    instruments: s.instruments.map((i) => instrumentStatus(i, s.venueNow, s.pnl.instruments[i.id])),
    account: {
      marginRatio: s.account.marginRatio,
      marginLevel: s.account.marginLevel,
      currency: currencyOf(s.instruments),
      inLiquidation: s.account.inLiquidation,
      pendingWithdrawals: s.account.pendingWithdrawals,
      pnl: s.pnl.account,
      updatedAt: s.account.portfolioAt,
      details: {
        proxy: s.proxyAddress,
        proxyExpiring: s.account.proxyExpiring,
        marginExhausted: s.account.marginExhausted,
        fundingCharges: s.fundingCharges,
        openOrders: s.openOrders,
        reconciledAt: s.reconciledAt ?? null,
        clockOffsetMs: s.clockOffsetMs,
        deadManSwitch: s.deadManSwitch ?? 'disabled',
      },
    },
    limiter: {
      budgets: limiterBudgets(l),
      backoffUntil: l.pausedUntil.request ?? l.pausedUntil.action,
      details: {
        breaker: l.breaker,
        // Risk work is held only by a 429 on risk work, for the venue's Retry-After.
        riskPausedUntil: l.riskPausedUntil.request ?? l.riskPausedUntil.action,
        exitSent: l.exitSent,
        rateLimited: l.rateLimited,
        // Action tokens counted as used because the venue's count of our signer's bucket was ahead of ours.
        venueCharged: l.venueCharged,
        openOrdersLimited: l.openOrdersLimited,
        queued: l.queued,
        batchesSent: b.batchesSent,
        itemsSent: b.itemsSent,
        unknownBatches: b.unknownBatches,
        reconciles: b.reconciles,
        modify: s.modify ?? { mode: 'modify' },
        feedErrors: s.feedErrors,
      },
    },
    alerts: s.alerts,
    ...(s.inputs ? { details: { inputs: s.inputs, stream: s.stream ?? 'off' } } : {}),
  }
}
