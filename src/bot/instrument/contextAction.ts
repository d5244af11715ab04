/**
 * An xstate action that stores a whole new context and hands back the actions that follow it, in one
 * resolution: what `enqueueActions` with a single `assign` does, at a fraction of the cost on the
 * instrument actor's hottest path (every input). xstate's `assign` copies the whole context into a new
 * object (`Object.assign({}, context, update)`) and builds a new snapshot from scratch, its state value
 * and tags recomputed from the active state nodes; `enqueueActions` builds its nine `enqueue` closures
 * for every call. Here the step's own copy of the context is stored as it is, and the snapshot is the
 * previous one with that context: a context change leaves the state nodes, hence the state value and
 * tags, as they were.
 *
 * This is xstate v5's protocol for its built-in actions (`assign`, `raise`, `enqueueActions`): an action
 * function with a `resolve(actorScope, snapshot, args, params)` that returns the next snapshot and the
 * actions to resolve after it (`resolveAndExecuteActionsWithContext`); the function itself is never
 * called (xstate resolves a built-in action instead). test/bot/instrument/contextAction.test.ts pins
 * the protocol: a new xstate must pass it.
 */
import type {
  ActionFunction,
  AnyActorRef,
  AnyMachineSnapshot,
  EventObject,
  MachineContext,
  ParameterizedObject,
  ProvidedActor,
  UnknownAction,
} from 'xstate'

/** What a context action decides: the next context (the same object: unchanged) and the actions after it. */
export interface ContextDecision<TContext> {
  context: TContext
  /** Resolved in order after the context is stored (a raise, a cancel, an emit, a log function…). */
  actions: UnknownAction[] | undefined
}

export interface ContextActionArgs<TContext> {
  context: TContext
  event: EventObject
  self: AnyActorRef
}

/** The fields of xstate's machine snapshot, in its order (`createMachineSnapshot`, xstate 5). */
export const SNAPSHOT_FIELDS =
  'status,output,error,machine,context,_nodes,value,tags,children,historyValue,matches,hasTag,can,getMeta,toJSON'

/** Whether xstate's snapshots have exactly `SNAPSHOT_FIELDS` (read from the first one seen). */
let knownFields: boolean | undefined

/**
 * `snapshot` with `context`: every field listed, in xstate's own order, so the copy is one literal of
 * one shape. A spread (`{ ...snapshot, context }`) of a snapshot that is itself such a copy takes
 * V8's slow clone path: ~1.5 µs per input in the backtest's profile, against ~20 ns for the literal.
 * A snapshot with other fields (another xstate) is spread, so no field is ever dropped.
 */
function withContext(snapshot: AnyMachineSnapshot, context: MachineContext): AnyMachineSnapshot {
  knownFields ??= Object.keys(snapshot).join(',') === SNAPSHOT_FIELDS
  // A context action runs in an active machine; any other status is copied as it is.
  if (!knownFields || snapshot.status !== 'active') return { ...snapshot, context }
  return {
    status: snapshot.status,
    output: snapshot.output,
    error: snapshot.error,
    machine: snapshot.machine,
    context,
    _nodes: snapshot._nodes,
    value: snapshot.value,
    tags: snapshot.tags,
    children: snapshot.children,
    historyValue: snapshot.historyValue,
    matches: snapshot.matches,
    hasTag: snapshot.hasTag,
    can: snapshot.can,
    getMeta: snapshot.getMeta,
    toJSON: snapshot.toJSON,
  }
}

/** Typed as xstate's own actions are: its type parameters come from where it is used (`setup`). */
export function contextAction<
  TContext extends MachineContext,
  TExpressionEvent extends EventObject,
  TParams extends ParameterizedObject['params'] | undefined,
  TEvent extends EventObject = TExpressionEvent,
  TActor extends ProvidedActor = ProvidedActor,
  TAction extends ParameterizedObject = ParameterizedObject,
  TGuard extends ParameterizedObject = ParameterizedObject,
  TDelay extends string = never,
  TEmitted extends EventObject = EventObject,
>(
  decide: (args: ContextActionArgs<TContext>, params: TParams) => ContextDecision<TContext>,
): ActionFunction<TContext, TExpressionEvent, TEvent, TParams, TActor, TAction, TGuard, TDelay, TEmitted> {
  function resolve(
    scope: { self: AnyActorRef },
    snapshot: AnyMachineSnapshot,
    args: { event: EventObject },
    params: TParams,
  ): [AnyMachineSnapshot, undefined, UnknownAction[] | undefined] {
    const context: TContext = snapshot.context
    const d = decide({ context, event: args.event, self: scope.self }, params)
    // The same snapshot when nothing changed; else the same state nodes, value and tags with the new context.
    const next = d.context === context ? snapshot : withContext(snapshot, d.context)
    return [next, undefined, d.actions]
  }
  const action = (): void => undefined
  return Object.assign(action, { type: 'perpbot.contextAction', resolve })
}
