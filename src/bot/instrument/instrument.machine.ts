/**
 * One actor per instrument. It is fed index, statistics, account margin/position, its own open
 * orders and the best bid/offer; it asks its plan function (strategy + quote diff) for order actions,
 * passes them through the price guard, and hands them to the batcher through its one long-lived
 * `submitter` child (planSubmission.ts); it waits for per-order results and applies them.
 *
 * States make risk visible:
 *   syncing → active { risk: normal | widened | reduceOnly } ⇄ halted → stopped
 * The plan in flight is context, not a state: a plan is sent as a `PLAN` event numbered
 * `context.planSeq` (the number kept in `planInFlight` until its `PLAN_DONE`/`PLAN_FAILED` answer), so
 * sending and answering enter and leave no state. The state value every reader sees
 * (`instrumentStateValue`) adds the work to `active`: `{ active: { risk, work: quoting | repricing } }`,
 * `repricing` while a plan is in flight.
 * Risk modes come from `assessRisk` (pure, with hysteresis); every transition is logged with its
 * reason. Degradation (a failing strategy, dropped quotes, rejected index updates) is kept in
 * `context.health` and announced once per episode as emitted `degraded`/`recovered` events.
 *
 * Decisions are pure steps (`steps.ts`); the actions here only apply them. Time is xstate's own: there is
 * no periodic tick while active; a deferred plan, or the next moment time alone matters
 * (`timeDue.ts`: the strategy's revisit, an order's maximum age, a waiting BBO, an input turning
 * stale), is one delayed `WAKE` raised with an id and cancelled when it is no longer due. All delays run on the actor system's clock (a `SimulatedClock`
 * in tests).
 */
import {
  assign,
  cancel,
  emit,
  enqueueActions,
  fromPromise,
  raise,
  sendParent,
  sendTo,
  setup,
  type UnknownAction,
} from 'xstate'
import type { RiskMode } from './assessRisk.ts'
import {
  assess,
  hasAllInputs,
  type InstrumentContext,
  type InstrumentEmitted,
  type InstrumentEvent,
  type InstrumentInput,
  initialContext,
  withUpdate,
} from './context.ts'
import { type ContextActionArgs, type ContextDecision, contextAction } from './contextAction.ts'
import type { HealthChange } from './health.ts'
import { type PlanAnswer, type PlanRequest, submitterNotProvided } from './planSubmission.ts'
import type { LogEntry } from './step.ts'
import { computeStep, PLAN, type StepParams } from './stepParams.ts'
import type { InputEvent } from './steps.ts'
import { nextTimeDue } from './timeDue.ts'

export type {
  InstrumentContext,
  InstrumentDeps,
  InstrumentEmitted,
  InstrumentEvent,
  InstrumentInput,
  InstrumentStats,
  PriceGuardSettings,
} from './context.ts'
export { buildSnapshot, currentBbo, type InputAges } from './context.ts'
export { type DegradeCause, degradations } from './health.ts'
export type { PlanAnswer, PlanRequest } from './planSubmission.ts'
export { instrumentStateValue } from './stateValue.ts'

// ---------------------------------------------------------------------------------------------------
// Machine
// ---------------------------------------------------------------------------------------------------

/** A placeholder the runtime replaces with `provide` (the gateway's send and cancel-all). */
const notProvided = <TOutput, TInput>(name: string) =>
  fromPromise<TOutput, TInput>(async () => {
    throw new Error(`${name} actor not provided`)
  })

/** Id of the delayed `WAKE` for a deferred plan (one at most per actor). */
const WAKE_ID = 'wake'

/** The plan in flight as the submitter gets it (`PLAN`, with its number). */
const planRequest = (ctx: InstrumentContext): PlanRequest => ({
  type: 'PLAN',
  seq: ctx.planSeq,
  input: {
    instrumentId: ctx.instrument.id,
    plan: ctx.pendingPlan ?? { modify: [], create: [], cancel: [] },
    priority: ctx.pendingPriority,
    lazy: ctx.pendingLazy,
    openOrders: ctx.openOrders,
  },
})

const toEmitted = (ctx: InstrumentContext, c: HealthChange): InstrumentEmitted => {
  const who = { instrumentId: ctx.instrument.id, symbol: ctx.instrument.symbol }
  return c.kind === 'degraded'
    ? { type: 'degraded', ...who, cause: c.cause, reason: c.reason, at: c.at }
    : { type: 'recovered', ...who, cause: c.cause, since: c.since, at: c.at }
}

const writeLogs = (ctx: InstrumentContext, logs: readonly LogEntry[]) => (): void => {
  const repeated = ctx.deps.repeated
  for (const l of logs) {
    if (l.kind !== undefined && repeated !== undefined)
      repeated.log(
        l.level,
        `${l.kind} ${ctx.instrument.symbol}`,
        { instrument: ctx.instrument.symbol, ...l.fields },
        l.msg,
      )
    else ctx.deps.logger[l.level](l.fields, l.msg)
  }
}

/** A raised `SETTLE` and the deferred plan's cancel: the same every time, made once. */
const RAISE_SETTLE = raise({ type: 'SETTLE' })
const CANCEL_WAKE = cancel(WAKE_ID)

/** The `step` action (see there): a pure step turned into the context to store and the actions after it. */
function applyStep(
  { context, self }: ContextActionArgs<InstrumentContext>,
  params: StepParams,
): ContextDecision<InstrumentContext> {
  const now = context.deps.clock.now()
  // A submit's answer (results or failure): the plan after it follows, over the context it left.
  const chained = params.kind === 'results' || params.kind === 'failed'
  const actions: UnknownAction[] = []
  let ctx = context
  let p: StepParams = params
  for (;;) {
    const s = computeStep(ctx, p, now)
    const beforeDue = ctx.planDueAt
    const beforeDeferred = ctx.deferredAt
    // The context after the step: the step's own copy (`whole`), the copy this action made for
    // the step before (finished in place), else one made here.
    let after =
      s.update === undefined
        ? ctx
        : (s.whole ?? (ctx !== context ? Object.assign(ctx, s.update) : withUpdate(ctx, s.update)))
    // A plan to send, in `active` (the state's risk mode is never `halted` there, always elsewhere):
    // numbered and sent at once. One made in `syncing` or `halted` waits for `active`'s entry plan.
    const send =
      after.pendingPlan !== undefined && after.planInFlight === undefined && after.mode.mode !== 'halted'
    if (send) {
      if (after === context) after = withUpdate(context, undefined)
      after.planSeq += 1
      after.planInFlight = after.planSeq
    }
    // The deferred plan, or the next moment time alone matters, whichever comes first. A due time
    // already past (its WAKE was dropped in a state without a handler) is due now.
    const timeDue = nextTimeDue(after, now)
    let due = s.due === undefined || (timeDue !== undefined && timeDue < s.due) ? timeDue : s.due
    if (due !== undefined && due < now) due = now
    const rewake = due !== beforeDue
    if (after !== ctx || rewake || s.due !== beforeDeferred) {
      if (after === context) after = withUpdate(context, undefined)
      after.deferredAt = s.due
      after.planDueAt = due
    }
    if (s.logs.length > 0) actions.push(writeLogs(context, s.logs))
    if (rewake) {
      if (beforeDue !== undefined) actions.push(CANCEL_WAKE)
      if (due !== undefined) actions.push(raise({ type: 'WAKE' }, { id: WAKE_ID, delay: due - now }))
    }
    for (const c of s.changes) {
      const emitted = toEmitted(context, c)
      actions.push(emit(emitted))
      // A supervisor re-emits it; a standalone actor (tests) has no parent to tell.
      if (self._parent) actions.push(sendParent(emitted))
    }
    if (send) actions.push(sendTo('submitter', planRequest(after)))
    // The state follows the context (`SETTLE`): a risk mode the state is not in.
    if (after.assessment.mode !== after.mode.mode) actions.push(RAISE_SETTLE)
    ctx = after
    if (!chained || p.kind === 'plan') break
    p = PLAN
  }
  return { context: ctx, actions: actions.length > 0 ? actions : undefined }
}

/**
 * The `enterMode` action (see there). Entering `active` (from `syncing` or `halted`, whose mode is
 * `halted`) also runs the plan on entering, which sends a plan made there that waited for `active`;
 * a change of risk mode inside `active` does not (the step that changed the assessment planned in
 * the new mode already).
 */
function enterMode(
  args: ContextActionArgs<InstrumentContext>,
  params: { mode: RiskMode },
): ContextDecision<InstrumentContext> {
  const { context } = args
  const from = context.mode.mode
  const actions: UnknownAction[] = []
  if (from !== params.mode) {
    const reason = context.assessment.reason
    actions.push(
      writeLogs(context, [
        {
          level: 'info',
          fields: { from, to: params.mode, reason },
          msg: `risk mode ${from} → ${params.mode}: ${reason}`,
        },
      ]),
    )
  }
  const entered = withUpdate(context, {
    mode: { mode: params.mode, since: context.deps.clock.now(), transient: context.assessment.transient },
    dirty: true,
  })
  if (params.mode !== context.assessment.mode) actions.push(RAISE_SETTLE)
  if (from !== 'halted' || params.mode === 'halted') return { context: entered, actions }
  const planned = applyStep({ ...args, context: entered }, PLAN)
  return { context: planned.context, actions: [...actions, ...(planned.actions ?? [])] }
}

const input = ({ event }: { event: InputEvent }): StepParams => ({ kind: 'input', event })

/**
 * The inputs, handled in one step each: store, re-assess risk, and plan if quoting is allowed. When
 * that leaves the state behind the context (another risk mode), the step raises `SETTLE`, whose
 * transitions move between risk modes; a plan made in `active` is sent by the step itself. One
 * list, handled by the deepest states that can hold it (`syncing`, each risk mode of `active`,
 * `halted`) rather than by the root: xstate looks an event up in every state node from the active
 * leaf up to the first that handles it (a memoised lookup by a string made per node and event, 9 %
 * of the live stream's CPU), so an input handled at the root cost four lookups in `active`, one here.
 */
const INPUT_HANDLERS = {
  INDEX: { actions: { type: 'step', params: input } },
  STATISTICS: { actions: { type: 'step', params: input } },
  ACCOUNT: { actions: { type: 'step', params: input } },
  ORDERS: { actions: { type: 'step', params: input } },
  CATALOGUE: { actions: { type: 'step', params: input } },
  BREAKER: { actions: { type: 'step', params: input } },
  HOLD: { actions: { type: 'step', params: input } },
  INPUTS: {
    actions: {
      type: 'step',
      params: ({ event }: { event: { inputs: readonly InputEvent[] } }): StepParams => ({
        kind: 'inputs',
        events: event.inputs,
      }),
    },
  },
  // Stored for the next plan, which any other input or a wake brings (see `bboStep`).
  BBO: {
    actions: {
      type: 'step',
      params: ({ event }: { event: Extract<InstrumentEvent, { type: 'BBO' }> }): StepParams => ({
        kind: 'bbo',
        event,
      }),
    },
  },
} as const

/**
 * The submitter's answers, applied as results (or as a failed submission) followed by the plan after
 * them, wherever they come: in `active`, or in `halted` when a halt came while the plan was in flight
 * (the venue acted on it; the halt then cancels what it placed).
 */
const ANSWER_HANDLERS = {
  PLAN_DONE: {
    actions: {
      type: 'step',
      params: ({ event }: { event: Extract<PlanAnswer, { type: 'PLAN_DONE' }> }): StepParams => ({
        kind: 'results',
        seq: event.seq,
        outcome: event.output,
      }),
    },
  },
  PLAN_FAILED: {
    actions: {
      type: 'step',
      params: ({ event }: { event: Extract<PlanAnswer, { type: 'PLAN_FAILED' }> }): StepParams => ({
        kind: 'failed',
        seq: event.seq,
        error: event.error,
      }),
    },
  },
} as const

/** What the risk modes of `active` handle: the inputs and the submitter's answers. */
const ACTIVE_HANDLERS = { ...INPUT_HANDLERS, ...ANSWER_HANDLERS }

export const instrumentMachine = setup({
  types: {
    context: {} as InstrumentContext,
    // The submitter's answers come from the child (planSubmission.ts), never from outside.
    events: {} as InstrumentEvent | PlanAnswer,
    input: {} as InstrumentInput,
    emitted: {} as InstrumentEmitted,
  },
  actors: {
    submitter: submitterNotProvided,
    cancelAll: notProvided<void, { instrumentId: number }>('cancelAll'),
  },
  delays: {
    RECHECK: ({ context }) => context.deps.recheckMs,
    RETRY: () => 2_000,
  },
  guards: {
    hasAllInputs: ({ context }) => hasAllInputs(context),
    shouldHalt: ({ context }) => context.assessment.mode === 'halted',
    canResume: ({ context }) => context.assessment.mode !== 'halted',
    isWidened: ({ context }) => context.assessment.mode === 'widened',
    isReduceOnly: ({ context }) => context.assessment.mode === 'reduce-only',
    isNormal: ({ context }) => context.assessment.mode === 'normal',
    hasOrders: ({ context }) => context.openOrders.length > 0,
  },
  actions: {
    assess: assign(({ context }) => ({ assessment: assess(context) })),
    /**
     * Enters a risk mode: logs the change, stores the mode, raises `SETTLE` when the assessment has
     * already left it (a resume straight into a raised mode), and plans on entering `active` (see
     * `enterMode` above).
     */
    enterMode: contextAction(enterMode),
    /**
     * Applies a pure step: stores its context, logs, (re)schedules or cancels the deferred plan's
     * delayed `WAKE`, and emits (and sends to the parent) opened/closed degradation episodes. A
     * submit's results (or failure) are followed by the plan after them in the same action: the same
     * actions, in the same order, as the two steps one after the other would bring. One context action
     * (contextAction.ts): the step's copy of the context is stored as it is, in the same snapshot.
     */
    step: contextAction(applyStep),
    /** The delayed `WAKE` fired (or must not fire any more). */
    clearWake: enqueueActions(({ context, enqueue, event }) => {
      if (context.planDueAt === undefined) return
      if (event.type !== 'WAKE') enqueue.cancel(WAKE_ID)
      enqueue.assign({ planDueAt: undefined, deferredAt: undefined })
    }),
    clearOrders: assign({ openOrders: () => [] }),
  },
}).createMachine({
  id: 'instrument',
  context: ({ input }) => initialContext(input),
  initial: 'syncing',
  // The one submitter, for the actor's whole life: plans go to it as `PLAN` events (`applyStep`).
  invoke: { id: 'submitter', src: 'submitter' },
  // Inputs: `INPUT_HANDLERS` above, on the states that hold them.
  on: {
    RECONFIGURE: {
      actions: [
        assign(({ event }) => ({ deps: event.deps, dirty: true })),
        { type: 'step', params: { kind: 'wake' } },
      ],
    },
    STOP: { target: '.stopped' },
  },
  states: {
    syncing: {
      on: INPUT_HANDLERS,
      always: { guard: 'hasAllInputs', target: 'active', actions: 'assess' },
    },
    active: {
      // One region: the risk mode. The work a plan in flight does is context (`planInFlight`), shown
      // as `repricing` by `instrumentStateValue`; `risk` keeps the state value's shape
      // (`{ active: { risk: mode } }`) without the parallel regions' bookkeeping on every event.
      initial: 'risk',
      on: {
        SETTLE: { guard: 'shouldHalt', target: 'halted' },
        // A deferred plan, or a moment when time alone matters (`timeDue.ts`), is due: no periodic
        // tick, so an actor whose inputs and orders do not change does no work.
        WAKE: { actions: ['clearWake', { type: 'step', params: { kind: 'wake' } }] },
      },
      states: {
        risk: {
          initial: 'normal',
          states: {
            normal: {
              entry: { type: 'enterMode', params: { mode: 'normal' } },
              on: {
                ...ACTIVE_HANDLERS,
                SETTLE: [
                  { guard: 'isWidened', target: 'widened' },
                  { guard: 'isReduceOnly', target: 'reduceOnly' },
                ],
              },
            },
            widened: {
              entry: { type: 'enterMode', params: { mode: 'widened' } },
              on: {
                ...ACTIVE_HANDLERS,
                SETTLE: [
                  { guard: 'isNormal', target: 'normal' },
                  { guard: 'isReduceOnly', target: 'reduceOnly' },
                ],
              },
            },
            reduceOnly: {
              entry: { type: 'enterMode', params: { mode: 'reduce-only' } },
              on: {
                ...ACTIVE_HANDLERS,
                SETTLE: [
                  { guard: 'isNormal', target: 'normal' },
                  { guard: 'isWidened', target: 'widened' },
                ],
              },
            },
          },
        },
      },
    },
    halted: {
      on: { ...INPUT_HANDLERS, ...ANSWER_HANDLERS },
      entry: [{ type: 'enterMode', params: { mode: 'halted' } }, 'clearWake'],
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
          after: { RECHECK: { target: 'idle', reenter: true, actions: 'assess' } },
        },
      },
      always: { guard: 'canResume', target: 'active' },
    },
    stopped: { type: 'final' },
  },
})

export type InstrumentMachine = typeof instrumentMachine
