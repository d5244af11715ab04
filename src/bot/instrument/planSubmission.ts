/**
 * The instrument actor's joint to its one long-lived submissions child (invoked at its root as
 * `submitter`): the machine sends it each plan as a `PLAN` event with the plan's sequence number, and
 * it answers with `PLAN_DONE` (the per-item outcome) or `PLAN_FAILED` (the submission failed as a
 * whole), carrying that number back. The live bot provides the child from the order gateway's submit
 * (`actors/planSubmitter.ts`); the backtest's driver answers the `PLAN` itself (machineDriver.ts).
 */
import { type CallbackActorLogic, fromCallback } from 'xstate'
import type { PlanOutcome, SubmitPlanInput } from '../quoting/orderPlan.ts'

/** A plan to send (the machine → the submitter). */
export interface PlanRequest {
  type: 'PLAN'
  seq: number
  input: SubmitPlanInput
}

/** The submitter's answer to the plan numbered `seq` (the submitter → the machine). */
export type PlanAnswer =
  | { type: 'PLAN_DONE'; seq: number; output: PlanOutcome }
  | { type: 'PLAN_FAILED'; seq: number; error: unknown }

/** The placeholder the runtime replaces with `provide`: every plan fails. */
export const submitterNotProvided: CallbackActorLogic<PlanRequest> = fromCallback<PlanRequest>(
  ({ receive, sendBack }) => {
    receive(({ seq }) => {
      const answer: PlanAnswer = {
        type: 'PLAN_FAILED',
        seq,
        error: new Error('submitter actor not provided'),
      }
      queueMicrotask(() => sendBack(answer))
    })
  },
)
