/**
 * The instrument actor's data: its dependencies, context, events and emitted events, the initial
 * context, and the pure reads of it (risk assessment, the strategy's snapshot).
 */

import type { Clock } from '../../clock.ts'
import { compareDecimal } from '../../decimal.ts'
import type { Logger } from '../../logging/logger.ts'
import type { RateLimitedLog } from '../../logging/rateLimitedLog.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type {
  OptionalInput,
  QuoteMode,
  StrategyBbo,
  StrategyCatalogue,
  StrategyIndex,
  StrategyInstrument,
  StrategyMargin,
  StrategyPosition,
  StrategySnapshot,
  StrategySnapshotBbo,
  StrategyStatistics,
} from '../../strategy/strategy.ts'
import { liquidationDistance } from '../account/marginRatio.ts'
import type { OrderPlan, WorkPriority } from '../quoting/orderPlan.ts'
import {
  assessRisk,
  type CurrentMode,
  type RiskAssessment,
  type RiskConfig,
  type RiskMode,
} from './assessRisk.ts'
import { type DegradeCause, healthyInstrument, type InstrumentHealth } from './health.ts'

export interface PriceGuardSettings {
  /** Largest accepted index move from the last accepted value, decimal fraction ("0" = no check). */
  maxIndexJump: string
  /** Bad observations in a row (strategy errors, plans with dropped quotes, rejected indices) that degrade. */
  degradeAfter: number
  /** The strategy's position cap, which the size guard holds the resting orders to (absent: none). */
  positionCap?: string | undefined
}

/** The inputs whose age a feed may renew without an event (`InputAges`). */
export type AgedInput = 'bbo' | 'margin'

/**
 * When a feed last delivered an instrument's input, changed or not: read-only, like the clock. The
 * stream routes renew an unchanged BBO's or margin's age here instead of sending the actor an event
 * (streamRoutes.ts `botChangeFilter`); the actor judges the input's age by the later of this and its
 * own receive time. Undefined: the feed keeps no age for it (the actor's own time stands).
 */
export interface InputAges {
  seenAt(kind: AgedInput, instrumentId: number): number | undefined
}

export interface InstrumentDeps {
  clock: Pick<Clock, 'now'>
  logger: Logger
  /** Strategy + diff for a snapshot. May throw (a strategy bug): the actor then keeps young orders. */
  plan: (snapshot: StrategySnapshot) => OrderPlan
  risk: RiskConfig
  /**
   * The longest a best bid/offer waits for a plan, the strategy's re-ask period when it names no
   * `revisitAt`, and the halted actor's re-assessment period.
   */
  recheckMs: number
  /**
   * When the strategy's answer for this snapshot may change by time alone (`ResolvedStrategy.revisitAt`);
   * undefined = never. Absent: `snapshot.now + recheckMs` (asked again every tick).
   */
  revisitAt?: ((snapshot: StrategySnapshot) => number | undefined) | undefined
  /**
   * The optional inputs whose change re-plans (`ResolvedStrategy.reads`); a change to another one is
   * only stored. Absent: every one.
   */
  reads?: ReadonlySet<OptionalInput> | undefined
  minRepriceIntervalMs: number
  /**
   * Pause after a rejected plan before planning again; doubles with each further rejected plan in a
   * row, up to `MAX_REJECT_BACKOFF_MS` (steps.ts); a plan without a rejection resets it.
   */
  rejectBackoffMs: number
  /** While the strategy fails, orders this old (since their last update) are cancelled; ≤ 0 never. */
  maxOrderAgeMs: number
  guard: PriceGuardSettings
  /** Input ages renewed without events (streams); absent: the events' receive times alone (backtest, polling). */
  ages?: InputAges | undefined
  /** Where the lines that repeat under a hostile venue go (one per kind per interval); absent: the logger. */
  repeated?: Pick<RateLimitedLog, 'log'> | undefined
}

export interface InstrumentInput {
  instrument: StrategyInstrument
  deps: InstrumentDeps
}

export interface InstrumentStats {
  plans: number
  submitted: number
  rejected: number
  /** Orders found gone (filled or cancelled) when we tried to change them. */
  gone: number
  unknown: number
  strategyErrors: number
  /** Creates and modifies the price guard dropped. */
  quotesDropped: number
  /** Index updates rejected as implausible or jumped. */
  indexRejected: number
  lastSubmitAt: number | undefined
}

export interface InstrumentContext {
  instrument: StrategyInstrument
  deps: InstrumentDeps
  index: StrategyIndex | undefined
  indexAt: number | undefined
  /** A jumped index being confirmed (see `screenIndex`). */
  indexCandidate: { price: string; count: number } | undefined
  statistics: StrategyStatistics | undefined
  statisticsAt: number | undefined
  margin: StrategyMargin | undefined
  marginAt: number | undefined
  position: StrategyPosition | undefined
  openOrders: Order[]
  ordersAt: number | undefined
  catalogue: StrategyCatalogue | undefined
  /** The last best bid/offer with its receive time, handed to the strategy as is (it judges the age). */
  bbo: StrategySnapshotBbo | undefined
  breakerOpen: boolean
  /** Why the instrument is held halted from outside (an operator's pause, a protection); undefined: not held. */
  held: string | undefined
  assessment: RiskAssessment & { transient: boolean }
  mode: CurrentMode
  /** Inputs changed since the last plan. */
  dirty: boolean
  pendingPlan: OrderPlan | undefined
  pendingPriority: WorkPriority
  /** The pending plan came from time alone (a tick, no input changed): it may wait to share a batch. */
  pendingLazy: boolean
  /** The sequence number of the last plan sent to the submitter (0: none yet). */
  planSeq: number
  /**
   * The sequence number of the plan with the submitter, not answered yet (undefined: none). While it
   * is set in `active`, the state path shows `repricing` (`instrumentStateValue`).
   */
  planInFlight: number | undefined
  lastPlanAt: number
  /** When the last plan's strategy answer may change by time alone (see `timeDue.ts`); undefined = never. */
  revisitAt: number | undefined
  /** When the first best bid/offer since the last plan arrived; undefined when none waits. */
  bboPendingSince: number | undefined
  /**
   * When the deferred plan is due (end of the reprice interval or of a backoff, or a quote's maximum
   * age while the strategy fails); undefined when none is.
   */
  deferredAt: number | undefined
  /**
   * When the actor's delayed `WAKE` is scheduled: `deferredAt` or the next moment time alone matters
   * (`nextTimeDue`), whichever comes first. Undefined when none is.
   */
  planDueAt: number | undefined
  backoffUntil: number
  /** The current pause after rejected plans (0 = none). */
  backoffMs: number
  /** Plans in a row with a rejected item or a failed submission (the backoff's exponent). */
  rejectStreak: number
  /** Degradation episodes (see `health.ts`; `degradations()` lists the open ones). */
  health: InstrumentHealth
  stats: InstrumentStats
}

/** The inputs a step stores, re-assesses risk on and plans on (`inputStep`). */
export type InstrumentInputEvent =
  | { type: 'INDEX'; index: StrategyIndex; receivedAt: number }
  | { type: 'STATISTICS'; statistics: StrategyStatistics; receivedAt: number }
  | { type: 'ACCOUNT'; margin: StrategyMargin; position: StrategyPosition | undefined; receivedAt: number }
  | { type: 'ORDERS'; orders: Order[]; receivedAt: number }
  | { type: 'CATALOGUE'; catalogue: StrategyCatalogue }
  | { type: 'BREAKER'; open: boolean }
  /** Held halted (orders cancelled) for `reason` until a HOLD without one (src/bot/control/holds.ts). */
  | { type: 'HOLD'; reason: string | undefined }

export type InstrumentEvent =
  | InstrumentInputEvent
  /**
   * Several inputs of one moment (the backtest's polls due at the same virtual time): stored in
   * order, then one re-assessment and one plan, as if they had arrived together (`inputsStep`).
   */
  | { type: 'INPUTS'; inputs: readonly InstrumentInputEvent[] }
  /** The book's touch (`bboForStrategy` of a `bbo::{iid}` push); stored only, never a plan by itself. */
  | { type: 'BBO'; bbo: StrategyBbo; receivedAt: number }
  /** New strategy parameters (`perpbot reload`): the plan function and its guards, planned at once. */
  | { type: 'RECONFIGURE'; deps: InstrumentDeps }
  | { type: 'STOP' }
  /** Internal (a delayed self-event): a deferred plan is due. */
  | { type: 'WAKE' }
  /**
   * Internal (raised by a step): the context asks for another state (a risk mode the state is not in,
   * a plan to send). In place of `always` transitions, which xstate checks after every event.
   */
  | { type: 'SETTLE' }

/**
 * Alerts, emitted once per episode (and sent to the parent, which re-emits them): `degraded` when
 * an episode opens, `recovered` when it closes.
 */
export type InstrumentEmitted =
  | {
      type: 'degraded'
      instrumentId: number
      symbol: string
      cause: DegradeCause
      reason: string
      at: number
    }
  | {
      type: 'recovered'
      instrumentId: number
      symbol: string
      cause: DegradeCause
      /** When the episode opened. */
      since: number
      at: number
    }

/**
 * The context an actor starts with. Returned as a spread: the spread builds the context's layout as
 * V8 map transitions from the empty object, which xstate's copy at every assign
 * (`Object.assign({}, context, update)`) then follows. Without such a path V8 turns each copy (20 or
 * more fields added one by one) into a dictionary object, several times slower to copy and to read
 * (bench/machineStep.bench.ts prints whether the context stays fast).
 */
export function initialContext(input: InstrumentInput): InstrumentContext {
  const fields: InstrumentContext = {
    instrument: input.instrument,
    deps: input.deps,
    index: undefined,
    indexAt: undefined,
    indexCandidate: undefined,
    statistics: undefined,
    statisticsAt: undefined,
    margin: undefined,
    marginAt: undefined,
    position: undefined,
    openOrders: [],
    ordersAt: undefined,
    catalogue: undefined,
    bbo: undefined,
    breakerOpen: false,
    held: undefined,
    assessment: { mode: 'halted', reason: 'syncing', transient: true },
    mode: { mode: 'halted', since: input.deps.clock.now(), transient: true },
    dirty: true,
    pendingPlan: undefined,
    pendingPriority: 'quote',
    pendingLazy: false,
    planSeq: 0,
    planInFlight: undefined,
    lastPlanAt: Number.NEGATIVE_INFINITY,
    revisitAt: undefined,
    bboPendingSince: undefined,
    deferredAt: undefined,
    planDueAt: undefined,
    backoffUntil: 0,
    backoffMs: 0,
    rejectStreak: 0,
    health: healthyInstrument(),
    stats: {
      plans: 0,
      submitted: 0,
      rejected: 0,
      gone: 0,
      unknown: 0,
      strategyErrors: 0,
      quotesDropped: 0,
      indexRejected: 0,
      lastSubmitAt: undefined,
    },
  }
  return { ...fields }
}

/**
 * A copy of the context with `update` stored over it. Every field is listed so the copy has one shape
 * (a spread of a 35-field object through a megamorphic site cost more than the plan it feeds on the
 * input → transport path); adding a field to `InstrumentContext` without copying it fails to compile.
 */
export function withUpdate(
  ctx: InstrumentContext,
  update: Partial<InstrumentContext> | undefined,
): InstrumentContext {
  const c: InstrumentContext = {
    instrument: ctx.instrument,
    deps: ctx.deps,
    index: ctx.index,
    indexAt: ctx.indexAt,
    indexCandidate: ctx.indexCandidate,
    statistics: ctx.statistics,
    statisticsAt: ctx.statisticsAt,
    margin: ctx.margin,
    marginAt: ctx.marginAt,
    position: ctx.position,
    openOrders: ctx.openOrders,
    ordersAt: ctx.ordersAt,
    catalogue: ctx.catalogue,
    bbo: ctx.bbo,
    breakerOpen: ctx.breakerOpen,
    held: ctx.held,
    assessment: ctx.assessment,
    mode: ctx.mode,
    dirty: ctx.dirty,
    pendingPlan: ctx.pendingPlan,
    pendingPriority: ctx.pendingPriority,
    pendingLazy: ctx.pendingLazy,
    planSeq: ctx.planSeq,
    planInFlight: ctx.planInFlight,
    lastPlanAt: ctx.lastPlanAt,
    revisitAt: ctx.revisitAt,
    bboPendingSince: ctx.bboPendingSince,
    deferredAt: ctx.deferredAt,
    planDueAt: ctx.planDueAt,
    backoffUntil: ctx.backoffUntil,
    backoffMs: ctx.backoffMs,
    rejectStreak: ctx.rejectStreak,
    health: ctx.health,
    stats: ctx.stats,
  }
  if (update !== undefined) Object.assign(c, update)
  return c
}

/** The later of `at` (the actor's own receive time) and the feed's renewal; undefined while `at` is. */
function renewed(ctx: InstrumentContext, kind: AgedInput, at: number | undefined): number | undefined {
  if (at === undefined) return undefined
  const seen = ctx.deps.ages?.seenAt(kind, ctx.instrument.id)
  return seen !== undefined && seen > at ? seen : at
}

/** When the margin was last known current: its event's receive time, or a later unchanged push's. */
export const marginSeenAt = (ctx: InstrumentContext): number | undefined =>
  renewed(ctx, 'margin', ctx.marginAt)

/** The stored best bid/offer with the age the feed renewed (`InputAges`). */
export function currentBbo(ctx: InstrumentContext): StrategySnapshotBbo | undefined {
  const bbo = ctx.bbo
  if (bbo === undefined) return undefined
  const at = renewed(ctx, 'bbo', bbo.receivedAt)
  return at === bbo.receivedAt ? bbo : { bid: bbo.bid, ask: bbo.ask, receivedAt: at ?? bbo.receivedAt }
}

/** Whether the strategy reads this optional input (`InstrumentDeps.reads`; every one when absent). */
export const reads = (ctx: InstrumentContext, input: OptionalInput): boolean =>
  ctx.deps.reads?.has(input) ?? true

/** Every input the actor needs before it quotes: statistics only for a strategy that reads them. */
export const hasAllInputs = (ctx: InstrumentContext): boolean =>
  ctx.indexAt !== undefined &&
  (ctx.statisticsAt !== undefined || !reads(ctx, 'statistics')) &&
  ctx.marginAt !== undefined &&
  ctx.ordersAt !== undefined

export function assess(ctx: InstrumentContext): RiskAssessment & { transient: boolean } {
  const now = ctx.deps.clock.now()
  const mark = ctx.index ? Number(ctx.index.price) : Number.NaN
  return assessRisk(
    {
      now,
      indexAt: ctx.indexAt,
      statisticsAt: ctx.statisticsAt,
      needsStatistics: reads(ctx, 'statistics'),
      marginAt: marginSeenAt(ctx),
      marginRatio: ctx.margin?.marginRatio,
      inLiquidation: ctx.margin?.inLiquidation ?? false,
      marginExhausted: ctx.margin !== undefined && compareDecimal(ctx.margin.accountValue, '0') <= 0,
      liquidationDistance: ctx.position
        ? liquidationDistance(mark, ctx.position.liquidationPrice)
        : undefined,
      breakerOpen: ctx.breakerOpen,
      held: ctx.held,
    },
    ctx.mode,
    ctx.deps.risk,
  )
}

function quoteMode(mode: RiskMode): QuoteMode {
  return mode === 'widened' ? 'widened' : mode === 'reduce-only' ? 'reduce-only' : 'normal'
}

/** The strategy's view of this instrument now. */
export function buildSnapshot(ctx: InstrumentContext, now: number): StrategySnapshot {
  const bbo = currentBbo(ctx)
  return {
    now,
    instrument: ctx.instrument,
    index: ctx.index,
    statistics: ctx.statistics,
    position: ctx.position,
    margin: ctx.margin ?? {
      accountValue: '0',
      initialMargin: '0',
      maintenanceMargin: '0',
      marginRatio: 0,
      inLiquidation: false,
    },
    openOrders: ctx.openOrders,
    mode: quoteMode(ctx.assessment.mode),
    ...(ctx.catalogue ? { catalogue: ctx.catalogue } : {}),
    ...(bbo ? { bbo } : {}),
  }
}
