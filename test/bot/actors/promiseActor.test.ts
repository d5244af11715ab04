import { describe, expect, it } from 'vitest'
import { assign, createActor, fromPromise, setup, waitFor } from 'xstate'
import { fromUnabortablePromise } from '../../../src/bot/actors/promiseActor.ts'
import { deferred } from '../../helpers/deferred.ts'

/** A parent invoking `work` in `busy`, leaving it on done, error or LEAVE; records what it heard. */
function parentOf(work: ReturnType<typeof fromUnabortablePromise<number, { n: number }>>) {
  return setup({
    types: { context: {} as { heard: string[] }, events: {} as { type: 'LEAVE' } },
    actors: { work },
  }).createMachine({
    context: { heard: [] },
    initial: 'busy',
    states: {
      busy: {
        invoke: {
          src: 'work',
          input: { n: 2 },
          onDone: {
            target: 'idle',
            actions: assign({ heard: ({ context, event }) => [...context.heard, `done ${event.output}`] }),
          },
          onError: {
            target: 'idle',
            actions: assign({
              heard: ({ context, event }) => [...context.heard, `error ${String(event.error)}`],
            }),
          },
        },
        on: { LEAVE: 'idle' },
      },
      idle: {},
    },
  })
}

describe('fromUnabortablePromise', () => {
  it('answers done with the output and error with the reason, from the input, as fromPromise does', async () => {
    for (const make of [
      fromUnabortablePromise,
      <O, I extends object>(run: (i: I) => PromiseLike<O>) => fromPromise<O, I>(({ input }) => run(input)),
    ]) {
      const ok = createActor(parentOf(make(async (i: { n: number }) => i.n * 21))).start()
      const bad = createActor(
        parentOf(
          make(async (i: { n: number }): Promise<number> => {
            throw new Error(`no ${i.n}`)
          }),
        ),
      ).start()
      await waitFor(ok, (s) => s.matches('idle'))
      await waitFor(bad, (s) => s.matches('idle'))
      expect(ok.getSnapshot().context.heard).toEqual(['done 42'])
      expect(bad.getSnapshot().context.heard).toEqual(['error Error: no 2'])
    }
  })

  it('is stopped when its state exits: a later result is heard by no one', async () => {
    const d = deferred<number>()
    const parent = createActor(parentOf(fromUnabortablePromise(() => d.promise))).start()
    const child = Object.values(parent.getSnapshot().children)[0]
    parent.send({ type: 'LEAVE' })
    expect(child?.getSnapshot().status).toBe('stopped')
    d.resolve(7)
    // The actor's own reaction to the result was queued before this await's.
    await d.promise
    expect(parent.getSnapshot().value).toBe('idle')
    expect(parent.getSnapshot().context.heard).toEqual([])
    expect(child?.getSnapshot().status).toBe('stopped')
  })
})
