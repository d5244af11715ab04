/**
 * xstate's promise actor logic (`fromPromise`) without the `AbortController` its `start` makes for
 * every actor: the instrument machine invokes one per cancel-all, and nothing reads the
 * signal (the order gateway takes the input alone; a stopped actor's late result is dropped by the
 * status check, as in `fromPromise`). The transitions (done, error, stopped on exit), the initial
 * snapshot and persistence are `fromPromise`'s own; only `start` is ours, and it answers with the
 * same `xstate.promise.resolve` / `xstate.promise.reject` events.
 */
import { fromPromise, type PromiseActorLogic } from 'xstate'

/** The events `fromPromise`'s transition reads (xstate 5's names; the version is pinned exactly). */
const RESOLVE = 'xstate.promise.resolve'
const REJECT = 'xstate.promise.reject'

export function fromUnabortablePromise<TOutput, TInput extends object>(
  run: (input: TInput) => PromiseLike<TOutput>,
): PromiseActorLogic<TOutput, TInput> {
  const logic = fromPromise<TOutput, TInput>(({ input }) => run(input))
  return {
    ...logic,
    start: (snapshot, { self }) => {
      if (snapshot.status !== 'active') return
      const input = snapshot.input
      // An active snapshot holds its input (only done, error and stop clear it); an invoke without
      // one fails as the gateway would, with an error event.
      const result =
        input === undefined
          ? Promise.reject(new Error('promise actor started without its input'))
          : run(input)
      Promise.resolve(result).then(
        (data) => {
          if (self.getSnapshot().status !== 'active') return
          self.send({ type: RESOLVE, data })
        },
        (data: unknown) => {
          if (self.getSnapshot().status !== 'active') return
          self.send({ type: REJECT, data })
        },
      )
    },
  }
}
