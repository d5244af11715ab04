import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createBatcher, type ItemOutcome } from '../../../src/bot/orders/batcher.ts'
import { UnknownOutcomeError } from '../../../src/errors.ts'
import type { CancelResult, ModifyOrderInput, ModifyResult } from '../../../src/perps/schemas/orders.ts'
import { StoppedError } from '../../../src/perps/throttle/limiterErrors.ts'
import {
  createWeightLimiter,
  type WeightJob,
  type WeightLimiter,
} from '../../../src/perps/throttle/weightLimiter.ts'
import { seededRandom } from '../../../src/random.ts'
import { flushMicrotasks, ManualClock } from '../limiter/helpers.ts'
import { cancel, create, fakeSend, modify, okResponder, setup, viaGate } from './batcherFakes.ts'

afterEach(() => {
  vi.useRealTimers()
})

describe('coalescing', () => {
  it('keeps the latest command per order in a window and resolves the older one `superseded`', async () => {
    const { b, clock, calls } = setup()
    const old = b.submit(modify(1, '100'))
    const other = b.submit(modify(2, '200'))
    const latest = b.submit(modify(1, '101'))
    await clock.advance(10)
    expect(await old).toEqual({ status: 'superseded' })
    expect(await latest).toMatchObject({ status: 'ok', order: { oid: 1, p: '101' } })
    expect(await other).toMatchObject({ status: 'ok' })
    // The newer command keeps the older one's place in line.
    expect(calls[0]?.items).toEqual([
      { oid: 1, p: '101', qty: '1' },
      { oid: 2, p: '200', qty: '1' },
    ])
    expect(b.state().superseded).toBe(1)
  })

  it('lets a cancel supersede a queued modify of the same order, and coalesces creates by client id', async () => {
    const { b, clock, calls } = setup()
    const m = b.submit(modify(1))
    const c = b.submit(cancel(1))
    const coid = 'a'.repeat(32)
    const c1 = b.submit(create(1, { coid, p: '10' }))
    const c2 = b.submit(create(1, { coid, p: '11' }))
    await clock.advance(10)
    expect(await m).toEqual({ status: 'superseded' })
    expect(await c).toMatchObject({ status: 'ok', oid: 1 })
    expect(await c1).toEqual({ status: 'superseded' })
    expect(await c2).toMatchObject({ status: 'ok' })
    expect(calls.map((x) => [x.type, x.items])).toEqual([
      ['cancelOrders', [1]],
      ['createOrders', [{ iid: 1, buy: true, qty: '1', p: '11', tif: 'gtc', coid }]],
    ])
  })

  it('sends nothing twice across a long random run with duplicates and unknown outcomes', async () => {
    const rnd = seededRandom(99)
    const { b, clock, calls, reconcile } = setup({}, (call) =>
      rnd.next() < 0.1 ? Promise.reject(new UnknownOutcomeError('/v1/trade/orders')) : okResponder(call),
    )
    const submissions: { tag: string; outcome: Promise<ItemOutcome<ModifyResult | CancelResult>> }[] = []
    for (let step = 0; step < 400; step++) {
      const burst = rnd.int(0, 30)
      for (let i = 0; i < burst; i++) {
        const oid = rnd.int(1, 60)
        const tag = `${step}.${i}`
        const priority = rnd.next() < 0.2 ? 'risk' : 'quote'
        submissions.push({ tag, outcome: b.submit(modify(oid, tag, oid % 5, priority)) })
      }
      await clock.advance(rnd.int(1, 15))
    }
    await clock.advance(100)
    await b.stop()
    const sentTags = calls.flatMap((c) => c.items.map((i) => (i as ModifyOrderInput).p))
    expect(new Set(sentTags).size).toBe(sentTags.length)
    const outcomes = await Promise.all(submissions.map((s) => s.outcome))
    const sent = new Set(sentTags)
    outcomes.forEach((o, i) => {
      const tag = (submissions[i] as { tag: string }).tag
      if (o.status === 'superseded') expect(sent.has(tag)).toBe(false)
      else expect(sent.has(tag)).toBe(true)
    })
    expect(reconcile.mock.calls.length).toBeGreaterThan(0)
    const st = b.state()
    expect(st.itemsSent).toBe(sentTags.length)
    expect(st.itemsSent + st.superseded).toBe(st.itemsSubmitted)
    expect(outcomes.filter((o) => o.status === 'unknown')).toHaveLength(st.unknownItems)
  })
})

// ---------------------------------------------------------------------------------------------------
// Metrics and lifecycle

describe('collecting behind a batch the gate holds', () => {
  /** A gate that admits quote jobs only when told (a limiter out of budget); risk jobs at once. */
  function heldGate(): { limiter: Pick<WeightLimiter, 'schedule'>; release: () => void; jobs: WeightJob[] } {
    const jobs: WeightJob[] = []
    const waiting: (() => void)[] = []
    return {
      jobs,
      release: () => waiting.shift()?.(),
      limiter: {
        schedule: (job, fn) => {
          jobs.push(job)
          if (job.priority === 'risk') return fn()
          return new Promise((resolve, reject) => waiting.push(() => fn().then(resolve, reject)))
        },
      },
    }
  }

  it('sends what queued while a quote batch waited as one batch once it is admitted, newest reprice only', async () => {
    const clock = new ManualClock()
    const { send, calls } = fakeSend()
    const gate = heldGate()
    const b = createBatcher({
      send: viaGate(gate.limiter, send),
      reconcile: async () => {},
      clock,
      windowMs: 10,
    })
    const first = b.submit(modify(1, '100'))
    await clock.advance(10)
    expect(gate.jobs).toHaveLength(1)
    // Three more windows pass while the first batch waits: nothing more goes to the gate.
    const oldest = b.submit(modify(2, '200'))
    const later = [b.submit(modify(3, '300'))]
    await clock.advance(10)
    const older = b.submit(modify(2, '201'))
    const newest = b.submit(modify(2, '202'))
    await clock.advance(10)
    expect(gate.jobs).toHaveLength(1)
    expect(await oldest).toEqual({ status: 'superseded' })
    expect(await older).toEqual({ status: 'superseded' })
    // Risk commands are never held behind quotes.
    const risk = b.submit(cancel(9))
    await flushMicrotasks()
    expect(gate.jobs.map((j) => j.priority)).toEqual(['quote', 'risk'])
    expect(await risk).toMatchObject({ status: 'ok' })
    gate.release()
    expect(await first).toMatchObject({ status: 'ok' })
    await flushMicrotasks()
    expect(gate.jobs).toHaveLength(3)
    gate.release()
    for (const p of [...later, newest]) expect(await p).toMatchObject({ status: 'ok' })
    expect(calls.filter((c) => c.type === 'modifyOrders').map((c) => c.items)).toEqual([
      [{ oid: 1, p: '100', qty: '1' }],
      // The newest reprice of order 2 kept its first command's place in line.
      [
        { oid: 2, p: '202', qty: '1' },
        { oid: 3, p: '300', qty: '1' },
      ],
    ])
    await b.stop()
  })

  it('still sends a full batch at once, and stop sends whatever is collected', async () => {
    const clock = new ManualClock()
    const { send, calls } = fakeSend()
    const gate = heldGate()
    const b = createBatcher({
      send: viaGate(gate.limiter, send),
      reconcile: async () => {},
      clock,
      windowMs: 10,
      maxBatchSize: 3,
    })
    const all = [b.submit(modify(1))]
    await clock.advance(10)
    for (const oid of [2, 3, 4]) all.push(b.submit(modify(oid)))
    await flushMicrotasks()
    expect(gate.jobs).toHaveLength(2) // the full queue went at once
    all.push(b.submit(modify(5)))
    await clock.advance(10)
    expect(gate.jobs).toHaveLength(2)
    const stopped = b.stop()
    await flushMicrotasks()
    expect(gate.jobs).toHaveLength(3)
    for (let i = 0; i < 3; i++) {
      gate.release()
      await flushMicrotasks()
    }
    await stopped
    for (const p of all) expect(await p).toMatchObject({ status: 'ok' })
    expect(calls.map((c) => c.items.length)).toEqual([1, 3, 1])
  })
})

describe('state and stop', () => {
  it('counts batches by size, items, unknowns and the queue', async () => {
    const { b, clock } = setup()
    for (let oid = 1; oid <= 120; oid++) void b.submit(modify(oid))
    void b.submit(cancel(500))
    expect(b.state().queueLength).toBe(22)
    await clock.advance(10)
    expect(b.state()).toMatchObject({
      queueLength: 0,
      batchesSent: 3,
      itemsSent: 121,
      itemsSubmitted: 121,
      batchesBySize: { 99: 1, 21: 1, 1: 1 },
      unknownBatches: 0,
    })
  })

  it('stop() flushes what is queued, waits for it, and fails later submissions', async () => {
    const { b, calls } = setup({ windowMs: 1_000 })
    const queued = b.submit(modify(1))
    await b.stop()
    expect(calls).toHaveLength(1)
    expect(await queued).toMatchObject({ status: 'ok' })
    expect(await b.submit(modify(2))).toMatchObject({ status: 'failed', error: expect.any(StoppedError) })
  })
})

// ---------------------------------------------------------------------------------------------------
// End to end with the real limiter

describe('batcher + limiter', () => {
  let limiter: WeightLimiter
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 })
  })
  afterEach(async () => {
    await limiter.stop()
  })

  it('risk-reducing commands overtake queued quote refreshes', async () => {
    // Action budget 300 → 270 usable, 27 reserved for risk: two 99-order quote batches fit, the rest queue.
    limiter = createWeightLimiter({ actionBudget: 300 })
    const { send, calls } = fakeSend()
    const b = createBatcher({ send: viaGate(limiter, send), reconcile: async () => {}, windowMs: 10 })
    const quotes = Array.from({ length: 99 * 5 }, (_, i) => b.submit(modify(i + 1)))
    await vi.advanceTimersByTimeAsync(100)
    expect(calls.map((c) => c.type)).toEqual(['modifyOrders', 'modifyOrders'])
    expect(limiter.state().queued.quote).toBe(3)

    const cancels = Array.from({ length: 30 }, (_, i) => b.submit(cancel(10_000 + i)))
    const reduceOnly = b.submit(create(1, { ro: true }))
    await vi.advanceTimersByTimeAsync(20)
    expect(calls.map((c) => c.type)).toEqual(['modifyOrders', 'modifyOrders', 'cancelOrders', 'createOrders'])
    expect(await Promise.all(cancels)).toHaveLength(30)
    expect(await reduceOnly).toMatchObject({ status: 'ok' })
    expect(limiter.state().queued.quote).toBe(3)

    await vi.advanceTimersByTimeAsync(3 * 60_000)
    expect((await Promise.all(quotes)).every((o) => o.status === 'ok')).toBe(true)
    await b.stop()
  })

  it('re-plans a batch the limiter can never admit into batches that fit (nothing is lost or sent twice)', async () => {
    // Action budget 100 → 90 usable, quotes at most 81 per window: a 99-order batch can never fit.
    limiter = createWeightLimiter({ actionBudget: 100 })
    const { send, calls } = fakeSend()
    const b = createBatcher({ send: viaGate(limiter, send), reconcile: async () => {}, maxBatchSize: 99 })
    const outcomes = Array.from({ length: 99 }, (_, i) => b.submit(modify(i + 1)))
    await vi.advanceTimersByTimeAsync(100)
    expect(calls.map((c) => c.items.length)).toEqual([79])
    await vi.advanceTimersByTimeAsync(61_000)
    expect(calls.map((c) => c.items.length)).toEqual([79, 20])
    expect((await Promise.all(outcomes)).every((o) => o.status === 'ok')).toBe(true)
    const oids = calls.flatMap((c) => c.items.map((i) => (i as ModifyOrderInput).oid))
    expect(new Set(oids).size).toBe(99)
    expect(b.state()).toMatchObject({ splitBatches: 1, failedBatches: 0 })
    await b.stop()
  })

  it('sends each batch as one limiter job charged 1 + floor(n/20)', async () => {
    limiter = createWeightLimiter()
    const { send } = fakeSend()
    const b = createBatcher({ send: viaGate(limiter, send), reconcile: async () => {} })
    for (let i = 1; i <= 140; i++) void b.submit(modify(i))
    await vi.advanceTimersByTimeAsync(50)
    // 99 (weight 5) + 41 (weight 3): 8 request weight for 140 actions.
    expect(limiter.state().request.used).toBe(8)
    expect(limiter.state().action.used).toBe(140)
    await b.stop()
  })
})
