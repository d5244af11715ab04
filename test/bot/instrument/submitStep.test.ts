/**
 * A submit's answer and the plan after it (issue 37 point 2): the results (or the failure) and the
 * plan on returning to `quoting` are one step of the machine, with the results applied first, as the
 * two steps one after the other were.
 */
import { describe, expect, it } from 'vitest'
import type { OrderPlan } from '../../../src/bot/quoting/orderPlan.ts'
import { harness, nothing, oneBid } from './helpers.ts'

describe("a submit's answer and the plan after it", () => {
  it('the strategy is asked at the answer with its results applied, and its plan is sent at once', async () => {
    let next: () => OrderPlan = oneBid
    const h = harness(() => next())
    h.feedAll()
    expect(h.submitted).toHaveLength(1)
    const asked = h.snapshots.length
    h.clock.increment(300) // past the reprice interval: the plan after the answer goes out at once
    next = () => ({ modify: [], create: [], cancel: [1000] })
    await h.resolveSubmit()
    expect(h.snapshots).toHaveLength(asked + 1)
    // The create the venue accepted is what the strategy saw, and what the machine keeps.
    expect(h.snapshots.at(-1)?.openOrders.map((o) => o.oid)).toEqual([1000])
    expect(h.submitted).toHaveLength(2)
    expect(h.submitted[1]?.plan.cancel).toEqual([1000])
    expect(h.submitted[1]?.openOrders?.map((o) => o.oid)).toEqual([1000])
    expect(h.value()).toMatchObject({ active: { work: 'repricing' } })
    const ctx = h.actor.getSnapshot().context
    expect(ctx.stats.submitted).toBe(1)
    expect(ctx.pendingPlan?.cancel).toEqual([1000])
  })

  it('after a failed submit the plan waits for the backoff, its wake set in the same step', async () => {
    const h = harness(oneBid)
    h.feedAll()
    const asked = h.snapshots.length
    await h.rejectSubmit(new Error('socket hang up'))
    // Inside the backoff the strategy is not asked.
    expect(h.snapshots).toHaveLength(asked)
    const ctx = h.actor.getSnapshot().context
    expect(ctx.stats.unknown).toBe(1)
    expect(ctx.pendingPlan).toBeUndefined()
    expect(ctx.deferredAt).toBe(ctx.backoffUntil)
    expect(ctx.planDueAt).toBe(ctx.backoffUntil)
    expect(h.submitted).toHaveLength(1)
    h.clock.increment(ctx.backoffUntil - h.clock.now())
    expect(h.snapshots).toHaveLength(asked + 1)
    expect(h.submitted).toHaveLength(2)
  })

  it('an empty plan after the answer leaves the machine quoting with nothing pending', async () => {
    let next: () => OrderPlan = oneBid
    const h = harness(() => next())
    h.feedAll()
    next = nothing
    await h.resolveSubmit()
    expect(h.value()).toMatchObject({ active: { work: 'quoting' } })
    expect(h.actor.getSnapshot().context.pendingPlan).toBeUndefined()
    expect(h.submitted).toHaveLength(1)
  })
})
