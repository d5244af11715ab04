import { describe, expect, it } from 'vitest'
import type { OrderPlan } from '../../../src/bot/quoting/orderPlan.ts'
import { restingOrder } from '../../helpers/orders.ts'
import { harness, margin, nothing, oneBid } from './helpers.ts'

const order = restingOrder

describe('instrument machine', () => {
  it('syncs until every input has arrived, then quotes and reprices', async () => {
    const h = harness(oneBid)
    expect(h.value()).toBe('syncing')
    const now = h.clock.now()
    h.actor.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
    expect(h.value()).toBe('syncing')
    h.feedAll()
    expect(h.value()).toEqual({ active: { risk: 'normal', work: 'repricing' } })
    expect(h.submitted).toHaveLength(1)
    expect(h.submitted[0]?.priority).toBe('quote')
    await h.resolveSubmit()
    expect(h.value()).toMatchObject({ active: { work: 'quoting' } })
    expect(h.actor.getSnapshot().context.openOrders.map((o) => o.oid)).toEqual([1000])
    expect(h.actor.getSnapshot().context.stats.submitted).toBe(1)
  })

  it('does not send faster than the minimum interval, and sends the deferred plan on the tick', async () => {
    const h = harness(oneBid)
    h.feedAll()
    await h.resolveSubmit()
    const now = h.clock.now()
    h.actor.send({ type: 'INDEX', index: { price: '50010', ts: now }, receivedAt: now })
    expect(h.submitted).toHaveLength(1) // within 250 ms of the last plan sent
    h.clock.increment(1_000) // tick
    expect(h.submitted).toHaveLength(2)
  })

  it('settles the plan after a batch at once: an empty one schedules no wake for the interval', async () => {
    let next: () => OrderPlan = oneBid
    const h = harness(() => next())
    h.feedAll()
    next = nothing
    const plans = h.snapshots.length
    await h.resolveSubmit()
    // Asked again at the results' instant, inside the reprice interval: nothing to send.
    expect(h.snapshots).toHaveLength(plans + 1)
    expect(h.snapshots.at(-1)?.now).toBe(h.clock.now())
    const ctx = h.actor.getSnapshot().context
    expect(ctx.dirty).toBe(false)
    expect(ctx.deferredAt).toBeUndefined()
    // The next wake is the strategy's revisit (a tick), not the interval's end.
    expect(ctx.planDueAt).toBe(h.clock.now() + 1_000)
  })

  it('marks a plan from time alone (a tick, no input changed) lazy, and one after an input not', async () => {
    let next: () => OrderPlan = oneBid
    const h = harness(() => next())
    h.feedAll()
    expect(h.submitted[0]?.lazy).toBe(false)
    next = nothing
    await h.resolveSubmit()
    h.clock.increment(1_000)
    h.clock.increment(1_000) // the re-diff after the submission plans nothing: no input is pending
    expect(h.submitted).toHaveLength(1)
    next = oneBid // the strategy wants an order again with no input changed (as an aged quote's refresh)
    h.clock.increment(1_000)
    expect(h.submitted).toHaveLength(2)
    expect(h.submitted[1]?.lazy).toBe(true)
    next = nothing
    await h.resolveSubmit()
    h.clock.increment(1_000)
    h.clock.increment(1_000)
    next = oneBid
    const now = h.clock.now()
    h.actor.send({ type: 'INDEX', index: { price: '50010', ts: now }, receivedAt: now })
    expect(h.submitted).toHaveLength(3)
    expect(h.submitted[2]?.lazy).toBe(false)
  })

  it('sends a deferred input exactly when the reprice interval ends, not at the next tick', async () => {
    const h = harness(oneBid)
    h.feedAll()
    await h.resolveSubmit()
    const lastPlan = h.actor.getSnapshot().context.lastPlanAt
    h.clock.increment(50)
    h.actor.send({ type: 'INDEX', index: { price: '50020', ts: h.clock.now() }, receivedAt: h.clock.now() })
    expect(h.submitted).toHaveLength(1)
    expect(h.actor.getSnapshot().context.planDueAt).toBe(lastPlan + 250)
    h.clock.increment(lastPlan + 250 - h.clock.now() - 1)
    expect(h.submitted).toHaveLength(1)
    h.clock.increment(1)
    expect(h.submitted).toHaveLength(2)
    expect(h.snapshots.at(-1)?.now).toBe(lastPlan + 250)
  })

  it('halts on a stale index, cancels its orders, and resumes on fresh data', async () => {
    const h = harness(nothing)
    h.feedAll()
    h.actor.send({ type: 'ORDERS', orders: [order(5)], receivedAt: h.clock.now() })
    expect(h.value()).toMatchObject({ active: { risk: 'normal' } })
    h.clock.increment(16_000)
    expect(h.value()).toEqual({ halted: 'cancelling' })
    await Promise.resolve()
    await Promise.resolve()
    expect(h.value()).toEqual({ halted: 'idle' })
    expect(h.actor.getSnapshot().context.openOrders).toEqual([])
    expect(h.cancelAlls).toEqual([7])
    expect(h.actor.getSnapshot().context.assessment.reason).toMatch(/index stale/)
    // Everything fresh again: resume immediately (stale halts need no dwell).
    h.feedAll()
    expect(h.value()).toMatchObject({ active: { risk: 'normal' } })
    expect(h.logs.some((l) => l.includes('risk mode normal → halted: index stale'))).toBe(true)
    expect(h.logs.some((l) => l.includes('risk mode halted → normal'))).toBe(true)
  })

  it('walks widened → reduce-only → halted on margin ratio and steps down with hysteresis and dwell', () => {
    const h = harness(nothing)
    h.feedAll({ ratio: 0.55 })
    expect(h.value()).toMatchObject({ active: { risk: 'widened' } })
    const send = (ratio: number, inLiq = false): void =>
      h.actor.send({
        type: 'ACCOUNT',
        margin: margin(ratio, inLiq),
        position: undefined,
        receivedAt: h.clock.now(),
      })
    send(0.75)
    expect(h.value()).toMatchObject({ active: { risk: 'reduceOnly' } })
    send(0.95)
    expect(h.value()).toEqual({ halted: 'idle' })
    // Back under the halt threshold but inside the hysteresis band: stay halted.
    h.clock.increment(11_000)
    h.feedAll({ ratio: 0.88 })
    expect(h.value()).toEqual({ halted: 'idle' })
    // Well below: but minimum dwell restarts with each mode, step down to reduce-only first.
    h.feedAll({ ratio: 0.72 })
    expect(h.value()).toMatchObject({ active: { risk: 'reduceOnly' } })
    // Dwell not yet over: ratio well under widen threshold still holds reduce-only.
    h.feedAll({ ratio: 0.1 })
    expect(h.value()).toMatchObject({ active: { risk: 'reduceOnly' } })
    h.clock.increment(10_001)
    h.feedAll({ ratio: 0.1 })
    expect(h.value()).toMatchObject({ active: { risk: 'normal' } })
  })

  it('halts on in_liquidation regardless of ratio', () => {
    const h = harness(nothing)
    h.feedAll({ ratio: 0.1, inLiquidation: true })
    expect(h.value()).toEqual({ halted: 'idle' })
    expect(h.actor.getSnapshot().context.assessment.reason).toContain('liquidation')
  })

  it('widens and goes reduce-only as the position nears its liquidation price', () => {
    const h = harness(nothing)
    h.feedAll()
    const now = h.clock.now()
    const pos = (liq: string) => ({ size: '1', entryPrice: '50000', liquidationPrice: liq })
    h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: pos('44000'), receivedAt: now })
    expect(h.value()).toMatchObject({ active: { risk: 'widened' } }) // 12% away
    h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: pos('47000'), receivedAt: now })
    expect(h.value()).toMatchObject({ active: { risk: 'reduceOnly' } }) // 6% away
  })

  it('asks the strategy in the mode it is in and sends reduce-only plans at risk priority', async () => {
    const h = harness((s) =>
      s.mode === 'reduce-only'
        ? { modify: [], create: [{ iid: 7, buy: false, p: '50010', qty: '0.01', ro: true }], cancel: [] }
        : nothing(),
    )
    h.feedAll({ ratio: 0.75 })
    expect(h.snapshots.at(-1)?.mode).toBe('reduce-only')
    expect(h.submitted[0]?.priority).toBe('risk')
  })

  it('forgets orders the venue no longer has without treating them as rejections', async () => {
    const h = harness((s) =>
      s.openOrders.length > 0
        ? { modify: [{ oid: 5, p: '49980', qty: '0.01' }], create: [], cancel: [] }
        : nothing(),
    )
    h.feedAll()
    h.clock.increment(300)
    h.actor.send({ type: 'ORDERS', orders: [order(5)], receivedAt: h.clock.now() })
    h.clock.increment(250) // the deferred plan runs when the reprice interval ends
    expect(h.submitted).toHaveLength(1)
    await h.resolveSubmit(() => ({
      modify: [{ status: 'err', error: 'order_not_found' }],
      create: [],
      cancel: [],
    }))
    expect(h.actor.getSnapshot().context.openOrders).toEqual([])
    expect(h.actor.getSnapshot().context.stats).toMatchObject({ rejected: 0, gone: 1 })
    expect(h.actor.getSnapshot().context.backoffUntil).toBe(0)
  })

  it('backs off after a rejection', async () => {
    const h = harness(oneBid)
    h.feedAll()
    await h.resolveSubmit(() => ({
      modify: [],
      create: [{ status: 'err', error: 'insufficient_margin' }],
      cancel: [],
    }))
    expect(h.actor.getSnapshot().context.stats.rejected).toBe(1)
    expect(h.actor.getSnapshot().context.backoffUntil).toBeGreaterThan(h.clock.now())
    expect(h.logs.some((l) => l.includes('order rejected: create buy 0.01@49990: insufficient_margin'))).toBe(
      true,
    )
  })

  it('treats a failed submission as unknown and waits for reconciliation', async () => {
    const h = harness(oneBid)
    h.feedAll()
    await h.rejectSubmit(new Error('socket hang up'))
    const ctx = h.actor.getSnapshot().context
    expect(ctx.stats.unknown).toBe(1)
    expect(ctx.pendingPlan).toBeUndefined()
    expect(h.value()).toMatchObject({ active: { work: 'quoting' } })
    expect(h.submitted).toHaveLength(1) // no blind resend
  })

  it('keeps its orders when the strategy throws', () => {
    const h = harness(() => {
      throw new Error('bug')
    })
    h.feedAll()
    expect(h.actor.getSnapshot().context.stats.strategyErrors).toBe(1)
    expect(h.submitted).toHaveLength(0)
  })

  it('retries the cancel while halted and stops on STOP', () => {
    const h = harness(nothing, { cancelFails: true })
    h.feedAll({ inLiquidation: true })
    h.actor.send({ type: 'ORDERS', orders: [order(9)], receivedAt: h.clock.now() })
    return Promise.resolve().then(async () => {
      await Promise.resolve()
      expect(h.value()).toEqual({ halted: 'retryWait' })
      h.clock.increment(2_000)
      expect(h.cancelAlls.length).toBeGreaterThanOrEqual(2)
      h.actor.send({ type: 'STOP' })
      expect(h.actor.getSnapshot().status).toBe('done')
    })
  })

  it('halts while the rate-limit breaker is open', () => {
    const h = harness(nothing)
    h.feedAll()
    h.actor.send({ type: 'BREAKER', open: true })
    expect(h.value()).toEqual({ halted: 'idle' })
    h.actor.send({ type: 'BREAKER', open: false })
    expect(h.value()).toMatchObject({ active: { risk: 'normal' } })
  })

  it('holds halted while held from outside (a pause, a protection), cancels, and quotes at once when released', async () => {
    const h = harness(nothing)
    h.feedAll()
    h.actor.send({ type: 'ORDERS', orders: [order(5)], receivedAt: h.clock.now() })
    h.actor.send({ type: 'HOLD', reason: 'paused by the operator' })
    expect(h.value()).toEqual({ halted: 'cancelling' })
    await Promise.resolve()
    await Promise.resolve()
    expect(h.value()).toEqual({ halted: 'idle' })
    expect(h.cancelAlls).toEqual([7])
    expect(h.actor.getSnapshot().context.assessment.reason).toBe('paused by the operator')
    // Fresh inputs do not end a hold.
    h.clock.increment(5_000)
    h.feedAll()
    expect(h.value()).toEqual({ halted: 'idle' })
    h.actor.send({ type: 'HOLD', reason: undefined })
    expect(h.value()).toMatchObject({ active: { risk: 'normal' } })
  })
})
