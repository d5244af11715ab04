/**
 * One actor per instrument. It is fed index, statistics, account margin/position and its own open
 * orders; it asks its plan function (strategy + quote diff) for order actions and hands them to the
 * batcher through the `submitPlan` actor; it waits for per-order results and applies them.
 *
 * States make risk visible:
 *   syncing → active { risk: normal | widened | reduceOnly  ×  work: quoting ⇄ repricing } ⇄ halted → stopped
 * Risk modes come from `assessRisk` (pure, with hysteresis); every transition is logged with its
 * reason. All delays run on the actor system's clock (a `SimulatedClock` in tests).
 */
import { assign, enqueueActions, fromPromise, setup } from 'xstate'
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type {
  QuoteMode,
  StrategyCatalogue,
  StrategyIndex,
  StrategyInstrument,
  StrategyMargin,
  StrategyPosition,
  StrategySnapshot,
  StrategyStatistics,
} from '../../strategy/strategy.ts'
import { liquidationDistance } from '../monitor/marginRatio.ts'
import type { OrderPlan, PlanOutcome, SubmitPlanInput, WorkPriority } from '../orders/orderPlan.ts'
import {
  assessRisk,
  type CurrentMode,
  type RiskAssessment,
  type RiskConfig,
  type RiskMode,
} from './assessRisk.ts'

// ---------------------------------------------------------------------------------------------------
// Context, input, events
// ---------------------------------------------------------------------------------------------------

export interface InstrumentDeps {
  clock: Pick<Clock, 'now'>
  logger: Logger
  /** Strategy + diff for a snapshot. May throw (a strategy bug): the actor then keeps its orders. */
  plan: (snapshot: StrategySnapshot) => OrderPlan
  risk: RiskConfig
  /** Period of the staleness/age check. */
  tickMs: number
  minRepriceIntervalMs: number
  /** Pause after a rejected plan before planning again (doubles up to 30 s). */
  rejectBackoffMs: number
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
  lastSubmitAt: number | undefined
}

export interface InstrumentContext {
  instrument: StrategyInstrument
  deps: InstrumentDeps
  index: StrategyIndex | undefined
  indexAt: number | undefined
  statistics: StrategyStatistics | undefined
  statisticsAt: number | undefined
  margin: StrategyMargin | undefined
  marginAt: number | undefined
  position: StrategyPosition | undefined
  openOrders: Order[]
  ordersAt: number | undefined
  catalogue: StrategyCatalogue | undefined
  breakerOpen: boolean
  assessment: RiskAssessment & { transient: boolean }
  mode: CurrentMode
  /** Inputs changed since the last plan. */
  dirty: boolean
  pendingPlan: OrderPlan | undefined
  pendingPriority: WorkPriority
  lastPlanAt: number
  /** A deferred plan is due then (end of the reprice interval or of a backoff); the ticker wakes for it. */
  wakeAt: number | undefined
  /** The ticker has been re-armed for `wakeAt`. */
  wakeArmed: boolean
  backoffUntil: number
  backoffMs: number
  stats: InstrumentStats
}

export type InstrumentEvent =
  | { type: 'INDEX'; index: StrategyIndex; receivedAt: number }
  | { type: 'STATISTICS'; statistics: StrategyStatistics; receivedAt: number }
  | { type: 'ACCOUNT'; margin: StrategyMargin; position: StrategyPosition | undefined; receivedAt: number }
  | { type: 'ORDERS'; orders: Order[]; receivedAt: number }
  | { type: 'CATALOGUE'; catalogue: StrategyCatalogue }
  | { type: 'BREAKER'; open: boolean }
  | { type: 'STOP' }
  /** Internal: re-arm the ticker for a deferred plan. */
  | { type: 'REARM' }

const isEmpty = (p: OrderPlan): boolean => p.modify.length + p.create.length + p.cancel.length === 0

// ---------------------------------------------------------------------------------------------------
// Pure helpers
// ---------------------------------------------------------------------------------------------------

function assess(ctx: InstrumentContext): RiskAssessment & { transient: boolean } {
  const now = ctx.deps.clock.now()
  const mark = ctx.index ? Number(ctx.index.price) : Number.NaN
  return assessRisk(
    {
      now,
      indexAt: ctx.indexAt,
      statisticsAt: ctx.statisticsAt,
      marginAt: ctx.marginAt,
      marginRatio: ctx.margin?.marginRatio,
      inLiquidation: ctx.margin?.inLiquidation ?? false,
      liquidationDistance: ctx.position
        ? liquidationDistance(mark, ctx.position.liquidationPrice)
        : undefined,
      breakerOpen: ctx.breakerOpen,
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
  }
}

/** Applies per-order results to the live order set. */
export function applyOutcome(
  orders: readonly Order[],
  plan: OrderPlan,
  outcome: PlanOutcome,
  instrumentId: number,
  now: number,
): { orders: Order[]; rejected: string[]; gone: number[]; unknown: number } {
  const byOid = new Map(orders.map((o) => [o.oid, o]))
  const rejected: string[] = []
  // Orders the venue no longer has: filled or cancelled since we last looked. Not a rejection.
  const gone: number[] = []
  let unknown = 0
  const isGone = (error: string): boolean => error === 'order_not_found' || error.includes('not found')
  plan.modify.forEach((m, i) => {
    const r = outcome.modify[i]
    if (!r || r.status === 'unknown') unknown++
    else if (r.status === 'ok') {
      const prev = byOid.get(m.oid)
      if (r.order) byOid.set(m.oid, r.order)
      else if (prev) byOid.set(m.oid, { ...prev, p: m.p, qty: m.qty, uts: now })
    } else if (r.status === 'err') {
      if (isGone(r.error)) {
        byOid.delete(m.oid)
        gone.push(m.oid)
      } else rejected.push(`modify ${m.oid}: ${r.error}`)
    }
  })
  plan.create.forEach((c, i) => {
    const r = outcome.create[i]
    if (!r || r.status === 'unknown') unknown++
    else if (r.status === 'ok' && r.oid !== undefined) {
      byOid.set(r.oid, {
        oid: r.oid,
        iid: instrumentId,
        buy: c.buy,
        p: c.p,
        qty: c.qty,
        tif: 'gtc',
        po: true,
        ro: c.ro ?? false,
        rest: c.qty,
        fill: '0',
        cts: now,
        uts: now,
        status: 'open',
      })
    } else if (r.status === 'err')
      rejected.push(`create ${c.buy ? 'buy' : 'sell'} ${c.qty}@${c.p}: ${r.error}`)
  })
  plan.cancel.forEach((oid, i) => {
    const r = outcome.cancel[i]
    if (!r || r.status === 'unknown') unknown++
    else if (r.status === 'ok') byOid.delete(oid)
    else if (r.status === 'err') {
      if (isGone(r.error)) byOid.delete(oid)
      else rejected.push(`cancel ${oid}: ${r.error}`)
    }
  })
  return { orders: [...byOid.values()], rejected, gone, unknown }
}

// ---------------------------------------------------------------------------------------------------
// Machine
// ---------------------------------------------------------------------------------------------------

const notProvided = (name: string) =>
  fromPromise<never, unknown>(async () => {
    throw new Error(`${name} actor not provided`)
  })

export const instrumentMachine = setup({
  types: {
    context: {} as InstrumentContext,
    events: {} as InstrumentEvent,
    input: {} as InstrumentInput,
  },
  actors: {
    submitPlan: notProvided('submitPlan') as unknown as ReturnType<
      typeof fromPromise<PlanOutcome, SubmitPlanInput>
    >,
    cancelAll: notProvided('cancelAll') as unknown as ReturnType<
      typeof fromPromise<void, { instrumentId: number }>
    >,
  },
  delays: {
    TICK: ({ context }) => {
      if (context.wakeAt === undefined) return context.deps.tickMs
      const due = context.wakeAt - context.deps.clock.now()
      return Math.max(0, Math.min(context.deps.tickMs, due))
    },
    RETRY: () => 2_000,
  },
  guards: {
    hasAllInputs: ({ context }) =>
      context.indexAt !== undefined &&
      context.statisticsAt !== undefined &&
      context.marginAt !== undefined &&
      context.ordersAt !== undefined,
    shouldHalt: ({ context }) => context.assessment.mode === 'halted',
    canResume: ({ context }) => context.assessment.mode !== 'halted',
    isWidened: ({ context }) => context.assessment.mode === 'widened',
    isReduceOnly: ({ context }) => context.assessment.mode === 'reduce-only',
    isNormal: ({ context }) => context.assessment.mode === 'normal',
    hasPlan: ({ context }) => context.pendingPlan !== undefined,
    hasOrders: ({ context }) => context.openOrders.length > 0,
  },
  actions: {
    storeInput: assign(({ context, event }) => {
      switch (event.type) {
        case 'INDEX':
          return { index: event.index, indexAt: event.receivedAt, dirty: true }
        case 'STATISTICS':
          return { statistics: event.statistics, statisticsAt: event.receivedAt, dirty: true }
        case 'ACCOUNT':
          return { margin: event.margin, position: event.position, marginAt: event.receivedAt, dirty: true }
        case 'ORDERS':
          return {
            openOrders: event.orders.filter((o) => o.iid === context.instrument.id),
            ordersAt: event.receivedAt,
            dirty: true,
          }
        case 'CATALOGUE':
          return { catalogue: event.catalogue, dirty: true }
        case 'BREAKER':
          return { breakerOpen: event.open, dirty: true }
        default:
          return {}
      }
    }),
    assess: assign(({ context }) => ({ assessment: assess(context) })),
    enterMode: assign(({ context }, params: { mode: RiskMode }) => {
      const now = context.deps.clock.now()
      if (context.mode.mode !== params.mode) {
        context.deps.logger.info(
          { from: context.mode.mode, to: params.mode, reason: context.assessment.reason },
          `risk mode ${context.mode.mode} → ${params.mode}: ${context.assessment.reason}`,
        )
      }
      return {
        mode: { mode: params.mode, since: now, transient: context.assessment.transient },
        dirty: true,
      }
    }),
    /** Plans when inputs changed (or on tick for order age) and the reprice interval allows. */
    maybePlan: assign(({ context }, params: { force?: boolean }) => {
      if (context.assessment.mode === 'halted') return { wakeAt: undefined, wakeArmed: false }
      // In flight: the plan after it (on re-entering quoting) covers anything deferred until now.
      // Defensive: a wake left armed here would make the ticker's delay 0 and spin.
      if (context.pendingPlan)
        return context.wakeAt === undefined ? {} : { wakeAt: undefined, wakeArmed: false }
      const now = context.deps.clock.now()
      if (!context.dirty && !params.force) return {}
      // Not yet: remember when, so the ticker wakes exactly then instead of at its next period.
      const defer = (at: number) => (at === context.wakeAt ? {} : { wakeAt: at, wakeArmed: false })
      if (now - context.lastPlanAt < context.deps.minRepriceIntervalMs) {
        return defer(context.lastPlanAt + context.deps.minRepriceIntervalMs)
      }
      if (now < context.backoffUntil) return defer(context.backoffUntil)
      let plan: OrderPlan
      try {
        plan = context.deps.plan(buildSnapshot(context, now))
      } catch (e) {
        context.deps.logger.error({ err: e }, 'strategy failed; keeping current orders')
        return {
          dirty: false,
          lastPlanAt: now,
          wakeAt: undefined,
          wakeArmed: false,
          stats: { ...context.stats, strategyErrors: context.stats.strategyErrors + 1 },
        }
      }
      const stats = { ...context.stats, plans: context.stats.plans + 1 }
      const woke = { wakeAt: undefined, wakeArmed: false }
      if (isEmpty(plan)) return { dirty: false, lastPlanAt: now, stats, ...woke }
      const onlyReducing = plan.create.every((c) => c.ro) && plan.modify.length === 0
      const priority: WorkPriority =
        context.assessment.mode === 'reduce-only' || onlyReducing ? 'risk' : 'quote'
      return { dirty: false, lastPlanAt: now, pendingPlan: plan, pendingPriority: priority, stats, ...woke }
    }),
    /** Re-arms the ticker when a plan was deferred to `wakeAt` (it then fires exactly then). */
    scheduleWake: enqueueActions(({ context, enqueue }) => {
      if (context.wakeAt !== undefined && !context.wakeArmed) {
        enqueue.assign({ wakeArmed: true })
        enqueue.raise({ type: 'REARM' })
      }
    }),
    applyResults: assign(({ context }, params: { outcome: PlanOutcome }) => {
      const plan = context.pendingPlan
      if (!plan) return {}
      const now = context.deps.clock.now()
      const r = applyOutcome(context.openOrders, plan, params.outcome, context.instrument.id, now)
      for (const msg of r.rejected) context.deps.logger.warn({ rejection: msg }, `order rejected: ${msg}`)
      if (r.gone.length > 0) {
        context.deps.logger.info(
          { oids: r.gone },
          `order(s) ${r.gone.join(', ')} no longer on the book (filled or cancelled)`,
        )
      }
      const rejectedNow = r.rejected.length > 0
      const backoffMs = rejectedNow
        ? Math.min(30_000, context.backoffMs * 2)
        : context.deps.rejectBackoffMs / 2
      return {
        openOrders: r.orders,
        pendingPlan: undefined,
        dirty: true,
        backoffMs: Math.max(context.deps.rejectBackoffMs / 2, backoffMs),
        backoffUntil: rejectedNow ? now + backoffMs : 0,
        stats: {
          ...context.stats,
          submitted: context.stats.submitted + 1,
          rejected: context.stats.rejected + r.rejected.length,
          gone: context.stats.gone + r.gone.length,
          unknown: context.stats.unknown + r.unknown,
          lastSubmitAt: now,
        },
      }
    }),
    submitFailed: assign(({ context }, params: { error: unknown }) => {
      const now = context.deps.clock.now()
      context.deps.logger.warn({ err: params.error }, 'order submission failed; waiting for reconcile')
      return {
        pendingPlan: undefined,
        dirty: true,
        backoffUntil: now + context.backoffMs,
        backoffMs: Math.min(30_000, context.backoffMs * 2),
        stats: { ...context.stats, unknown: context.stats.unknown + 1 },
      }
    }),
    clearOrders: assign({ openOrders: () => [] }),
  },
}).createMachine({
  id: 'instrument',
  context: ({ input }) => ({
    instrument: input.instrument,
    deps: input.deps,
    index: undefined,
    indexAt: undefined,
    statistics: undefined,
    statisticsAt: undefined,
    margin: undefined,
    marginAt: undefined,
    position: undefined,
    openOrders: [],
    ordersAt: undefined,
    catalogue: undefined,
    breakerOpen: false,
    assessment: { mode: 'halted', reason: 'syncing', transient: true },
    mode: { mode: 'halted', since: input.deps.clock.now(), transient: true },
    dirty: true,
    pendingPlan: undefined,
    pendingPriority: 'quote',
    lastPlanAt: Number.NEGATIVE_INFINITY,
    wakeAt: undefined,
    wakeArmed: false,
    backoffUntil: 0,
    backoffMs: input.deps.rejectBackoffMs,
    stats: {
      plans: 0,
      submitted: 0,
      rejected: 0,
      gone: 0,
      unknown: 0,
      strategyErrors: 0,
      lastSubmitAt: undefined,
    },
  }),
  initial: 'syncing',
  // Inputs are handled once, here: store, re-assess risk, and plan if quoting is allowed. The
  // `always` transitions below then move between risk modes and into repricing.
  on: {
    INDEX: { actions: ['storeInput', 'assess', { type: 'maybePlan', params: {} }, 'scheduleWake'] },
    STATISTICS: { actions: ['storeInput', 'assess', { type: 'maybePlan', params: {} }, 'scheduleWake'] },
    ACCOUNT: { actions: ['storeInput', 'assess', { type: 'maybePlan', params: {} }, 'scheduleWake'] },
    ORDERS: { actions: ['storeInput', 'assess', { type: 'maybePlan', params: {} }, 'scheduleWake'] },
    CATALOGUE: { actions: ['storeInput', 'assess', { type: 'maybePlan', params: {} }, 'scheduleWake'] },
    BREAKER: { actions: ['storeInput', 'assess', { type: 'maybePlan', params: {} }, 'scheduleWake'] },
    STOP: { target: '.stopped' },
  },
  states: {
    syncing: {
      always: { guard: 'hasAllInputs', target: 'active', actions: 'assess' },
    },
    active: {
      type: 'parallel',
      always: { guard: 'shouldHalt', target: 'halted' },
      states: {
        risk: {
          initial: 'normal',
          states: {
            normal: {
              entry: { type: 'enterMode', params: { mode: 'normal' } },
              always: [
                { guard: 'isWidened', target: 'widened' },
                { guard: 'isReduceOnly', target: 'reduceOnly' },
              ],
            },
            widened: {
              entry: { type: 'enterMode', params: { mode: 'widened' } },
              always: [
                { guard: 'isNormal', target: 'normal' },
                { guard: 'isReduceOnly', target: 'reduceOnly' },
              ],
            },
            reduceOnly: {
              entry: { type: 'enterMode', params: { mode: 'reduce-only' } },
              always: [
                { guard: 'isNormal', target: 'normal' },
                { guard: 'isWidened', target: 'widened' },
              ],
            },
          },
        },
        work: {
          initial: 'quoting',
          states: {
            quoting: {
              entry: [{ type: 'maybePlan', params: {} }, 'scheduleWake'],
              always: { guard: 'hasPlan', target: 'repricing' },
            },
            repricing: {
              invoke: {
                src: 'submitPlan',
                input: ({ context }) => ({
                  instrumentId: context.instrument.id,
                  plan: context.pendingPlan ?? { modify: [], create: [], cancel: [] },
                  priority: context.pendingPriority,
                }),
                onDone: {
                  target: 'quoting',
                  actions: { type: 'applyResults', params: ({ event }) => ({ outcome: event.output }) },
                },
                onError: {
                  target: 'quoting',
                  actions: { type: 'submitFailed', params: ({ event }) => ({ error: event.error }) },
                },
              },
            },
          },
        },
        ticker: {
          initial: 'waiting',
          states: {
            waiting: {
              after: {
                TICK: {
                  target: 'waiting',
                  reenter: true,
                  actions: ['assess', { type: 'maybePlan', params: { force: true } }, 'scheduleWake'],
                },
              },
              // A plan was deferred: re-enter so the TICK delay is recomputed for `wakeAt`.
              on: { REARM: { target: 'waiting', reenter: true } },
            },
          },
        },
      },
    },
    halted: {
      entry: { type: 'enterMode', params: { mode: 'halted' } },
      initial: 'cancelling',
      states: {
        cancelling: {
          always: { guard: ({ context }) => context.openOrders.length === 0, target: 'idle' },
          invoke: {
            src: 'cancelAll',
            input: ({ context }) => ({ instrumentId: context.instrument.id }),
            onDone: { target: 'idle', actions: 'clearOrders' },
            onError: { target: 'retryWait' },
          },
        },
        retryWait: {
          after: { RETRY: 'cancelling' },
        },
        idle: {
          // Orders that show up while halted (a reconcile found some) are cancelled too.
          always: { guard: 'hasOrders', target: 'cancelling' },
          after: { TICK: { target: 'idle', reenter: true, actions: 'assess' } },
        },
      },
      always: { guard: 'canResume', target: 'active' },
    },
    stopped: { type: 'final' },
  },
})

export type InstrumentMachine = typeof instrumentMachine
