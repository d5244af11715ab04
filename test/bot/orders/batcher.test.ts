import { afterEach, describe, expect, it, vi } from 'vitest'
import { createBatcher } from '../../../src/bot/orders/batcher.ts'
import { batchesWeight, batchWeight, splitBatchSizes } from '../../../src/bot/orders/batching/batchSizes.ts'
import {
  InputValidationError,
  RateLimitError,
  RequestRejectedError,
  TransportError,
  UnknownOutcomeError,
} from '../../../src/errors.ts'
import type { ModifyOrderInput } from '../../../src/perps/schemas/orders.ts'
import type { WeightLimiter } from '../../../src/perps/throttle/weightLimiter.ts'
import { seededRandom } from '../../../src/random.ts'
import { legacyBatchSend } from '../../helpers/admission.ts'
import { flushMicrotasks, ManualClock } from '../limiter/helpers.ts'
import {
  cancel,
  create,
  deferred,
  fakeSend,
  modify,
  okResponder,
  order,
  setup,
  viaGate,
} from './batcherFakes.ts'

afterEach(() => {
  vi.useRealTimers()
})

// ---------------------------------------------------------------------------------------------------
// Batch sizes

/** Exhaustive optimum by dynamic programming over every batch size: (least weight, fewest requests). */
function bruteForce(n: number, max: number): { weight: number; requests: number } {
  const best = [{ weight: 0, requests: 0 }]
  for (let i = 1; i <= n; i++) {
    let b = { weight: Number.POSITIVE_INFINITY, requests: Number.POSITIVE_INFINITY }
    for (let s = 1; s <= Math.min(max, i); s++) {
      const prev = best[i - s] as { weight: number; requests: number }
      const cand = { weight: prev.weight + batchWeight(s), requests: prev.requests + 1 }
      if (cand.weight < b.weight || (cand.weight === b.weight && cand.requests < b.requests)) b = cand
    }
    best.push(b)
  }
  return best[n] as { weight: number; requests: number }
}

describe('splitBatchSizes', () => {
  it.each([
    [1, [1]],
    [19, [19]],
    [20, [20]],
    [45, [45]], // weight 3, same as 39 + 6 or 19 + 19 + 7, in one request
    [99, [99]],
    [100, [99, 1]],
    [119, [99, 20]],
    [200, [99, 99, 2]],
  ])('%i queued → %j with the default cap 99', (n, sizes) => {
    expect(splitBatchSizes(n, 99)).toEqual(sizes)
  })

  for (const max of [99, 19, 20, 39, 45, 50, 60, 100]) {
    it(`matches the brute-force optimum for every queue length 1..200 (cap ${max})`, () => {
      for (let n = 1; n <= 200; n++) {
        const plan = splitBatchSizes(n, max)
        const best = bruteForce(n, max)
        expect(plan.reduce((a, b) => a + b, 0)).toBe(n)
        expect(plan.every((s) => s >= 1 && s <= max)).toBe(true)
        expect({ n, weight: batchesWeight(plan), requests: plan.length }).toEqual({
          n,
          weight: best.weight,
          requests: best.requests,
        })
      }
    })
  }
})

// ---------------------------------------------------------------------------------------------------
// Windows and flushing

describe('collecting and flushing', () => {
  it('lets lazy commands (age refreshes) of many instruments wait the lazy window and leave as one batch', async () => {
    const { b, clock, calls } = setup({ windowMs: 0, lazyWindowMs: 1_000 })
    const lazy = (oid: number, iid: number) => ({ ...modify(oid, '100', iid), lazy: true })
    const results = [b.submit(lazy(1, 1))]
    await clock.advance(400)
    results.push(b.submit(lazy(2, 2)))
    await clock.advance(500)
    results.push(b.submit(lazy(3, 3)))
    expect(calls).toHaveLength(0)
    await clock.advance(100)
    expect(calls.map((c) => c.items)).toMatchObject([[{ oid: 1 }, { oid: 2 }, { oid: 3 }]])
    expect((await Promise.all(results)).map((r) => r.status)).toEqual(['ok', 'ok', 'ok'])
  })

  it('flushes waiting lazy commands with the next urgent command of their queue, at once', async () => {
    const { b, clock, calls } = setup({ windowMs: 0, lazyWindowMs: 1_000 })
    void b.submit({ ...modify(1, '100', 1), lazy: true })
    await clock.advance(300)
    expect(calls).toHaveLength(0)
    void b.submit(modify(2, '101', 2))
    await flushMicrotasks()
    expect(calls.map((c) => c.items)).toMatchObject([[{ oid: 1 }, { oid: 2 }]])
    // The lazy timer is gone with the flush: nothing more goes out when it would have fired.
    await clock.advance(1_000)
    expect(calls).toHaveLength(1)
  })

  it('collects quote commands for the window, then sends one batch', async () => {
    const { b, clock, calls } = setup({ windowMs: 10 })
    const results = [b.submit(modify(1)), b.submit(modify(2, '101', 2))]
    await clock.advance(9)
    expect(calls).toHaveLength(0)
    await clock.advance(1)
    expect(calls).toHaveLength(1)
    expect(calls[0]?.items).toEqual([
      { oid: 1, p: '100', qty: '1' },
      { oid: 2, p: '101', qty: '1' },
    ])
    expect(await Promise.all(results)).toMatchObject([
      { status: 'ok', order: { oid: 1 } },
      { status: 'ok', order: { oid: 2 } },
    ])
  })

  it('flushes a full batch at once, without waiting for the window', async () => {
    const { b, clock, calls } = setup({ windowMs: 10, maxBatchSize: 99 })
    for (let oid = 1; oid <= 100; oid++) void b.submit(modify(oid))
    await flushMicrotasks()
    // The full batch went before the clock moved; the one behind it follows that batch's admission
    // (how many microtasks that takes is the gate's business, so only the order is pinned).
    expect(calls[0]?.items).toHaveLength(99)
    await clock.advance(10)
    expect(calls.map((c) => c.items.length)).toEqual([99, 1])
  })

  it('sends risk commands in the same tick, with no timer', async () => {
    const { b, clock, calls } = setup({ windowMs: 10 })
    const r = [b.submit(cancel(5)), b.submit(cancel(6)), b.submit(create(1, { ro: true }))]
    expect(clock.pendingTimers).toBe(0)
    await flushMicrotasks()
    expect(calls.map((c) => [c.type, c.items.length])).toEqual([
      ['cancelOrders', 2],
      ['createOrders', 1],
    ])
    expect(await Promise.all(r)).toMatchObject([
      { status: 'ok', oid: 5 },
      { status: 'ok', oid: 6 },
      { status: 'ok' },
    ])
  })

  it('never mixes types, hands risk batches to the limiter first, one job per batch with its endpoint and n', async () => {
    const { b, calls, jobs } = setup({ windowMs: 10 })
    void b.submit(modify(1))
    void b.submit(create(1))
    void b.submit(modify(2))
    void b.submit(cancel(3))
    void b.submit(create(2, { ro: true }))
    void b.submit(modify(4, '1', 1, 'risk'))
    b.flush()
    await flushMicrotasks()
    expect(calls.map((c) => c.type)).toEqual([
      'cancelOrders',
      'createOrders',
      'modifyOrders',
      'modifyOrders',
      'createOrders',
    ])
    expect(jobs).toEqual([
      { endpoint: 'cancelOrders', n: 1, priority: 'risk' },
      { endpoint: 'createOrders', n: 1, priority: 'risk' },
      { endpoint: 'modifyOrders', n: 1, priority: 'risk' },
      { endpoint: 'modifyOrders', n: 2, priority: 'quote' },
      { endpoint: 'createOrders', n: 1, priority: 'quote' },
    ])
  })

  it('hands items on unchanged and leaves parsing to the client: a batch it refuses before sending fails, unreconciled', async () => {
    const clock = new ManualClock()
    const reconcile = vi.fn(async () => undefined)
    const seen: unknown[] = []
    const refuse = (): Promise<never> =>
      Promise.reject(new InputValidationError('invalid modifyOrders input'))
    const b = createBatcher({
      send: legacyBatchSend({
        // As the client does: the wire schema is parsed before the gate, so nothing is admitted or sent.
        modifyOrders: (items) => {
          seen.push(...items)
          return refuse()
        },
        createOrders: refuse,
        cancelOrders: refuse,
      }),
      reconcile,
      clock,
      windowMs: 10,
    })
    const bad = b.submit({ type: 'modifyOrders', iid: 1, order: { oid: 1, p: 'abc', qty: '1' } })
    const other = b.submit(modify(2))
    await clock.advance(10)
    expect(seen).toEqual([
      { oid: 1, p: 'abc', qty: '1' },
      { oid: 2, p: '100', qty: '1' },
    ])
    for (const o of [await bad, await other])
      expect(o).toMatchObject({ status: 'failed', error: expect.any(InputValidationError) })
    expect(reconcile).not.toHaveBeenCalled()
    expect(b.state()).toMatchObject({ batchesSent: 0, failedBatches: 1 })
  })
})

// ---------------------------------------------------------------------------------------------------
// Results

describe('results', () => {
  it('routes every per-order result back to the caller that submitted it', async () => {
    const { b, clock } = setup({}, (call) =>
      call.items.map((item) => {
        const m = item as ModifyOrderInput
        return m.oid % 7 === 0
          ? { status: 'err', error: `insufficient_margin for ${m.oid}`, oid: m.oid }
          : { status: 'ok', order: order(m, Math.floor(m.oid / 100)) }
      }),
    )
    const rnd = seededRandom(7)
    const oids = Array.from({ length: 150 }, (_, i) => (i % 3) * 100 + i)
    const submitted = [...oids].sort(() => rnd.next() - 0.5).map((oid) => ({ oid, p: `${oid}.5` }))
    const outcomes = submitted.map((s) => b.submit(modify(s.oid, s.p, Math.floor(s.oid / 100))))
    await clock.advance(10)
    const results = await Promise.all(outcomes)
    results.forEach((r, i) => {
      const s = submitted[i] as { oid: number; p: string }
      if (s.oid % 7 === 0)
        expect(r).toEqual({ status: 'err', error: `insufficient_margin for ${s.oid}`, oid: s.oid })
      else expect(r).toMatchObject({ status: 'ok', order: { oid: s.oid, p: s.p } })
    })
  })

  it('applies a single request-level rejection to every item of the batch', async () => {
    const { b, clock, reconcile } = setup({}, () => [{ status: 'err', error: 'invalid signature' }])
    const r = [b.submit(modify(1)), b.submit(modify(2)), b.submit(modify(3))]
    await clock.advance(10)
    for (const o of await Promise.all(r)) expect(o).toEqual({ status: 'err', error: 'invalid signature' })
    expect(reconcile).not.toHaveBeenCalled()
  })

  it.each([
    ['a 4xx', new RequestRejectedError('/v1/trade/orders', 400, 'invalid signature')],
    ['a 429', new RateLimitError('/v1/trade/orders', 'ip_rate_limited', 1000)],
    [
      'a transport failure before sending',
      new TransportError('/v1/trade/orders', 'ECONNREFUSED', { maybeDelivered: false }),
    ],
  ])('resolves `failed` for %s (definitely not applied) without reconciling', async (_, error) => {
    const { b, clock, reconcile } = setup({}, () => Promise.reject(error))
    const r = b.submit(modify(1))
    await clock.advance(10)
    expect(await r).toEqual({ status: 'failed', error })
    expect(reconcile).not.toHaveBeenCalled()
  })
})

// ---------------------------------------------------------------------------------------------------
// Unknown outcomes

describe('unknown outcome', () => {
  it('reconciles before anything else is sent, resolves the items `unknown`, and never resends them', async () => {
    const reconciled = deferred()
    let first = true
    const { b, clock, calls, log, reconcile } = setup({}, (call) => {
      if (first) {
        first = false
        return Promise.reject(new UnknownOutcomeError('/v1/trade/orders'))
      }
      return okResponder(call)
    })
    reconcile.mockImplementation(async (iids: readonly number[]) => {
      log.push(`reconcile ${iids.join(',')}`)
      await reconciled.promise
    })
    const lost = [b.submit(modify(1, '100', 3)), b.submit(modify(2, '100', 4))]
    const lostSettled = vi.fn()
    void Promise.all(lost).then(lostSettled)
    await clock.advance(10)
    expect(reconcile).toHaveBeenCalledWith([3, 4])

    // While reconciling, new commands queue (risk ones too) but nothing is sent.
    const later = [
      b.submit(modify(3)),
      b.submit(cancel(9)),
      ...Array.from({ length: 250 }, (_, i) => b.submit(modify(100 + i))),
    ]
    await clock.advance(1_000)
    expect(calls).toHaveLength(1)
    expect(lostSettled).not.toHaveBeenCalled()
    expect(b.state()).toMatchObject({ reconciling: true, queueLength: 252 })

    reconciled.resolve()
    await clock.advance(0)
    expect(await Promise.all(lost)).toEqual([{ status: 'unknown' }, { status: 'unknown' }])
    expect(log.slice(0, 3)).toEqual(['send modifyOrders 2', 'reconcile 3,4', 'send cancelOrders 1'])
    // The held quotes go out in weight-optimal batches; the lost orders 1 and 2 are not among them.
    expect(calls.slice(2).map((c) => c.items.length)).toEqual([99, 99, 53])
    const resent = calls
      .slice(1)
      .flatMap((c) => c.items)
      .filter((i) => typeof i === 'object' && 'oid' in i && i.oid <= 2)
    expect(resent).toEqual([])
    for (const o of await Promise.all(later)) expect(o).toMatchObject({ status: 'ok' })
    expect(b.state()).toMatchObject({ unknownBatches: 1, unknownItems: 2, reconciles: 1, reconciling: false })
  })

  it('holds batches the limiter already admitted until the reconciliation is done', async () => {
    const clock = new ManualClock()
    const reconciled = deferred()
    const admit: (() => void)[] = []
    // A limiter that starts jobs only when the test says so.
    const limiter: Pick<WeightLimiter, 'schedule'> = {
      schedule: (_job, fn) =>
        new Promise((resolve, reject) => {
          admit.push(() => {
            fn().then(resolve, reject)
          })
        }),
    }
    const { send, log } = fakeSend((call) =>
      call.type === 'modifyOrders'
        ? Promise.reject(new UnknownOutcomeError('/v1/trade/orders'))
        : okResponder(call),
    )
    const reconcile = async (iids: readonly number[]): Promise<void> => {
      log.push(`reconcile ${iids.join(',')}`)
      await reconciled.promise
    }
    const b = createBatcher({ send: viaGate(limiter, send), reconcile, clock })
    const lost = b.submit(modify(1, '1', 4))
    const cancelled = b.submit(cancel(2, 5))
    await clock.advance(10)
    expect(admit).toHaveLength(2) // both batches are with the limiter
    admit[1]?.() // the modify batch (risk cancels were handed over first)
    await flushMicrotasks()
    admit[0]?.() // the cancel batch is admitted while the reconciliation is pending
    await flushMicrotasks()
    expect(log).toEqual(['send modifyOrders 1', 'reconcile 4'])
    reconciled.resolve()
    await flushMicrotasks()
    expect(log).toEqual(['send modifyOrders 1', 'reconcile 4', 'send cancelOrders 1'])
    expect(await lost).toEqual({ status: 'unknown' })
    expect(await cancelled).toMatchObject({ status: 'ok', oid: 2 })
  })

  it('treats a batch without an answer after sendTimeoutMs as unknown and aborts it', async () => {
    const { b, clock, calls, reconcile } = setup({ sendTimeoutMs: 5_000 }, () => new Promise(() => {}))
    const r = b.submit(modify(1, '1', 8))
    await clock.advance(10)
    expect(calls[0]?.signal.aborted).toBe(false)
    await clock.advance(5_000)
    expect(calls[0]?.signal.aborted).toBe(true)
    expect(reconcile).toHaveBeenCalledWith([8])
    expect(await r).toEqual({ status: 'unknown' })
  })

  it.each([
    ['UnknownOutcomeError', new UnknownOutcomeError('/v1/trade/orders')],
    [
      'a possibly delivered transport failure',
      new TransportError('/v1/trade/orders', 'reset', { maybeDelivered: true }),
    ],
    ['a 5xx', new RequestRejectedError('/v1/trade/orders', 500, 'internal_error')],
    ['a result count mismatch', 'mismatch'],
  ])('reconciles after %s', async (_, error) => {
    const { b, clock, reconcile } = setup({}, () =>
      error === 'mismatch' ? [{ status: 'ok', oid: 1 }] : Promise.reject(error),
    )
    const r = [b.submit(cancel(1, 2)), b.submit(cancel(2, 2))]
    await clock.advance(0)
    expect(await Promise.all(r)).toEqual([{ status: 'unknown' }, { status: 'unknown' }])
    expect(reconcile).toHaveBeenCalledTimes(1)
  })

  it('retries a failing reconcile with backoff, then resumes and reports', async () => {
    const errors: number[] = []
    let first = true
    const { b, clock, calls, reconcile } = setup(
      {
        reconcileAttempts: 3,
        reconcileRetryMs: 100,
        onReconcileError: (_e, attempt) => errors.push(attempt),
      },
      (call) => {
        if (first) {
          first = false
          return Promise.reject(new UnknownOutcomeError('/v1/trade/orders'))
        }
        return okResponder(call)
      },
    )
    reconcile.mockRejectedValue(new Error('read failed'))
    const lost = b.submit(modify(1))
    await clock.advance(10)
    const next = b.submit(modify(2))
    await clock.advance(99)
    expect(reconcile).toHaveBeenCalledTimes(1)
    await clock.advance(1)
    expect(reconcile).toHaveBeenCalledTimes(2)
    expect(calls).toHaveLength(1)
    await clock.advance(200)
    expect(reconcile).toHaveBeenCalledTimes(3)
    expect(errors).toEqual([1, 2, 3])
    expect(await lost).toEqual({ status: 'unknown' })
    await clock.advance(10)
    expect(await next).toMatchObject({ status: 'ok' })
    expect(b.state().reconcileFailures).toBe(3)
  })
})

// ---------------------------------------------------------------------------------------------------
// Coalescing and exactly-once
