/**
 * The instrument actor's decisions as pure steps: given the context, an input and the time, what to
 * store, what to log, which degradation episodes open or close, and when a deferred plan is due. The
 * machine turns a step into xstate actions (assign, a log action, emit, a delayed `WAKE` with cancel);
 * nothing here has side effects (the strategy's plan function is pure). A plan's results: results.ts.
 */
import type {
  OptionalInput,
  StrategyIndex,
  StrategyMargin,
  StrategyPosition,
} from '../../strategy/strategy.ts'
import type { OrderPlan, WorkPriority } from '../quoting/orderPlan.ts'
import { guardPlan, screenIndex } from '../quoting/priceGuard.ts'
import {
  assess,
  buildSnapshot,
  type InstrumentContext,
  type InstrumentInputEvent,
  type InstrumentStats,
  reads,
  withUpdate,
} from './context.ts'
import { type HealthChange, type InstrumentHealth, observe } from './health.ts'
import { type LogEntry, NONE, type Step } from './step.ts'
import { nextExpiry, planTimeReached } from './timeDue.ts'

const quiet = (due: number | undefined): Step => ({ update: undefined, logs: NONE, changes: NONE, due })
const earliest = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b)
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Bad observations are logged at `level` until their episode opens, then at debug (the alert speaks). */
const levelFor = (health: InstrumentHealth, cause: keyof InstrumentHealth, level: 'warn' | 'error') =>
  health[cause].since === undefined ? level : 'debug'

// ---------------------------------------------------------------------------------------------------
// Planning

/** Orders older than `maxOrderAgeMs` since their last update (none when the limit is off). */
function expiredOrders(ctx: InstrumentContext, now: number): number[] {
  const max = ctx.deps.maxOrderAgeMs
  if (max <= 0) return []
  return ctx.openOrders.filter((o) => now - o.uts >= max).map((o) => o.oid)
}

/**
 * Plans when inputs changed, on a wake (`force`), or when a moment of `timeDue.ts` has come (the
 * strategy's revisit, an order's maximum age, a waiting BBO), and the backoff allows; a plan with
 * something to send inside the reprice interval waits for its end. Otherwise it says when to come
 * back. While the strategy fails, orders that reach
 * `maxOrderAgeMs` are cancelled at that moment, ahead of the interval and the backoff (risk work).
 */
export function planStep(ctx: InstrumentContext, now: number, force: boolean): Step {
  // Halted: the halt cancels everything. In flight: the plan after it (on re-entering quoting)
  // covers anything deferred until now.
  if (ctx.assessment.mode === 'halted' || ctx.pendingPlan) return quiet(undefined)
  const failing = ctx.health.strategy.streak > 0
  if (failing) {
    const expired = expiredOrders(ctx, now)
    // A rejected cancel is retried after the backoff, not at once.
    if (expired.length > 0)
      return now >= ctx.backoffUntil ? cancelExpired(ctx, expired) : quiet(ctx.backoffUntil)
  }
  if (!ctx.dirty && !force && !planTimeReached(ctx, now)) return quiet(ctx.deferredAt)
  const ageDue = failing ? nextExpiry(ctx.openOrders, ctx.deps.maxOrderAgeMs) : undefined
  // The reprice interval throttles orders, not thinking: within it the plan is made at once and only
  // a plan with something to send waits for the interval's end. The plan after a batch's results (the
  // same instant) is then settled without a wake: it is nearly always empty (the diff is idempotent).
  const intervalEnds = ctx.lastPlanAt + ctx.deps.minRepriceIntervalMs
  if (now < ctx.backoffUntil) return quiet(earliest(ctx.backoffUntil, ageDue))
  const snapshot = buildSnapshot(ctx, now)
  let raw: OrderPlan
  try {
    raw = ctx.deps.plan(snapshot)
  } catch (e) {
    // Inside the interval a failure is met at its end, as a plan with something to send would be.
    return now < intervalEnds ? quiet(earliest(intervalEnds, ageDue)) : strategyFailed(ctx, now, e)
  }
  const asked = {
    revisitAt: ctx.deps.revisitAt ? ctx.deps.revisitAt(snapshot) : now + ctx.deps.recheckMs,
    bboPendingSince: undefined,
  }
  const after = ctx.deps.guard.degradeAfter
  const changes: HealthChange[] = []
  const recovered = observe(ctx.health, 'strategy', undefined, now, after)
  if (recovered.change) changes.push(recovered.change)
  // Prices and sizes, the last check before the gateway signs (priceGuard.ts).
  const { plan, dropped } = guardPlan(raw, ctx.index?.price, ctx.instrument.priceBounds, {
    limits: ctx.instrument,
    positionCap: ctx.deps.guard.positionCap,
    position: ctx.position?.size,
    live: ctx.openOrders,
  })
  const droppedReason =
    dropped.length === 0
      ? undefined
      : `${dropped.length} quote(s) dropped by the price and size guard: ${dropped[0]}`
  const quotes = observe(recovered.health, 'quotes', droppedReason, now, after)
  if (quotes.change) changes.push(quotes.change)
  const logs: LogEntry[] =
    dropped.length === 0
      ? []
      : [
          {
            level: levelFor(ctx.health, 'quotes', 'warn'),
            fields: { dropped },
            msg: `price guard dropped ${dropped.length} quote(s): ${dropped.join('; ')}`,
            kind: 'guard dropped',
          },
        ]
  const stats: InstrumentStats = {
    ...ctx.stats,
    plans: ctx.stats.plans + 1,
    quotesDropped: ctx.stats.quotesDropped + dropped.length,
  }
  // Updates of one shape: the same health stored again changes nothing.
  const health = quotes.health
  // Nothing to send: the reprice interval throttles orders, not thinking, so it does not start here
  // (else an unrelated input, such as a portfolio push, would delay the next index move's reprice).
  if (plan.modify.length + plan.create.length + plan.cancel.length === 0) {
    return {
      update: { dirty: false, stats, revisitAt: asked.revisitAt, bboPendingSince: undefined, health },
      logs,
      changes,
      due: undefined,
    }
  }
  // Something to send inside the interval: it waits, and is planned anew (forced) at the interval's end.
  if (now < intervalEnds) return quiet(earliest(intervalEnds, ageDue))
  const onlyReducing = plan.create.every((c) => c.ro) && plan.modify.length === 0
  const priority: WorkPriority = ctx.assessment.mode === 'reduce-only' || onlyReducing ? 'risk' : 'quote'
  // No input changed since the last plan: only time did (orders aged), so nothing here is urgent.
  const lazy = !ctx.dirty && priority === 'quote'
  return {
    update: {
      dirty: false,
      lastPlanAt: now,
      pendingPlan: plan,
      pendingPriority: priority,
      pendingLazy: lazy,
      stats,
      revisitAt: asked.revisitAt,
      bboPendingSince: undefined,
      health,
    },
    logs,
    changes,
    due: undefined,
  }
}

function strategyFailed(ctx: InstrumentContext, now: number, err: unknown): Step {
  const after = ctx.deps.guard.degradeAfter
  const obs = observe(ctx.health, 'strategy', `strategy failed: ${message(err)}`, now, after)
  const maxAge = ctx.deps.maxOrderAgeMs
  const failed: Step = {
    update: {
      dirty: false,
      lastPlanAt: now,
      // A failing strategy is asked again every tick.
      revisitAt: now + ctx.deps.recheckMs,
      bboPendingSince: undefined,
      health: obs.health,
      stats: { ...ctx.stats, strategyErrors: ctx.stats.strategyErrors + 1 },
    },
    logs: [
      {
        level: levelFor(ctx.health, 'strategy', 'error'),
        fields: { err },
        msg:
          maxAge > 0
            ? `strategy failed; keeping orders younger than ${maxAge} ms`
            : 'strategy failed; keeping current orders',
        kind: 'strategy failed',
      },
    ],
    changes: obs.change ? [obs.change] : NONE,
    // Come back when the oldest order reaches its maximum age, to cancel it then.
    due: nextExpiry(ctx.openOrders, maxAge),
  }
  const expired = expiredOrders(ctx, now)
  if (expired.length === 0) return failed
  if (now < ctx.backoffUntil) return { ...failed, due: ctx.backoffUntil }
  const cancel = cancelExpired(ctx, expired)
  return {
    ...failed,
    update: { ...failed.update, ...cancel.update },
    logs: [...failed.logs, ...cancel.logs],
    due: undefined,
  }
}

function cancelExpired(ctx: InstrumentContext, expired: number[]): Step {
  return {
    update: {
      pendingPlan: { modify: [], create: [], cancel: expired },
      pendingPriority: 'risk',
      pendingLazy: false,
    },
    logs: [
      {
        level: 'warn',
        fields: { oids: expired },
        msg: `cancelling ${expired.length} order(s) older than ${ctx.deps.maxOrderAgeMs} ms while the strategy fails`,
      },
    ],
    changes: NONE,
    due: undefined,
  }
}

// ---------------------------------------------------------------------------------------------------
// Inputs

export type InputEvent = InstrumentInputEvent

/** What storing a non-index input changes. */
function storeUpdate(
  ctx: InstrumentContext,
  event: Exclude<InputEvent, { type: 'INDEX' }>,
): Partial<InstrumentContext> {
  switch (event.type) {
    case 'STATISTICS':
      return {
        statistics: event.statistics,
        statisticsAt: event.receivedAt,
        dirty: replans(ctx, 'statistics'),
      }
    case 'ACCOUNT':
      // The same margin and position again (a push every second) refresh their age, plan nothing; so
      // do new margin numbers for a strategy that does not read them, and a position whose liquidation
      // price alone moved (a cross-margin account's moves with every mark: a margin number, issue 36).
      // The risk assessment sees them on every input whatever the strategy reads.
      return {
        margin: event.margin,
        position: event.position,
        marginAt: event.receivedAt,
        dirty:
          replans(ctx, undefined) ||
          !sameHolding(ctx.position, event.position) ||
          ctx.margin?.inLiquidation !== event.margin.inLiquidation ||
          (reads(ctx, 'equity') &&
            (!sameMargin(ctx.margin, event.margin) ||
              ctx.position?.liquidationPrice !== event.position?.liquidationPrice)),
      }
    case 'ORDERS':
      return {
        openOrders: event.orders.filter((o) => o.iid === ctx.instrument.id),
        ordersAt: event.receivedAt,
        dirty: true,
      }
    case 'CATALOGUE':
      return { catalogue: event.catalogue, dirty: replans(ctx, 'catalogue') }
    case 'BREAKER':
      return { breakerOpen: event.open, dirty: true }
    case 'HOLD':
      return { held: event.reason, dirty: true }
  }
}

/**
 * Whether storing an input plans: already due, halted (the input may end the halt), or the strategy
 * reads it (`input` undefined: decided by the caller).
 */
function replans(ctx: InstrumentContext, input: OptionalInput | undefined): boolean {
  return ctx.dirty || ctx.assessment.mode === 'halted' || (input !== undefined && reads(ctx, input))
}

/**
 * An input, handled once: store it (an index only after screening), re-assess risk, and plan if
 * quoting is allowed — one step, so one action per input on the input → transport path.
 */
export function inputStep(ctx: InstrumentContext, event: InputEvent, now: number): Step {
  return thenPlan(ctx, storeStep(ctx, event, now), now, false)
}

/**
 * Inputs of one moment (`INPUTS`): each stored in order over the context the one before left, exactly
 * as `inputStep` stores it, then one re-assessment and one plan over all of them. One input alone is
 * `inputStep`.
 */
export function inputsStep(ctx: InstrumentContext, events: readonly InputEvent[], now: number): Step {
  const only = events.length === 1 ? events[0] : undefined
  if (only !== undefined) return inputStep(ctx, only, now)
  // One copy of the context for the whole list, each input's update stored over it in place.
  let stored = ctx
  let logs: readonly LogEntry[] = NONE
  let changes: readonly HealthChange[] = NONE
  for (const event of events) {
    const s = storeStep(stored, event, now)
    if (s.update !== undefined)
      stored = stored === ctx ? withUpdate(ctx, s.update) : Object.assign(stored, s.update)
    if (s.logs.length > 0) logs = [...logs, ...s.logs]
    if (s.changes.length > 0) changes = [...changes, ...s.changes]
  }
  return thenPlan(
    ctx,
    {
      update: stored === ctx ? undefined : stored,
      whole: stored === ctx ? undefined : stored,
      logs,
      changes,
      due: ctx.deferredAt,
    },
    now,
    false,
  )
}

/** What storing one input changes (an index only after screening), before re-assessment and plan. */
function storeStep(ctx: InstrumentContext, event: InputEvent, now: number): Step {
  return event.type === 'INDEX'
    ? indexStep(ctx, event.index, event.receivedAt, now)
    : { update: storeUpdate(ctx, event), logs: NONE, changes: NONE, due: ctx.deferredAt }
}

/** A wake (something is due, see `timeDue.ts`): re-assess (inputs age), then plan, forced. */
export function wakeStep(ctx: InstrumentContext, now: number): Step {
  return thenPlan(ctx, { update: undefined, logs: NONE, changes: NONE, due: ctx.deferredAt }, now, true)
}

/** `first`, then re-assessment and a plan over the context it leaves; one merged step. */
function thenPlan(ctx: InstrumentContext, first: Step, now: number, force: boolean): Step {
  // One copy of the context per input: assessed in place before anything else sees it (the copy
  // `first` made already, when it made one).
  const assessed = first.whole ?? withUpdate(ctx, first.update)
  assessed.assessment = assess(assessed)
  // Time alone may have moved the risk mode (an input turned stale, a dwell ended): plan in the new one.
  const plan = planStep(assessed, now, force || assessed.assessment.mode !== ctx.assessment.mode)
  // The update is that copy with the plan's update stored over it: the whole context, so applying it
  // to `ctx` gives the same context as the fields that changed would, without merging objects of many
  // shapes (a megamorphic spread cost as much as the risk assessment on every input).
  if (plan.update !== undefined) Object.assign(assessed, plan.update)
  return {
    update: assessed,
    whole: assessed,
    logs: first.logs.length === 0 ? plan.logs : [...first.logs, ...plan.logs],
    changes: first.changes.length === 0 ? plan.changes : [...first.changes, ...plan.changes],
    due: plan.due,
  }
}

// ---------------------------------------------------------------------------------------------------
// Index input

/** Screens an index update (see `screenIndex`): stores it, or drops it with a counted, logged reason. */
export function indexStep(
  ctx: InstrumentContext,
  index: StrategyIndex,
  receivedAt: number,
  now: number,
): Step {
  const verdict = screenIndex(
    index.price,
    { lastGood: ctx.index?.price, candidate: ctx.indexCandidate },
    ctx.deps.guard.maxIndexJump,
  )
  const obs = observe(
    ctx.health,
    'index',
    verdict.accepted ? undefined : verdict.reason,
    now,
    ctx.deps.guard.degradeAfter,
  )
  const changes = obs.change ? [obs.change] : NONE
  const health = obs.health === ctx.health ? {} : { health: obs.health }
  if (verdict.accepted) {
    // An unchanged index (tickers are pushed every second) refreshes its age and plans nothing,
    // unless a halt may end with it.
    const changed = ctx.index?.price !== index.price || ctx.index?.mark !== index.mark
    const dirty = ctx.dirty || changed || ctx.assessment.mode === 'halted'
    return {
      // One shape whether or not the health changed (the same health stored again changes nothing).
      update: { index, indexAt: receivedAt, indexCandidate: undefined, dirty, health: obs.health },
      logs:
        verdict.note === undefined
          ? NONE
          : [{ level: 'info', fields: { index: index.price }, msg: verdict.note }],
      changes,
      due: ctx.deferredAt,
    }
  }
  return {
    update: {
      indexCandidate: verdict.candidate,
      stats: { ...ctx.stats, indexRejected: ctx.stats.indexRejected + 1 },
      ...health,
    },
    logs: [
      {
        level: levelFor(ctx.health, 'index', 'warn'),
        fields: { reason: verdict.reason },
        msg: `index update dropped: ${verdict.reason}`,
        kind: 'index dropped',
      },
    ],
    changes,
    due: ctx.deferredAt,
  }
}

function sameMargin(a: StrategyMargin | undefined, b: StrategyMargin): boolean {
  return (
    a !== undefined &&
    a.accountValue === b.accountValue &&
    a.initialMargin === b.initialMargin &&
    a.maintenanceMargin === b.maintenanceMargin &&
    a.inLiquidation === b.inLiquidation
  )
}

/** The same size at the same entry (the liquidation price is a margin number: `equity`). */
function sameHolding(a: StrategyPosition | undefined, b: StrategyPosition | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.size === b.size && a.entryPrice === b.entryPrice
}
