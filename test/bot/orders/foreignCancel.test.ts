/**
 * `orders.foreign: cancel`: foreign orders (no coid of ours) that a read shows are cancelled by id,
 * once per order id; ours are never among them; a failed cancel is tried again after the next read.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { createOpenOrderBook } from '../../../src/bot/orders/openOrderBook.ts'
import { createOrderOwnership } from '../../../src/bot/orders/orderOwnership.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { restingOrder } from '../../helpers/orders.ts'

const settle = () => new Promise((r) => setImmediate(r))

function setup(policy: 'leave' | 'cancel', failFirst = false) {
  const clock = new SimulatedClock()
  const ownership = createOrderOwnership({ orders: { tag: 'perpbot', foreign: policy }, clock })
  const ours = ownership.clientOrderIds()
  const venue: Order[] = [
    restingOrder(1, { iid: 10, coid: ours.next() }),
    restingOrder(2, { iid: 10 }),
    restingOrder(3, { iid: 11, coid: 'ab'.repeat(16) }),
  ]
  const cancelled: number[][] = []
  let fail = failFirst
  const perps = {
    getOpenOrders: async () => venue,
    cancelOrders: async (oids: number[]) => {
      if (fail) {
        fail = false
        throw new Error('venue busy')
      }
      cancelled.push(oids)
      return oids.map((oid) => ({ status: 'ok' as const, oid }))
    },
  }
  const book = createOpenOrderBook({
    perps,
    clock,
    instrumentIds: [10, 11],
    isOurs: ownership.isOurs,
    logger: createLogger({ level: 'silent', pretty: 'never' }),
    cancelForeign: ownership.cancelForeign(perps),
  })
  return { book, cancelled }
}

describe('foreign orders: cancel', () => {
  it('cancels the orders without our tag by id, once each, never ours', async () => {
    const { book, cancelled } = setup('cancel')
    await book.reconcile()
    await settle()
    expect(cancelled).toEqual([[2, 3]])
    await book.reconcile()
    await settle()
    expect(cancelled).toEqual([[2, 3]])
    expect(book.snapshot().orders.map((o) => o.oid)).toEqual([1])
  })

  it('tries again after the next read when the cancel failed', async () => {
    const { book, cancelled } = setup('cancel', true)
    await book.reconcile()
    await settle()
    expect(cancelled).toEqual([])
    await book.reconcile()
    await settle()
    expect(cancelled).toEqual([[2, 3]])
  })

  it('leave: nothing is cancelled', async () => {
    const { book, cancelled } = setup('leave')
    await book.reconcile()
    await settle()
    expect(cancelled).toEqual([])
    expect(book.snapshot().foreign.map((o) => o.oid)).toEqual([2, 3])
  })
})
