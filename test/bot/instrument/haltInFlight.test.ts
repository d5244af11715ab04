/**
 * A halt while a plan is in flight (issue 37 point 2, session 9): the venue acts on a plan it has
 * received whatever the actor does meanwhile, so its answer is applied as results when it comes, in
 * whatever state the actor is then (the halt cancels what it placed); after the resume the actor plans
 * afresh from what it knows, and never sends the superseded plan again.
 */
import { describe, expect, it } from 'vitest'
import type { OrderPlan } from '../../../src/bot/quoting/orderPlan.ts'
import { restingOrder } from '../../helpers/orders.ts'
import { harness, margin, oneBid } from './helpers.ts'

const account = (h: ReturnType<typeof harness>, ratio: number): void =>
  h.actor.send({ type: 'ACCOUNT', margin: margin(ratio), position: undefined, receivedAt: h.clock.now() })

describe('a halt while a plan is in flight', () => {
  it("applies the plan's answer when it comes, cancels what it placed, and plans afresh after the resume", async () => {
    let next: () => OrderPlan = oneBid
    const h = harness(() => next())
    h.feedAll()
    expect(h.submitted).toHaveLength(1)
    // Halted on the margin while the bid is with the venue.
    account(h, 0.95)
    expect(h.value()).toMatchObject({ halted: expect.anything() })
    // No order known yet: nothing to cancel.
    expect(h.cancelAlls).toEqual([])
    // The venue placed the bid: the actor learns of it, and the halt cancels it.
    await h.resolveSubmit()
    expect(h.actor.getSnapshot().context.pendingPlan).toBeUndefined()
    expect(h.actor.getSnapshot().context.stats.submitted).toBe(1)
    expect(h.cancelAlls).toEqual([7])
    await Promise.resolve()
    await Promise.resolve()
    expect(h.value()).toEqual({ halted: 'idle' })
    expect(h.actor.getSnapshot().context.openOrders).toEqual([])
    // Resumed (a halt on the margin has its dwell): a fresh plan over what the actor knows now.
    h.clock.increment(11_000)
    next = () => ({ modify: [], create: [{ iid: 7, buy: false, p: '50010', qty: '0.01' }], cancel: [] })
    h.feedAll({ ratio: 0.72 })
    h.clock.increment(11_000)
    h.feedAll({ ratio: 0.1 })
    expect(h.value()).toMatchObject({ active: { risk: 'normal' } })
    expect(h.submitted).toHaveLength(2)
    expect(h.submitted[1]?.plan.create[0]?.buy).toBe(false)
    expect(h.value()).toMatchObject({ active: { work: 'repricing' } })
  })

  it('an answer that comes after the resume is applied in `active`, and the plan after it goes out', async () => {
    const h = harness(oneBid)
    h.feedAll()
    expect(h.submitted).toHaveLength(1)
    // A stale index halts; fresh data resumes at once (no dwell), the bid still with the venue.
    h.actor.send({ type: 'ORDERS', orders: [restingOrder(5)], receivedAt: h.clock.now() })
    h.clock.increment(16_000)
    expect(h.value()).toMatchObject({ halted: expect.anything() })
    await Promise.resolve()
    await Promise.resolve()
    h.feedAll()
    expect(h.value()).toMatchObject({ active: { risk: 'normal', work: 'repricing' } })
    // Nothing is sent again while the first plan's answer is outstanding.
    expect(h.submitted).toHaveLength(1)
    h.clock.increment(300)
    await h.resolveSubmit()
    expect(h.actor.getSnapshot().context.openOrders.map((o) => o.oid)).toEqual([1000])
    expect(h.actor.getSnapshot().context.stats.submitted).toBe(1)
  })

  it('an answer to a plan that is not the one in flight (a faulty submitter answering twice) is logged and dropped', async () => {
    const h = harness(oneBid)
    h.feedAll()
    await h.resolveSubmit()
    const before = h.actor.getSnapshot().context
    expect(before.openOrders.map((o) => o.oid)).toEqual([1000])
    expect(before.planInFlight).toBeUndefined()
    h.actor.send({
      type: 'PLAN_DONE',
      seq: 1,
      output: { modify: [], create: [{ status: 'ok', oid: 2000 }], cancel: [] },
    })
    const after = h.actor.getSnapshot().context
    expect(after.openOrders.map((o) => o.oid)).toEqual([1000])
    expect(after.stats.submitted).toBe(1)
    expect(h.logs).toContain('an answer to plan 1, which is not the plan in flight: dropped')
  })
})
