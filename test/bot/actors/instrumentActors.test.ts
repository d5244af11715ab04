/**
 * The instrument actors' live list on a simulated clock: an instrument added while running gets an
 * actor under the supervisor (its open orders tracked, `joined` published once the actor exists),
 * quotes once its inputs arrive, and a second add of it changes nothing; a reconfigured strategy that
 * reads statistics is published again, and a restarted actor keeps the reloaded dependencies.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { type ActorInstrument, createInstrumentActors } from '../../../src/bot/actors/instrumentActors.ts'
import type { PlanOutcome, SubmitPlanInput } from '../../../src/bot/quoting/orderPlan.ts'
import { createSignal } from '../../../src/bot/shared/signal.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import { DEFAULT_INSTRUMENTS, instrumentToWire } from '../../../src/mock/perps/instruments.ts'
import type { Instrument } from '../../../src/perps/schemas/info.ts'
import { Settings } from '../../../src/settings/schema.ts'
import { loadStrategies } from '../../../src/strategy/registry.ts'
import { margin } from '../instrument/helpers.ts'

const silent = createLogger({ destination: { write: () => undefined }, pretty: 'never' })

function venueRow(symbol: string): Instrument {
  const spec = DEFAULT_INSTRUMENTS.find((i) => i.symbol === symbol)
  if (spec === undefined) throw new Error(`no ${symbol}`)
  return instrumentToWire(spec)
}

async function setup() {
  const clock = new SimulatedClock()
  clock.set(1_767_000_000_000)
  /** Armed: the actors' next reading of the venue clock throws (a bug inside an actor). */
  const boom = { armed: false }
  const venueClock = {
    now: () => {
      if (boom.armed) {
        boom.armed = false
        throw new Error('bug inside an actor')
      }
      return clock.now()
    },
  }
  const registry = await loadStrategies()
  const peg = registry.resolve('index-peg', { size: '0.01', positionCap: '0.2' })
  const vol = registry.resolve('vol-spread', { size: '0.2', positionCap: '4' })
  const settings = Settings.parse({ instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg' }] })
  const submitted: SubmitPlanInput[] = []
  const tracked: number[] = []
  const actors = createInstrumentActors({
    settings,
    strategies: [{ symbol: 'BTC-USDC', strategy: peg }],
    listed: new Map([['BTC-USDC', venueRow('BTC-USDC')]]),
    gateway: {
      submitPlan: async (input): Promise<PlanOutcome> => {
        submitted.push(input)
        return {
          modify: [],
          create: input.plan.create.map((_, i) => ({ status: 'ok', oid: 100 + i })),
          cancel: [],
        }
      },
      cancelAll: async () => undefined,
    },
    openOrders: { track: (id) => void tracked.push(id), subscribe: () => () => undefined },
    breaker: createSignal(),
    alerts: { send: () => undefined },
    clock,
    venueClock,
    logger: silent,
  })
  const restarts: number[] = []
  actors.restarted.subscribe((id) => void restarts.push(id))
  const joined: { instrument: ActorInstrument; hadActor: boolean; readsStatistics: boolean }[] = []
  actors.joined.subscribe((instrument) =>
    joined.push({
      instrument,
      hadActor: actors.snapshotOf(instrument.id) !== undefined,
      readsStatistics: instrument.readsStatistics,
    }),
  )
  const feed = (id: number, price: string): void => {
    const now = clock.now()
    actors.route([id], { type: 'INDEX', index: { price, ts: now, mark: price }, receivedAt: now })
    actors.route([id], { type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
    actors.route([id], { type: 'ORDERS', orders: [], receivedAt: now })
  }
  const flush = async (): Promise<void> => {
    for (let i = 0; i < 10; i++) await Promise.resolve()
  }
  return { actors, settings, peg, vol, submitted, tracked, joined, feed, flush, boom, restarts }
}

describe('instrument actors: instruments added while running', () => {
  it('spawns an added instrument under the supervisor; it quotes once its inputs arrive', async () => {
    const t = await setup()
    expect(t.actors.instruments.map((i) => i.symbol)).toEqual(['BTC-USDC'])
    const eth = venueRow('ETH-USDC')
    expect(t.actors.snapshotOf(eth.instrument_id)).toBeUndefined()

    expect(t.actors.add({ listed: eth, strategy: t.peg, settings: t.settings, share: undefined })).toBe(
      'added',
    )
    expect(t.actors.instruments.map((i) => i.symbol)).toEqual(['BTC-USDC', 'ETH-USDC'])
    expect(t.tracked).toEqual([eth.instrument_id])
    expect(t.joined).toHaveLength(1)
    expect(t.joined[0]).toMatchObject({ hadActor: true, readsStatistics: false })
    expect(t.joined[0]?.instrument).toMatchObject({ symbol: 'ETH-USDC', asset: 'ETH', strategy: 'index-peg' })
    expect(t.actors.slotDemands().map((d) => d.symbol)).toEqual(['BTC-USDC', 'ETH-USDC'])

    // Its first plan goes to the gateway once index, account and orders are in.
    expect(t.submitted).toHaveLength(0)
    t.feed(eth.instrument_id, '3000')
    await t.flush()
    const plans = t.submitted.filter((s) => s.instrumentId === eth.instrument_id)
    expect(plans).toHaveLength(1)
    expect(plans[0]?.plan.create.length).toBeGreaterThan(0)
    expect(plans[0]?.plan.create.every((c) => c.iid === eth.instrument_id)).toBe(true)
    // Routing to every instrument reaches it too (a breaker, a pause of all).
    t.actors.route(undefined, { type: 'HOLD', reason: 'paused by the operator' })
    expect(t.actors.snapshotOf(eth.instrument_id)?.value).toEqual({ halted: 'cancelling' })

    // Adding it again changes nothing.
    expect(t.actors.add({ listed: eth, strategy: t.peg, settings: t.settings, share: undefined })).toBe(
      'already traded',
    )
    expect(t.actors.instruments).toHaveLength(2)
    expect(t.joined).toHaveLength(1)
    // Once the actors stop (the exit), nothing is spawned.
    t.actors.stopAll()
    const sol = venueRow('SOL-USDC')
    expect(t.actors.add({ listed: sol, strategy: t.peg, settings: t.settings, share: undefined })).toBe(
      'stopping',
    )
    expect(t.actors.instruments).toHaveLength(2)
    t.actors.stop()
  })

  it("trims an added ladder to its share; an added strategy's statistics are published with it", async () => {
    const t = await setup()
    const sol = venueRow('SOL-USDC')
    t.actors.add({ listed: sol, strategy: t.vol, settings: t.settings, share: 1 })
    expect(t.joined[0]).toMatchObject({ readsStatistics: true })
    expect(t.actors.snapshotOf(sol.instrument_id)?.context.instrument.maxOrderCount).toBe(1)
    expect(t.actors.slotDemands().find((d) => d.id === sol.instrument_id)).toMatchObject({ share: 1 })
    t.actors.stop()
  })

  it('a reconfigured strategy reading statistics is published again; the same inputs are not', async () => {
    const t = await setup()
    const btc = t.actors.instruments[0]
    if (btc === undefined) throw new Error('no BTC')
    t.actors.reconfigure(btc.id, t.peg, t.settings)
    expect(t.joined).toHaveLength(0)
    t.actors.reconfigure(btc.id, t.vol, t.settings)
    expect(t.joined).toHaveLength(1)
    expect(t.joined[0]).toMatchObject({ readsStatistics: true })
    expect(t.actors.instruments[0]).toMatchObject({ strategy: 'vol-spread', readsStatistics: true })
    expect(t.actors.snapshotOf(btc.id)?.context.deps.reads?.has('statistics')).toBe(true)
    expect(t.actors.slotDemands()[0]?.wants).toBe(t.vol.maxOrders)

    // A restarted actor starts from its first input: it gets the reloaded dependencies again.
    t.boom.armed = true
    t.feed(btc.id, '50000')
    await t.flush()
    expect(t.restarts).toEqual([btc.id])
    expect(t.actors.snapshotOf(btc.id)?.context.deps.reads?.has('statistics')).toBe(true)
    t.actors.stop()
  })
})
