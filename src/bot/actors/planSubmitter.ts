/**
 * The instrument actor's submitter (instrument/planSubmission.ts) over a submit function, as the bot
 * wires it to the order gateway (actorWiring.ts) and the tests to their stand-in venues: one call per
 * `PLAN`, in the order they come, answered when it settles.
 */
import { type CallbackActorLogic, fromCallback } from 'xstate'
import type { PlanAnswer, PlanRequest } from '../instrument/planSubmission.ts'
import type { PlanOutcome, SubmitPlanInput } from '../quoting/orderPlan.ts'

/** Submitter logic running each plan through `submit` (a synchronous throw is a failure too). */
export function planSubmitter(
  submit: (input: SubmitPlanInput) => PromiseLike<PlanOutcome>,
): CallbackActorLogic<PlanRequest> {
  return fromCallback<PlanRequest>(({ receive, sendBack }) => {
    receive(({ seq, input }) => {
      let result: PromiseLike<PlanOutcome>
      try {
        result = submit(input)
      } catch (error) {
        result = Promise.reject(error)
      }
      // `Promise.resolve` of a native promise is that promise: answered in the tick it settles, as
      // the promise actor this replaced answered.
      Promise.resolve(result).then(
        (output) => sendBack({ type: 'PLAN_DONE', seq, output } satisfies PlanAnswer),
        (error: unknown) => sendBack({ type: 'PLAN_FAILED', seq, error } satisfies PlanAnswer),
      )
    })
  })
}
