import { describe, expect, it } from 'vitest'
import { degradations } from '../../../src/bot/instrument/instrument.machine.ts'
import type { OrderPlan } from '../../../src/bot/quoting/orderPlan.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { restingOrder } from '../../helpers/orders.ts'
import { type Harness, harness, margin, nothing, oneBid } from './helpers.ts'

const order = (oid: number, uts: number): Order => restingOrder(oid, { cts: uts, uts })

/**
 * Advances the simulated clock to `at` in steps of at most 250 ms (a `SimulatedClock` fires timers due
 * inside one increment at its end), refreshing index and margin every 5 s.
 */
function advanceTo(h: Harness, at: number, index = '50000'): void {
  let lastRefresh = h.clock.now()
  for (let i = 0; i < 10_000 && h.clock.now() < at; i++) {
    h.clock.increment(Math.min(250, at - h.clock.now()))
    const now = h.clock.now()
    if (now - lastRefresh >= 5_000) {
      lastRefresh = now
      h.actor.send({ type: 'INDEX', index: { price: index, ts: now }, receivedAt: now })
      h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
    }
  }
}

const sendIndex = (h: Harness, price: string): void =>
  h.actor.send({ type: 'INDEX', index: { price, ts: h.clock.now() }, receivedAt: h.clock.now() })

describe('instrument machine: a strategy that keeps throwing', () => {
  it('cancels each quote when it reaches maxOrderAgeMs, degrades once, and recovers once', async () => {
    let broken = true
    const h = harness(() => {
      if (broken) throw new Error('bug')
      return nothing()
    })
    h.feedAll()
    const t0 = h.clock.now()
    // Two resting quotes: one last updated 100 s ago (expires at t0 + 20 333), one just now.
    h.actor.send({ type: 'ORDERS', orders: [order(5, t0 - 99_667), order(6, t0)], receivedAt: t0 })
    advanceTo(h, t0 + 20_332)
    expect(h.submitted).toHaveLength(0)
    // Many errors, one alert; the risk state is untouched, the degradation is in the context.
    expect(h.actor.getSnapshot().context.stats.strategyErrors).toBeGreaterThan(10)
    expect(h.emitted).toEqual([
      {
        type: 'degraded',
        instrumentId: 7,
        symbol: 'BTC-USDC',
        cause: 'strategy',
        reason: 'strategy failed: bug',
        at: t0 + 1_250,
      },
    ])
    expect(h.value()).toMatchObject({ active: { risk: 'normal', work: 'quoting' } })
    expect(degradations(h.actor.getSnapshot().context.health)).toEqual([
      { cause: 'strategy', since: t0 + 1_250, reason: 'strategy failed: bug' },
    ])
    // Exactly at its maximum age, the old quote is cancelled (at risk priority), the young one kept.
    h.clock.increment(1)
    expect(h.submitted).toHaveLength(1)
    expect(h.submitted[0]).toMatchObject({ priority: 'risk', plan: { modify: [], create: [], cancel: [5] } })
    expect(h.logs).toContain('cancelling 1 order(s) older than 120000 ms while the strategy fails')
    await h.resolveSubmit()
    expect(h.actor.getSnapshot().context.openOrders.map((o) => o.oid)).toEqual([6])
    advanceTo(h, t0 + 119_999)
    expect(h.submitted).toHaveLength(1)
    h.clock.increment(1)
    expect(h.submitted[1]?.plan.cancel).toEqual([6])
    await h.resolveSubmit()
    expect(h.actor.getSnapshot().context.openOrders).toEqual([])
    expect(h.emitted).toHaveLength(1)
    // The strategy works again: the episode closes, once.
    broken = false
    advanceTo(h, h.clock.now() + 1_000)
    expect(h.emitted.at(-1)).toEqual({
      type: 'recovered',
      instrumentId: 7,
      symbol: 'BTC-USDC',
      cause: 'strategy',
      since: t0 + 1_250,
      at: h.clock.now(),
    })
    advanceTo(h, h.clock.now() + 5_000)
    expect(h.emitted).toHaveLength(2)
    expect(degradations(h.actor.getSnapshot().context.health)).toEqual([])
  })
})

describe('instrument machine: price guard', () => {
  it('never submits a quote outside the price bounds around the index; degrades after repeated drops', () => {
    const wild = (): OrderPlan => ({
      modify: [],
      create: [
        { iid: 7, buy: false, p: '150000', qty: '0.01' }, // 3× the index
        { iid: 7, buy: true, p: '25000', qty: '0.01' }, // 0.5× the index
      ],
      cancel: [],
    })
    const h = harness(wild)
    h.feedAll()
    expect(h.submitted).toHaveLength(0)
    expect(h.logs).toContain(
      'price guard dropped 2 quote(s): create sell 0.01@150000: price 150000 above 52500; create buy 0.01@25000: price 25000 below 47500',
    )
    advanceTo(h, h.clock.now() + 3_000)
    expect(h.submitted).toHaveLength(0)
    const ctx = h.actor.getSnapshot().context
    expect(ctx.stats.quotesDropped).toBeGreaterThanOrEqual(6)
    expect(h.emitted).toHaveLength(1)
    expect(h.emitted[0]).toMatchObject({ type: 'degraded', cause: 'quotes' })
    expect(degradations(ctx.health).map((d) => d.cause)).toEqual(['quotes'])
  })

  it('keeps the quotes inside the bounds of a plan and cancels an order it may not move', async () => {
    const h = harness((s) =>
      s.openOrders.length === 0
        ? oneBid()
        : {
            modify: [{ oid: 1000, p: '40000', qty: '0.01' }],
            create: [{ iid: 7, buy: false, p: '50010', qty: '0.01' }],
            cancel: [],
          },
    )
    h.feedAll()
    await h.resolveSubmit()
    h.clock.increment(1_000)
    expect(h.submitted[1]?.plan).toEqual({
      modify: [],
      create: [{ iid: 7, buy: false, p: '50010', qty: '0.01' }],
      cancel: [1000],
    })
  })
})

describe('instrument machine: index screening', () => {
  it('drops a 40-digit index: never stored, never quoted on, counted and logged; degrades after 3', () => {
    const h = harness(oneBid)
    h.feedAll()
    const forty = '1234567890123456789012345678901234567890'
    sendIndex(h, forty)
    const ctx = h.actor.getSnapshot().context
    expect(ctx.index?.price).toBe('50000')
    expect(ctx.stats.indexRejected).toBe(1)
    expect(h.logs).toContain(
      'index update dropped: index 123456789012345678901234…(40 chars) has more than 15 integer digits',
    )
    sendIndex(h, forty)
    expect(h.emitted).toEqual([])
    sendIndex(h, forty)
    expect(h.emitted).toMatchObject([{ type: 'degraded', cause: 'index' }])
    h.clock.increment(2_000)
    expect(h.snapshots.every((s) => s.index?.price === '50000')).toBe(true)
    sendIndex(h, '50001')
    expect(h.emitted.at(-1)).toMatchObject({ type: 'recovered', cause: 'index' })
  })

  it('holds back an index that jumped until three updates in a row confirm it', () => {
    const h = harness(nothing)
    h.feedAll()
    sendIndex(h, '60000')
    sendIndex(h, '60010')
    expect(h.actor.getSnapshot().context.index?.price).toBe('50000')
    expect(h.logs.at(-1)).toBe(
      'index update dropped: index 60010 jumped 20.0% from the last good 50000 (max 0.1; 2/3 confirmations)',
    )
    sendIndex(h, '60020')
    expect(h.actor.getSnapshot().context.index?.price).toBe('60020')
    expect(h.actor.getSnapshot().context.stats.indexRejected).toBe(2)
  })

  it('halts on a stale index when only implausible values keep arriving', () => {
    const h = harness(nothing)
    h.feedAll()
    for (let i = 0; i < 16; i++) {
      h.clock.increment(1_000)
      sendIndex(h, '0')
    }
    expect(h.value()).toMatchObject({ halted: expect.anything() })
    expect(h.actor.getSnapshot().context.assessment.reason).toMatch(/index stale/)
  })
})

describe('instrument machine: wake-ups', () => {
  it('plans an input at once after a plan that sent nothing (the interval throttles orders only)', () => {
    const h = harness(nothing)
    h.feedAll()
    const plans = h.snapshots.length
    h.clock.increment(50)
    sendIndex(h, '50010')
    expect(h.snapshots.length).toBe(plans + 1)
    // No deferred plan: the only wake is the strategy's revisit (the default, a tick after the plan).
    expect(h.actor.getSnapshot().context.planDueAt).toBe(h.clock.now() + 1_000)
  })

  it('cancels a deferred plan when the actor halts, and leaves no wake scheduled', async () => {
    const h = harness(oneBid)
    h.feedAll()
    await h.resolveSubmit()
    h.clock.increment(50)
    sendIndex(h, '50010')
    expect(h.actor.getSnapshot().context.planDueAt).toBeDefined()
    const plans = h.snapshots.length
    h.actor.send({ type: 'BREAKER', open: true })
    expect(h.actor.getSnapshot().context.planDueAt).toBeUndefined()
    h.clock.increment(300)
    expect(h.snapshots.length).toBe(plans)
    expect(h.submitted).toHaveLength(1)
  })

  it("sends a deferred plan at the interval's end, and the next one at the next interval's end", async () => {
    const h = harness(oneBid)
    h.feedAll()
    await h.resolveSubmit()
    h.clock.increment(50)
    sendIndex(h, '50010')
    expect(h.submitted).toHaveLength(1)
    h.clock.increment(200) // the deferred plan is made anew and sent at the interval's end (250)
    expect(h.submitted).toHaveLength(2)
    expect(h.snapshots.at(-1)?.now).toBe(h.clock.now())
    await h.resolveSubmit()
    // The plan after the results still has something to send: it waits for that interval's end (500).
    h.clock.increment(249)
    expect(h.submitted).toHaveLength(2)
    h.clock.increment(1)
    expect(h.submitted).toHaveLength(3)
  })
})
