import { describe, expect, it } from 'vitest'
import { createActor, fromPromise, SimulatedClock } from 'xstate'
import { planSubmitter } from '../../../src/bot/actors/planSubmitter.ts'
import {
  childId,
  routeToInstruments,
  type SupervisorEmitted,
  supervisorMachine,
} from '../../../src/bot/actors/supervisor.machine.ts'
import type { InstrumentDeps } from '../../../src/bot/instrument/instrument.machine.ts'
import { instrumentMachine } from '../../../src/bot/instrument/instrument.machine.ts'
import type { PlanOutcome } from '../../../src/bot/quoting/orderPlan.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import { margin, risk } from '../instrument/helpers.ts'

const silent = createLogger({ destination: { write: () => undefined }, pretty: 'never' })

function setupSupervisor(opts: { explodeOn?: number; maxRestarts?: number; strategyThrowsOn?: number } = {}) {
  const clock = new SimulatedClock()
  clock.set(1_767_000_000_000)
  const deps = (id: number): InstrumentDeps => ({
    clock: {
      now: () => {
        if (opts.explodeOn === id && boom.armed) {
          boom.armed = false // one failure per arming
          throw new Error('bug inside an actor')
        }
        return clock.now()
      },
    },
    logger: silent,
    plan: () => {
      if (opts.strategyThrowsOn === id) throw new Error('strategy bug')
      return { modify: [], create: [], cancel: [] }
    },
    risk,
    recheckMs: 1_000,
    minRepriceIntervalMs: 0,
    rejectBackoffMs: 1_000,
    maxOrderAgeMs: 120_000,
    guard: { maxIndexJump: '0.1', degradeAfter: 3 },
  })
  const boom = { armed: false }
  const instruments = [1, 2, 3].map((id) => ({
    id,
    symbol: `S${id}-USDC`,
    asset: `S${id}`,
    input: {
      instrument: {
        id,
        symbol: `S${id}-USDC`,
        priceDecimals: 2,
        quantityDecimals: 2,
        priceBounds: '0.05',
        minNotional: '1',
        maxOrderCount: 10,
      },
      deps: deps(id),
    },
  }))
  const machine = supervisorMachine.provide({
    actors: {
      instrument: instrumentMachine.provide({
        actors: {
          submitter: planSubmitter(
            async (): Promise<PlanOutcome> => ({
              modify: [],
              create: [],
              cancel: [],
            }),
          ),
          cancelAll: fromPromise<void, { instrumentId: number }>(async () => undefined),
        },
      }),
    },
  })
  const actor = createActor(machine, {
    clock,
    input: { instruments, logger: silent, maxRestarts: opts.maxRestarts ?? 2 },
  })
  const emitted: SupervisorEmitted[] = []
  actor.on('restarted', (e) => emitted.push(e))
  actor.on('gaveUp', (e) => emitted.push(e))
  actor.on('degraded', (e) => emitted.push(e))
  actor.on('recovered', (e) => emitted.push(e))
  actor.start()
  const feed = (ids?: number[]) => {
    const now = clock.now()
    for (const event of [
      { type: 'INDEX' as const, index: { price: '100', ts: now }, receivedAt: now },
      {
        type: 'STATISTICS' as const,
        statistics: { volume: '1', openPrice: '100', klines: [] },
        receivedAt: now,
      },
      { type: 'ACCOUNT' as const, margin: margin(0.1), position: undefined, receivedAt: now },
      { type: 'ORDERS' as const, orders: [], receivedAt: now },
    ]) {
      routeToInstruments(actor, ids, event)
    }
  }
  const child = (id: number) => actor.getSnapshot().children[childId(id)]
  return { actor, clock, boom, emitted, feed, child }
}

describe('supervisor', () => {
  it('spawns one actor per instrument and routes inputs to the ones addressed', () => {
    const s = setupSupervisor()
    expect(Object.keys(s.actor.getSnapshot().children).sort()).toEqual([
      'instrument-1',
      'instrument-2',
      'instrument-3',
    ])
    s.feed([1, 3])
    expect(s.child(1)?.getSnapshot().value).toMatchObject({ active: { risk: 'normal' } })
    expect(s.child(2)?.getSnapshot().value).toBe('syncing')
    expect(s.child(3)?.getSnapshot().value).toMatchObject({ active: { risk: 'normal' } })
  })

  it('routes a BBO to the instrument it names', () => {
    const s = setupSupervisor()
    const bbo = { bid: { price: '99', qty: '1' }, ask: { price: '101', qty: '1' } }
    routeToInstruments(s.actor, [2], { type: 'BBO', bbo, receivedAt: s.clock.now() })
    const ctx = (id: number) => s.child(id)?.getSnapshot().context as { bbo?: unknown } | undefined
    expect(ctx(2)?.bbo).toEqual({ ...bbo, receivedAt: s.clock.now() })
    expect(ctx(1)?.bbo).toBeUndefined()
  })

  it('restarts a failed child with a fresh actor, then gives up after the limit', () => {
    const s = setupSupervisor({ explodeOn: 2, maxRestarts: 1 })
    const poke = () => {
      s.boom.armed = true
      routeToInstruments(s.actor, [2], { type: 'BREAKER', open: false })
    }
    poke()
    expect(s.emitted).toEqual([{ type: 'restarted', id: 2, attempt: 1 }])
    expect(s.child(2)?.getSnapshot().value).toBe('syncing')
    poke()
    expect(s.emitted.at(-1)).toEqual({ type: 'gaveUp', id: 2 })
    expect(s.child(2)).toBeUndefined()
    // Others are unaffected.
    s.feed()
    expect(s.child(1)?.getSnapshot().value).toMatchObject({ active: { risk: 'normal' } })
  })

  it("re-emits a child's degradation alert, once per episode", () => {
    const s = setupSupervisor({ strategyThrowsOn: 3 })
    s.feed()
    for (let i = 0; i < 20; i++) s.clock.increment(250)
    expect(s.emitted).toEqual([
      {
        type: 'degraded',
        instrumentId: 3,
        symbol: 'S3-USDC',
        cause: 'strategy',
        reason: 'strategy failed: strategy bug',
        at: expect.any(Number),
      },
    ])
  })

  it('stops every child on STOP_ALL', () => {
    const s = setupSupervisor()
    const c1 = s.child(1)
    s.actor.send({ type: 'STOP_ALL' })
    expect(s.actor.getSnapshot().status).toBe('done')
    expect(c1?.getSnapshot().status).not.toBe('active')
  })
})
