/**
 * One instrument of the fast engine: the bot's own instrument machine (instrument.machine.ts), run with
 * xstate's pure transitions on the backtest's virtual clock. The machine decides everything, as in the
 * live bot; this driver only carries out the side effects the pure transition hands back instead of
 * running them:
 *
 * - a plan sent to the `submitter` child (a `PLAN` event): the plan goes to the venue at once, and the
 *   venue's answer comes back as the child's `PLAN_DONE` (the live bot's batcher and gateway are left
 *   out); no child is built or started for it;
 * - an invoked `cancelAll` (a halt): every resting order of the instrument is cancelled, then done;
 * - a delayed raise (the deferred plan's `WAKE`, the halted `RECHECK`/`RETRY`): a timer, fired when the
 *   backtest's clock reaches it (`nextDue`, `wake`); a cancel removes it;
 * - the machine's own functions (its log lines): run as the actor would.
 * Emitted degradation events have no listener here (the backtest has no alerts), and no child actor
 * is ever started (the submitter's, invoked at the machine's start, is built once and never runs).
 *
 * The pure transition is the machine's own `transition(snapshot, event, scope)` / `getInitialSnapshot`
 * with an inert scope whose action executor collects the actions, which is what xstate's exported
 * `transition()` / `initialTransition()` do. Those build a throwaway actor and system for every call
 * (its eager initial snapshot without input throws inside our context factory): 40 % of the engine's
 * CPU in a profile. Here the scope is built once per instrument.
 */
import {
  type AnyActorScope,
  type AnyStateMachine,
  createActor,
  type EventObject,
  type ExecutableActionObject,
} from 'xstate'
import {
  type InstrumentContext,
  type InstrumentEvent,
  type InstrumentInput,
  type InstrumentSnapshot,
  instrumentMachine,
  instrumentStatePath,
  instrumentStateValue,
  type OrderPlan,
  type PlanAnswer,
  type PlanOutcome,
  type PlanRequest,
} from '../../bot/researchApi.ts'

/** Where a driver's plans go (the fast engine's venue). */
export interface PlanTarget {
  submit(plan: OrderPlan): PlanOutcome
  cancelAll(): void
}

/**
 * The machine as xstate's generic logic: what it is sent here includes its own internal events (a
 * delayed raise's event, an invoke's done event), which its typed event union leaves out.
 */
const machine: AnyStateMachine = instrumentMachine

/** An invoked child's done event, as the actor system sends it to its parent. */
interface DoneEvent extends EventObject {
  output: unknown
}

/** Answers the machine is sent after the transition that asked for them. */
type Answer = DoneEvent | PlanAnswer

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null
const isEvent = (v: unknown): v is EventObject => isObject(v) && 'type' in v && typeof v.type === 'string'

/** A plan sent to the submitter (the machine's `sendTo`, resolved by the pure transition). */
const isPlanRequest = (v: unknown): v is PlanRequest =>
  isEvent(v) &&
  v.type === 'PLAN' &&
  'seq' in v &&
  typeof v.seq === 'number' &&
  'input' in v &&
  isObject(v.input) &&
  'plan' in v.input &&
  isObject(v.input.plan)

/** Answers in a row one input or wake may bring at one moment; past it the driver throws (a loop). */
const MAX_SETTLE = 64

export class MachineDriver {
  #snapshot: InstrumentSnapshot
  /** The machine's delayed events by their id, with the virtual time they fire. */
  readonly #timers = new Map<string, { at: number; event: EventObject }>()
  /**
   * Answers (a plan's, an invoked child's done event), sent after the transition that asked for them
   * (as the actor does).
   */
  readonly #queue: Answer[] = []
  readonly #target: PlanTarget
  readonly #clock: { now(): number }
  #anonymous = 0
  /** The last state path read, with what it was made from (`state`). */
  #state: { value: unknown; inFlight: boolean; path: string } | undefined
  /** Plans the venue received. */
  submitted = 0

  /** The inert scope of every transition: nothing runs, the actions are collected. */
  readonly #scope: AnyActorScope
  readonly #actions: ExecutableActionObject[] = []

  constructor(input: InstrumentInput, target: PlanTarget) {
    this.#target = target
    this.#clock = input.deps.clock
    // Never started: it only stands for `self` (the parent of the children the machine invokes).
    const self = createActor(instrumentMachine, { input })
    const none = (): void => undefined
    this.#scope = {
      self,
      id: '',
      sessionId: '',
      logger: none,
      defer: none,
      emit: none,
      system: self.system,
      stopChild: none,
      actionExecutor: (action) => {
        this.#actions.push(action)
      },
    }
    this.#snapshot = instrumentMachine.getInitialSnapshot(this.#scope, input)
    this.#run()
    this.#drain()
  }

  get context(): InstrumentContext {
    return this.#snapshot.context
  }

  /**
   * The state path as `/status` names it (`active.normal.quoting`, `halted.idle`, `syncing`). Kept
   * while the state value (the same object while only the context changes) and whether a plan is in
   * flight stay the same: the recorder reads every instrument's state at nearly every step.
   */
  get state(): string {
    const snapshot = this.#snapshot
    const inFlight = snapshot.context.planInFlight !== undefined
    const last = this.#state
    if (last !== undefined && last.value === snapshot.value && last.inFlight === inFlight) return last.path
    const path = instrumentStatePath(instrumentStateValue(snapshot))
    this.#state = { value: snapshot.value, inFlight, path }
    return path
  }

  /** When the earliest delayed event fires; undefined when none is scheduled. */
  nextDue(): number | undefined {
    let due: number | undefined
    for (const t of this.#timers.values()) if (due === undefined || t.at < due) due = t.at
    return due
  }

  send(event: InstrumentEvent): void {
    this.#send(event)
    this.#drain()
  }

  /** Time has reached `nextDue()`: the earliest delayed event fires. */
  wake(now: number): void {
    let first: [string, { at: number; event: EventObject }] | undefined
    for (const entry of this.#timers) if (first === undefined || entry[1].at < first[1].at) first = entry
    if (first === undefined || first[1].at > now) return
    this.#timers.delete(first[0])
    this.#send(first[1].event)
    this.#drain()
  }

  #send(event: EventObject): void {
    this.#snapshot = machine.transition(this.#snapshot, event, this.#scope)
    this.#run()
  }

  #drain(): void {
    for (let i = 0; this.#queue.length > 0; i++) {
      if (i >= MAX_SETTLE)
        throw new Error(
          `instrument ${this.context.instrument.symbol}: ${MAX_SETTLE} plans in a row at one moment (a loop)`,
        )
      const event = this.#queue.shift()
      if (event !== undefined) this.#send(event)
    }
  }

  /**
   * Carries out the actions the last transition collected. Invoked children start after the whole
   * list, and not at all when the same transition stopped them again, as the actor defers a child's
   * start to the end of the transition; a plan sent goes to the venue after the list too, as the actor
   * defers a `sendTo`.
   */
  #run(): void {
    const actions = this.#actions
    if (actions.length === 0) return
    const now = this.#clock.now()
    // Most transitions invoke nothing: the list of children is made for the few that do.
    let started: { id: string; ref: unknown; src: unknown }[] | undefined
    let plan: PlanRequest | undefined
    // The list is emptied after the loop: an action run here adds none (nothing runs a transition).
    for (const a of actions) {
      const p = a.params
      switch (a.type) {
        case 'xstate.raise':
          // A raise without a delay was consumed inside the transition.
          if (isObject(p) && 'delay' in p && typeof p.delay === 'number' && 'event' in p && isEvent(p.event))
            this.#timers.set(
              'id' in p && typeof p.id === 'string' ? p.id : `anonymous:${this.#anonymous++}`,
              { at: now + p.delay, event: p.event },
            )
          break
        case 'xstate.cancel':
          if (isObject(p) && 'sendId' in p && typeof p.sendId === 'string') this.#timers.delete(p.sendId)
          break
        case 'xstate.spawnChild':
          if (isObject(p) && 'id' in p && typeof p.id === 'string' && 'src' in p) {
            started ??= []
            started.push({
              id: p.id,
              ref: 'actorRef' in p ? p.actorRef : undefined,
              src: p.src,
            })
          }
          break
        case 'xstate.stopChild': {
          const ref = isObject(p) && 'actorRef' in p ? p.actorRef : undefined
          const at = ref === undefined || started === undefined ? -1 : started.findIndex((c) => c.ref === ref)
          if (at >= 0) started?.splice(at, 1)
          break
        }
        case 'xstate.sendTo':
          // A plan to the submitter (one per transition at most); else to the parent, which is none.
          if (isObject(p) && 'event' in p && isPlanRequest(p.event)) {
            if (plan !== undefined)
              throw new Error(
                `instrument ${this.context.instrument.symbol}: two plans sent in one transition`,
              )
            plan = p.event
          }
          break
        case 'xstate.emit':
          // Emitted alerts have no listener here.
          break
        default:
          a.exec?.(a.info, p)
      }
    }
    actions.length = 0
    if (started !== undefined) for (const c of started) this.#invoke(c.id, c.src)
    if (plan !== undefined) {
      this.submitted++
      this.#queue.push({ type: 'PLAN_DONE', seq: plan.seq, output: this.#target.submit(plan.input.plan) })
    }
  }

  /** Runs an invoked child's work at once; its done event follows this transition (`#drain`). */
  #invoke(id: string, src: unknown): void {
    const done = `xstate.done.actor.${id}`
    if (src === 'submitter') {
      // Its plans are answered here (`PLAN`, above): it never runs.
    } else if (src === 'cancelAll') {
      this.#target.cancelAll()
      this.#queue.push({ type: done, output: undefined })
    } else {
      throw new Error(`the backtest cannot run the machine's '${String(src)}' actor`)
    }
  }
}
