/**
 * Issue 34, point 2: another client on the account pushes 5,000 order changes a second for 30 s
 * (150,000 pushes, on a stepped clock: counted, not timed). The open-order book holds at most
 * `FOREIGN_KEPT_MAX` of them, the log gets a summary every 10 s (counts, never the list), and the
 * exit policy still works: it cancels ours by id and leaves theirs. The real-time flood with the
 * event loop measured is `bench/foreignFlood.ts`.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { createForeignOrders, FOREIGN_KEPT_MAX } from '../../../src/bot/orders/foreignOrders.ts'
import { createOpenOrderBook } from '../../../src/bot/orders/openOrderBook.ts'
import { createOrderGateway } from '../../../src/bot/orders/orderGateway.ts'
import { createOrderOwnership } from '../../../src/bot/orders/orderOwnership.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { restingOrder } from '../../helpers/orders.ts'

const PER_SECOND = 5_000
const SECONDS = 30

function flood(opts: { cancel: boolean }) {
  const clock = new SimulatedClock()
  const ownership = createOrderOwnership({
    orders: { tag: 'perpbot', foreign: opts.cancel ? 'cancel' : 'leave' },
    clock,
  })
  const ids = ownership.clientOrderIds()
  const ours = [restingOrder(1, { iid: 7, coid: ids.next() }), restingOrder(2, { iid: 8, coid: ids.next() })]
  const lines: { msg: string; bytes: number }[] = []
  const log = (obj: unknown, msg?: string): void => {
    lines.push({ msg: msg ?? '', bytes: JSON.stringify(obj).length + (msg ?? '').length })
  }
  const venueOpen: Order[] = [...ours]
  const cancelCalls: number[] = []
  const book = createOpenOrderBook({
    perps: { getOpenOrders: async () => venueOpen },
    clock,
    instrumentIds: [7, 8],
    isOurs: ownership.isOurs,
    logger: { info: log, warn: log },
    cancelForeign: opts.cancel
      ? async (oids) => {
          cancelCalls.push(oids.length)
        }
      : undefined,
  })
  return { clock, book, lines, ours, venueOpen, cancelCalls, ownership }
}

/** 150,000 pushes: each a new foreign order resting, every third one then gone (filled or cancelled). */
async function push(f: ReturnType<typeof flood>): Promise<void> {
  const stepUs = 1_000_000 / PER_SECOND
  let oid = 1_000
  for (let i = 0; i < PER_SECOND * SECONDS; i++) {
    oid += 1
    const iid = 100 + (i % 37)
    const order = restingOrder(oid, { iid, coid: undefined, uts: i })
    f.book.observe(i % 3 === 2 ? { ...order, oid: oid - 1, status: 'cancelled' } : order)
    if (i % PER_SECOND === 0) await Promise.resolve()
    if (i % 5 === 4) f.clock.increment((5 * stepUs) / 1_000)
  }
}

describe('a flood of foreign order pushes (5,000/s for 30 s, stepped clock)', () => {
  it('holds at most the bound, logs a summary every 10 s (never the list), and the exit cancels ours by id', async () => {
    const f = flood({ cancel: false })
    await f.book.reconcile()
    await push(f)
    const snap = f.book.snapshot()
    expect(snap.foreign.length).toBeLessThanOrEqual(FOREIGN_KEPT_MAX)
    expect(snap.foreignCount).toBe(FOREIGN_KEPT_MAX)
    expect(snap.foreignOverflow).toBe(true)
    // One line at the first foreign order, then at most one per 10 s of the 30 s.
    const foreignLines = f.lines.filter((l) => l.msg.startsWith('foreign orders'))
    expect(foreignLines.length).toBeGreaterThanOrEqual(2)
    expect(foreignLines.length).toBeLessThanOrEqual(SECONDS / 10 + 1)
    for (const l of foreignLines) expect(l.bytes).toBeLessThan(600)
    expect(foreignLines.at(-1)?.msg).toMatch(/leaving 1000\+ order\(s\)/)

    // The exit policy: foreign orders rest (overflow counts), so ours go by id and theirs stay.
    const cancelled: number[][] = []
    let cancelAllCalls = 0
    const gateway = createOrderGateway({
      batcher: { submit: async () => ({ status: 'failed', error: 'unused' }) } as never,
      perps: {
        cancelAll: async () => {
          cancelAllCalls += 1
          return { status: 'ok' } as never
        },
        getOpenOrders: async () => [...f.ours, ...snap.foreign.slice(0, 50)],
        cancelOrders: async (oids) => {
          cancelled.push([...oids])
          return oids.map((oid) => ({ status: 'ok' as const, oid }))
        },
      },
      book: f.book,
      isOurs: f.ownership.isOurs,
    })
    await gateway.cancelAll(undefined, { exit: true })
    expect(cancelAllCalls).toBe(0)
    expect(cancelled).toEqual([[1, 2]])
  })

  it('a complete read that fits clears the overflow; the counts follow it', async () => {
    const f = flood({ cancel: false })
    await push(f)
    expect(f.book.snapshot().foreignOverflow).toBe(true)
    f.venueOpen.push(restingOrder(9_999_999, { iid: 100, coid: undefined }))
    f.clock.increment(10_000)
    await f.book.reconcile()
    expect(f.book.snapshot()).toMatchObject({ foreignCount: 1, foreignOverflow: false })
    expect(f.book.foreignRestOn(100)).toBe(true)
    expect(f.book.foreignRestOn(7)).toBe(false)
    expect(f.lines.at(-1)?.msg).toMatch(/leaving 1 order/)
  })

  it('orders.foreign: cancel sends one cancel at a time, at most 99 ids each, each id once', async () => {
    const f = flood({ cancel: true })
    await push(f)
    await Promise.resolve()
    // Cancels were coalesced: far fewer requests than pushes, none larger than a batch.
    expect(f.cancelCalls.length).toBeGreaterThan(0)
    expect(f.cancelCalls.length).toBeLessThan(200)
    expect(Math.max(...f.cancelCalls)).toBeLessThanOrEqual(99)
  })
})

describe('foreign orders: the bounded set', () => {
  it('counts per instrument as pushes come and go, and names the busiest', () => {
    const s = createForeignOrders({ maxKept: 3, summaryEveryMs: 1_000 })
    s.rest(restingOrder(1, { iid: 5 }))
    s.rest(restingOrder(2, { iid: 5 }))
    s.rest(restingOrder(3, { iid: 6 }))
    s.rest(restingOrder(4, { iid: 6 }))
    expect(s.overflow()).toBe(true)
    expect(s.summaryDue(0)).toMatchObject({
      count: 3,
      overflow: true,
      busiest: [
        [5, 2],
        [6, 1],
      ],
      added: 3,
    })
    s.gone(1)
    expect(s.summaryDue(500)).toBeUndefined()
    expect(s.summaryDue(1_000)).toMatchObject({ count: 2, removed: 1, events: 1 })
    expect(s.takeNew().sort()).toEqual([2, 3])
    expect(s.takeNew()).toEqual([])
  })
})
