/**
 * The gone-order reconcile (issue 35, point 1): a cancel or modify answered with a gone code reads the
 * instrument over REST only when nothing (an `orders` push, a poll) has told the book how the order
 * ended within the settle time; other refusals never reconcile.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Batcher, OrderCommand } from '../../../src/bot/orders/batcher.ts'
import { withGoneReconcile } from '../../../src/bot/orders/goneReconcile.ts'
import { createLogger } from '../../../src/logging/logger.ts'

function setup(answer: (c: OrderCommand) => { status: string; [k: string]: unknown }) {
  const clock = new SimulatedClock()
  const open = new Set([1, 2])
  const reconciled: (readonly number[])[] = []
  const batcher = {
    submit: async (c: OrderCommand) => answer(c),
    flush: () => {},
    state: () => ({}),
    stop: async () => {},
  } as unknown as Batcher
  const wrapped = withGoneReconcile(batcher, {
    reconcile: async (ids) => void reconciled.push(ids),
    logger: createLogger({ level: 'silent', pretty: 'never' }),
    clock,
    stillOpen: (oid) => open.has(oid),
  })
  return { clock, open, reconciled, wrapped }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

describe('reconcile after a gone order', () => {
  it('reads the instrument only when the book still lists the order after the settle time', async () => {
    const t = setup((c) => ({
      status: 'err',
      error: 'order_not_in_orderbook',
      oid: c.type === 'cancelOrders' ? c.oid : 0,
    }))
    await t.wrapped.submit({ type: 'cancelOrders', iid: 7, oid: 1 })
    await t.wrapped.submit({ type: 'cancelOrders', iid: 8, oid: 2 })
    // The orders stream tells the book that order 2 filled; order 1 stays unexplained.
    t.open.delete(2)
    t.clock.increment(1_999)
    await flush()
    expect(t.reconciled).toEqual([])
    t.clock.increment(1)
    await flush()
    expect(t.reconciled).toEqual([[7]])
    expect(t.wrapped.goneState()).toEqual({ gone: 2, reconciles: 1 })
  })

  it('a refusal that is not a gone code never reconciles', async () => {
    const t = setup(() => ({ status: 'err', error: 'insufficient_margin' }))
    await t.wrapped.submit({ type: 'cancelOrders', iid: 7, oid: 1 })
    t.clock.increment(10_000)
    await flush()
    expect(t.reconciled).toEqual([])
    expect(t.wrapped.goneState().gone).toBe(0)
  })

  it('the stop clears the settle timers it left pending (no timer outlives the bot)', async () => {
    const t = setup((c) => ({
      status: 'err',
      error: 'order_not_in_orderbook',
      oid: c.type === 'cancelOrders' ? c.oid : 0,
    }))
    let pending = 0
    const counting = {
      setTimeout: (fn: () => void, ms: number) => {
        pending += 1
        return t.clock.setTimeout(() => {
          pending -= 1
          fn()
        }, ms)
      },
      clearTimeout: (id: unknown) => {
        pending -= 1
        if (typeof id === 'number') t.clock.clearTimeout(id)
      },
    }
    const batcher = {
      submit: async () => ({ status: 'err', error: 'order_not_in_orderbook', oid: 1 }),
      flush: () => {},
      state: () => ({}),
      stop: async () => {},
    } as unknown as Batcher
    const reconciled: (readonly number[])[] = []
    const wrapped = withGoneReconcile(batcher, {
      reconcile: async (ids) => void reconciled.push(ids),
      logger: createLogger({ level: 'silent', pretty: 'never' }),
      clock: counting,
    })
    await wrapped.submit({ type: 'cancelOrders', iid: 7, oid: 1 })
    expect(pending).toBe(1)
    await wrapped.stop()
    expect(pending).toBe(0)
    t.clock.increment(5_000)
    await flush()
    expect(reconciled).toEqual([])
  })
})
