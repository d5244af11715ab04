/**
 * The bench's baseline (see runBacktest.ts here): one instrument of the hand-written fast engine of
 * 7f14129, the bot's instrument actor without xstate. The decisions are the
 * actor's own pure steps (src/bot/instrument/steps.ts: store, assess risk, plan with the strategy,
 * quote diff and price guard; results.ts: apply the venue's answer); this file only does what the machine's
 * transitions do around them (instrument.machine.ts), synchronously:
 *
 * - syncing until every input has arrived, then active;
 * - active: a risk mode change is entered (`enterMode`: mode, its start, dirty); a pending plan is
 *   submitted at once and its results applied, then the plan after it is made (the `quoting` entry);
 *   the step's due time is the one `WAKE` (`nextTimeDue`);
 * - halted: every resting order cancelled, re-assessed every `recheckMs`, active again when it may.
 */

import type { RiskMode } from '../../src/bot/instrument/assessRisk.ts'
import {
  assess,
  hasAllInputs,
  type InstrumentContext,
  type InstrumentEvent,
  type InstrumentInput,
  initialContext,
} from '../../src/bot/instrument/context.ts'
import { applyOutcome, resultsStep } from '../../src/bot/instrument/results.ts'
import type { Step } from '../../src/bot/instrument/step.ts'
import { type InputEvent, inputStep, planStep, wakeStep } from '../../src/bot/instrument/steps.ts'
import { nextTimeDue } from '../../src/bot/instrument/timeDue.ts'
import type { OrderPlan, PlanOutcome } from '../../src/bot/quoting/orderPlan.ts'

/** Where a runner's plans go (the fast engine's venue). */
export interface PlanTarget {
  submit(plan: OrderPlan): PlanOutcome
  cancelAll(): void
}

type Phase = 'syncing' | 'active' | 'halted'

/** Transitions one input or wake may take before the runner gives up on it (a loop that never settles). */
const MAX_SETTLE = 64

export class InstrumentRunner {
  /** Owned by the runner and updated in place (no step keeps a reference to it). */
  readonly #ctx: InstrumentContext
  #phase: Phase = 'syncing'
  #recheckAt: number | undefined
  readonly #target: PlanTarget
  /** Plans the venue received (not counting empty ones). */
  submitted = 0

  constructor(input: InstrumentInput, target: PlanTarget) {
    this.#ctx = initialContext(input)
    this.#target = target
  }

  get context(): InstrumentContext {
    return this.#ctx
  }

  /** The state path as `/status` names it (`active…`, `halted…`, `syncing`), for the state timer. */
  get state(): string {
    return this.#phase === 'active' ? `active.${this.#ctx.mode.mode}` : this.#phase
  }

  /** When time alone is next due (a WAKE, or a halted re-check); undefined when nothing is. */
  nextDue(): number | undefined {
    if (this.#phase === 'active') return this.#ctx.planDueAt
    if (this.#phase === 'halted') return this.#recheckAt
    return undefined
  }

  input(event: Extract<InstrumentEvent, InputEvent>, now: number): void {
    this.#apply(inputStep(this.#ctx, event, now), now)
    this.#settle(now)
  }

  /** Time has reached `nextDue()`. */
  wake(now: number): void {
    if (this.#phase === 'active') {
      // clearWake, then the wake step (the machine's `WAKE` in `ticker.waiting`).
      this.#ctx.planDueAt = undefined
      this.#ctx.deferredAt = undefined
      this.#apply(wakeStep(this.#ctx, now), now)
    } else if (this.#phase === 'halted') {
      this.#recheckAt = now + this.#ctx.deps.recheckMs
      this.#ctx.assessment = assess(this.#ctx)
    }
    this.#settle(now)
  }

  /** The machine's `step` action: assign the update, and the deferred plan's or time's due moment. */
  #apply(s: Step, now: number): void {
    // Stored in place: the runner owns its context (the steps never keep it), and a copy of this
    // large object per input was a tenth of the engine's time.
    const after = this.#ctx
    if (s.update !== undefined) Object.assign(after, s.update)
    const timeDue = nextTimeDue(after, now)
    let due = s.due === undefined || (timeDue !== undefined && timeDue < s.due) ? timeDue : s.due
    if (due !== undefined && due < now) due = now
    after.deferredAt = s.due
    after.planDueAt = due
  }

  #enterMode(mode: RiskMode, now: number): void {
    const c = this.#ctx
    c.mode = { mode, since: now, transient: c.assessment.transient }
    c.dirty = true
  }

  /** Entering `active`: the risk region's `normal`, then the work region's `quoting` (a plan). */
  #enterActive(now: number): void {
    this.#phase = 'active'
    this.#recheckAt = undefined
    this.#enterMode('normal', now)
    this.#apply(planStep(this.#ctx, now, false), now)
  }

  #settle(now: number): void {
    for (let i = 0; i < MAX_SETTLE; i++) {
      const ctx = this.#ctx
      if (this.#phase === 'syncing') {
        if (!hasAllInputs(ctx)) return
        ctx.assessment = assess(ctx)
        this.#enterActive(now)
        continue
      }
      if (this.#phase === 'halted') {
        if (ctx.openOrders.length > 0) {
          this.#target.cancelAll()
          ctx.openOrders = []
        }
        if (ctx.assessment.mode === 'halted') return
        this.#enterActive(now)
        continue
      }
      const mode = ctx.assessment.mode
      if (mode === 'halted') {
        this.#phase = 'halted'
        this.#enterMode('halted', now)
        ctx.planDueAt = undefined
        ctx.deferredAt = undefined
        this.#recheckAt = now + ctx.deps.recheckMs
        continue
      }
      if (mode !== ctx.mode.mode) {
        this.#enterMode(mode, now)
        continue
      }
      const plan = ctx.pendingPlan
      if (plan === undefined) return
      this.submitted++
      const outcome = this.#target.submit(plan)
      const applied = applyOutcome(ctx.openOrders, plan, outcome, ctx.instrument.id, now)
      this.#apply(resultsStep(ctx, applied, now), now)
      // Back in `quoting`: its entry plans again (nearly always nothing: the diff is idempotent).
      this.#apply(planStep(this.#ctx, now, false), now)
    }
  }
}
