/**
 * The root actor: spawns one instrument actor per configured instrument (and one per instrument a
 * reload adds, on `SPAWN`), routes inputs to them, and supervises them. A child that fails (a bug
 * throwing inside it) is restarted up to a limit with its last known inputs re-fed by the runtime
 * (`restarted` is emitted for that); past the limit it stays down and `gaveUp` is emitted so the
 * runtime can alert. A child's own alerts (`degraded`/`recovered`, once per episode) reach the
 * supervisor as events and are re-emitted unchanged. Children share the system clock, so their
 * delays run on whatever clock the root was created with.
 */
import { type ActorRefFrom, assign, emit, enqueueActions, setup, stopChild } from 'xstate'
import type { Logger } from '../../logging/logger.ts'
import {
  type InstrumentEmitted,
  type InstrumentEvent,
  type InstrumentInput,
  instrumentMachine,
} from '../instrument/instrument.machine.ts'

export interface SupervisedInstrument {
  id: number
  symbol: string
  /** Base asset whose index price feeds this instrument. */
  asset: string
  input: InstrumentInput
}

export interface SupervisorInput {
  instruments: SupervisedInstrument[]
  logger: Logger
  maxRestarts: number
}

interface SupervisorContext {
  instruments: SupervisedInstrument[]
  logger: Logger
  maxRestarts: number
  restarts: Record<number, number>
  down: number[]
}

/** xstate's event for a child that threw (`xstate.error.actor.<child id>`). */
export interface ChildFailure {
  type: `xstate.error.actor.${string}`
  error: unknown
}

const isChildFailure = (e: { type: string }): e is ChildFailure => e.type.startsWith('xstate.error.actor.')

export type SupervisorEvent =
  | { type: 'STOP_ALL' }
  /** An instrument added while running (a reload): supervised and spawned like those at start. */
  | { type: 'SPAWN'; instrument: SupervisedInstrument }
  | ChildFailure
  /** From a child: its alerts, re-emitted as they are. */
  | InstrumentEmitted

export type SupervisorEmitted =
  | { type: 'restarted'; id: number; attempt: number }
  | { type: 'gaveUp'; id: number }
  | InstrumentEmitted

export const childId = (instrumentId: number) => `instrument-${instrumentId}` as const

export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    input: {} as SupervisorInput,
    events: {} as SupervisorEvent,
    emitted: {} as SupervisorEmitted,
    children: {} as { [id: `instrument-${number}`]: 'instrument' },
  },
  actors: { instrument: instrumentMachine },
  actions: {
    restartFailedChild: enqueueActions(({ context, event, enqueue }) => {
      if (!isChildFailure(event)) return
      const failure = event
      const m = /^xstate\.error\.actor\.instrument-(\d+)$/.exec(failure.type)
      if (!m) return
      const id = Number(m[1])
      const inst = context.instruments.find((i) => i.id === id)
      if (!inst) return
      const attempt = (context.restarts[id] ?? 0) + 1
      context.logger.error(
        { instrument: inst.symbol, attempt, err: failure.error },
        `instrument actor ${inst.symbol} failed`,
      )
      enqueue(stopChild(childId(id)))
      if (attempt > context.maxRestarts) {
        enqueue(assign({ down: [...context.down, id] }))
        enqueue(emit({ type: 'gaveUp', id }))
        return
      }
      enqueue(assign({ restarts: { ...context.restarts, [id]: attempt } }))
      enqueue.spawnChild('instrument', { id: childId(id), input: inst.input })
      enqueue(emit({ type: 'restarted', id, attempt }))
    }),
  },
}).createMachine({
  id: 'supervisor',
  context: ({ input }) => ({
    instruments: input.instruments,
    logger: input.logger,
    maxRestarts: input.maxRestarts,
    restarts: {},
    down: [],
  }),
  entry: enqueueActions(({ context, enqueue }) => {
    for (const inst of context.instruments) {
      enqueue.spawnChild('instrument', { id: childId(inst.id), input: inst.input })
    }
  }),
  initial: 'running',
  states: {
    running: {
      on: {
        STOP_ALL: { target: 'stopped' },
        SPAWN: {
          guard: ({ context, event }) => !context.instruments.some((i) => i.id === event.instrument.id),
          actions: enqueueActions(({ context, event, enqueue }) => {
            enqueue(assign({ instruments: [...context.instruments, event.instrument] }))
            enqueue.spawnChild('instrument', {
              id: childId(event.instrument.id),
              input: event.instrument.input,
            })
          }),
        },
        degraded: { actions: emit(({ event }) => event) },
        recovered: { actions: emit(({ event }) => event) },
        // A child actor failed: restart it (bounded), or give up on it.
        'xstate.error.actor.*': { actions: 'restartFailedChild' },
      },
    },
    stopped: {
      entry: enqueueActions(({ context, enqueue }) => {
        for (const inst of context.instruments) enqueue.sendTo(childId(inst.id), { type: 'STOP' })
      }),
      type: 'final',
    },
  },
})

export type SupervisorActor = ActorRefFrom<typeof supervisorMachine>
export type InstrumentActor = ActorRefFrom<typeof instrumentMachine>

/**
 * Sends `event` to the listed instruments' actors (all when `ids` is undefined), straight to each
 * child rather than through a supervisor transition: an input costs one XState transition, not two.
 * A child given up on is stopped and gone from the children, so it receives nothing; a restarted one
 * is the new child under the same id. A child that throws still reports to the supervisor.
 */
export function routeToInstruments(
  supervisor: SupervisorActor,
  ids: readonly number[] | undefined,
  event: InstrumentEvent,
): void {
  const { children, status, context } = supervisor.getSnapshot()
  if (status !== 'active') return
  const targets = ids ?? context.instruments.map((i) => i.id)
  for (const id of targets) children[childId(id)]?.send(event)
}
