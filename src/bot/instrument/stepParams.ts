/**
 * What the instrument machine's `step` action is asked to do (an input, a wake, the plan, a submit's
 * answer) and the pure step (steps.ts, bbo.ts, results.ts) each names. The machine applies the step
 * (instrument.machine.ts); this module only chooses it.
 */
import type { PlanOutcome } from '../quoting/orderPlan.ts'
import { bboStep } from './bbo.ts'
import type { InstrumentContext, InstrumentEvent } from './context.ts'
import { applyOutcome, resultsStep, submitFailedStep } from './results.ts'
import type { Step } from './step.ts'
import { type InputEvent, inputStep, inputsStep, planStep, wakeStep } from './steps.ts'

export type StepParams =
  | { kind: 'input'; event: InputEvent }
  | { kind: 'inputs'; events: readonly InputEvent[] }
  | { kind: 'wake' }
  | { kind: 'bbo'; event: Extract<InstrumentEvent, { type: 'BBO' }> }
  | { kind: 'plan' }
  | { kind: 'results'; seq: number; outcome: PlanOutcome }
  | { kind: 'failed'; seq: number; error: unknown }

/** The plan on entering `active`, and after a submit's answer. */
export const PLAN: StepParams = { kind: 'plan' }

export function computeStep(ctx: InstrumentContext, p: StepParams, now: number): Step {
  switch (p.kind) {
    case 'input':
      return inputStep(ctx, p.event, now)
    case 'inputs':
      return inputsStep(ctx, p.events, now)
    case 'wake':
      return wakeStep(ctx, now)
    case 'bbo':
      return bboStep(ctx, p.event, now)
    case 'plan':
      return planStep(ctx, now, false)
    case 'results': {
      const plan = ctx.pendingPlan
      if (!plan || p.seq !== ctx.planInFlight) return notInFlight(ctx, p.seq)
      return resultsStep(ctx, applyOutcome(ctx.openOrders, plan, p.outcome, ctx.instrument.id, now), now)
    }
    case 'failed':
      if (p.seq !== ctx.planInFlight) return notInFlight(ctx, p.seq)
      return submitFailedStep(ctx, p.error, now)
  }
}

/**
 * An answer to a plan that is not the one in flight: none is superseded (a halt keeps the plan in
 * flight and applies its answer when it comes), and the one submitter answers in order, so this is
 * a fault in the submitter; the answer is logged and dropped.
 */
const notInFlight = (ctx: InstrumentContext, seq: number): Step => ({
  update: undefined,
  logs: [
    {
      level: 'error',
      fields: { seq, inFlight: ctx.planInFlight },
      msg: `an answer to plan ${seq}, which is not the plan in flight: dropped`,
    },
  ],
  changes: [],
  due: ctx.deferredAt,
})
