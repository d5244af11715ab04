/**
 * The context action (src/bot/instrument/contextAction.ts) on xstate's own actor: it stores the decided
 * context object as it is, keeps the snapshot's state value and tags, and resolves the actions it
 * returns in order (a raised event handled in the same macrostep, an emit). This pins the xstate
 * protocol it relies on: a new xstate that stops resolving it fails here.
 */
import { describe, expect, it } from 'vitest'
import { createActor, emit, raise, setup, type UnknownAction } from 'xstate'
import { contextAction, SNAPSHOT_FIELDS } from '../../../src/bot/instrument/contextAction.ts'

interface Ctx {
  count: number
  seen: number[]
}

type Ev = { type: 'ADD'; by: number } | { type: 'NOOP' } | { type: 'DONE' }

const machine = setup({
  types: { context: {} as Ctx, events: {} as Ev, emitted: {} as { type: 'added'; count: number } },
  actions: {
    add: contextAction(({ context }: { context: Ctx }, { by }: { by: number }) => {
      if (by === 0) return { context, actions: undefined }
      const count = context.count + by
      const added = { type: 'added', count }
      const actions: UnknownAction[] = [emit(added)]
      if (count >= 10) actions.push(raise({ type: 'DONE' }))
      return { context: { count, seen: [...context.seen, by] }, actions }
    }),
  },
}).createMachine({
  context: { count: 0, seen: [] },
  initial: 'counting',
  states: {
    counting: {
      tags: ['busy'],
      on: {
        ADD: { actions: { type: 'add', params: ({ event }) => ({ by: event.by }) } },
        NOOP: { actions: { type: 'add', params: { by: 0 } } },
        DONE: 'full',
      },
    },
    full: {},
  },
})

describe('contextAction', () => {
  it('stores the decided context as it is, in a snapshot with the same value and tags', () => {
    const actor = createActor(machine).start()
    const before = actor.getSnapshot()
    actor.send({ type: 'ADD', by: 3 })
    const after = actor.getSnapshot()
    expect(after.context).toEqual({ count: 3, seen: [3] })
    expect(before.context).toEqual({ count: 0, seen: [] })
    expect(after.value).toBe('counting')
    expect(after.value).toBe(before.value)
    expect(after.hasTag('busy')).toBe(true)
    expect(after.matches('counting')).toBe(true)
  })

  it('keeps the context object when the decision returns it unchanged', () => {
    const actor = createActor(machine).start()
    actor.send({ type: 'ADD', by: 2 })
    const ctx = actor.getSnapshot().context
    actor.send({ type: 'NOOP' })
    expect(actor.getSnapshot().context).toBe(ctx)
  })

  it('resolves the returned actions after storing the context: an emit, a raise handled in the same macrostep', () => {
    const actor = createActor(machine).start()
    const emitted: number[] = []
    actor.on('added', (e) => emitted.push(e.count))
    actor.send({ type: 'ADD', by: 4 })
    actor.send({ type: 'ADD', by: 6 })
    expect(emitted).toEqual([4, 10])
    expect(actor.getSnapshot().value).toBe('full')
    expect(actor.getSnapshot().context).toEqual({ count: 10, seen: [4, 6] })
  })

  it("copies xstate's snapshot field by field: the fields it lists are xstate's own, in its order", () => {
    const actor = createActor(machine).start()
    const before = actor.getSnapshot()
    actor.send({ type: 'ADD', by: 1 })
    actor.send({ type: 'ADD', by: 1 })
    // A new xstate with other fields fails here (the copy then falls back to a spread, dropping none).
    expect(Object.keys(before).join(',')).toBe(SNAPSHOT_FIELDS)
    expect(Object.keys(actor.getSnapshot())).toEqual(Object.keys(before))
    expect(actor.getSnapshot().can({ type: 'NOOP' })).toBe(true)
  })
})
