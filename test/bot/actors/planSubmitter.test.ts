/**
 * The instrument actor's submitter over a submit function (src/bot/actors/planSubmitter.ts): each
 * `PLAN` runs once, in order, and is answered with its own number when it settles; a submit that
 * throws at once is answered as a failure, not thrown into the parent.
 */
import { describe, expect, it } from 'vitest'
import { assign, createActor, sendTo, setup } from 'xstate'
import { planSubmitter } from '../../../src/bot/actors/planSubmitter.ts'
import type { PlanAnswer, PlanRequest } from '../../../src/bot/instrument/planSubmission.ts'
import type { PlanOutcome, SubmitPlanInput } from '../../../src/bot/quoting/orderPlan.ts'

const EMPTY: PlanOutcome = { modify: [], create: [], cancel: [] }
const request = (seq: number): PlanRequest => ({
  type: 'PLAN',
  seq,
  input: { instrumentId: seq, plan: { modify: [], create: [], cancel: [] }, priority: 'quote' },
})

/** A parent holding the submitter; SEND hands it a plan, and the answers are recorded in order. */
function parentOf(submit: (input: SubmitPlanInput) => PromiseLike<PlanOutcome>) {
  return setup({
    types: {
      context: {} as { heard: string[] },
      events: {} as { type: 'SEND'; seq: number } | PlanAnswer,
    },
    actors: { submitter: planSubmitter(submit) },
  }).createMachine({
    context: { heard: [] },
    invoke: { id: 'submitter', src: 'submitter' },
    on: {
      SEND: { actions: sendTo('submitter', ({ event }) => request(event.type === 'SEND' ? event.seq : 0)) },
      PLAN_DONE: {
        actions: assign({ heard: ({ context, event }) => [...context.heard, `done ${event.seq}`] }),
      },
      PLAN_FAILED: {
        actions: assign({
          heard: ({ context, event }) => [...context.heard, `failed ${event.seq}: ${String(event.error)}`],
        }),
      },
    },
  })
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

describe('planSubmitter', () => {
  it('runs each plan once, in order, and answers each with its own number', async () => {
    const ran: number[] = []
    const settle: ((ok: boolean) => void)[] = []
    const parent = createActor(
      parentOf(
        (input) =>
          new Promise<PlanOutcome>((resolve, reject) => {
            ran.push(input.instrumentId)
            settle.push((ok) => (ok ? resolve(EMPTY) : reject(new Error('venue down'))))
          }),
      ),
    ).start()
    parent.send({ type: 'SEND', seq: 1 })
    parent.send({ type: 'SEND', seq: 2 })
    expect(ran).toEqual([1, 2])
    settle[1]?.(false)
    settle[0]?.(true)
    await flush()
    expect(parent.getSnapshot().context.heard).toEqual(['failed 2: Error: venue down', 'done 1'])
  })

  it('answers a submit that throws at once as a failure', async () => {
    const parent = createActor(
      parentOf(() => {
        throw new Error('bad input')
      }),
    ).start()
    parent.send({ type: 'SEND', seq: 7 })
    expect(parent.getSnapshot().status).toBe('active')
    await flush()
    expect(parent.getSnapshot().context.heard).toEqual(['failed 7: Error: bad input'])
  })
})
