import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type Batcher,
  type BatcherOptions,
  type BatchSend,
  type BatchType,
  createBatcher,
  type ItemOutcome,
} from '../../../src/bot/orders/batcher.ts'
import { batchesWeight, batchWeight, splitBatchSizes } from '../../../src/bot/orders/batching/batchSizes.ts'
import {
  InputValidationError,
  RateLimitError,
  RequestRejectedError,
  TransportError,
  UnknownOutcomeError,
} from '../../../src/errors.ts'
import type {
  CancelResult,
  CreateOrderAck,
  CreateOrderInput,
  ModifyOrderInput,
  ModifyResult,
  Order,
} from '../../../src/perps/schemas/orders.ts'
import { StoppedError } from '../../../src/perps/throttle/limiterErrors.ts'
import {
  createWeightLimiter,
  type WeightJob,
  type WeightLimiter,
} from '../../../src/perps/throttle/weightLimiter.ts'
import { seededRandom } from '../../../src/random.ts'
import { type LegacySendOptions, legacyBatchSend } from '../../helpers/admission.ts'
import { flushMicrotasks, ManualClock } from '../limiter/helpers.ts'

// ---------------------------------------------------------------------------------------------------
// Fakes

interface SendCall {
  type: BatchType
  items: readonly (ModifyOrderInput | CreateOrderInput | number)[]
  signal: AbortSignal
}
type Responder = (call: SendCall) => Promise<readonly unknown[]> | readonly unknown[]

function order(m: ModifyOrderInput, iid = 1): Order {
  return {
    oid: m.oid,
    iid,
    buy: true,
    p: m.p,
    qty: m.qty,
    tif: 'gtc',
    po: true,
    ro: false,
    rest: m.qty,
    fill: '0',
    cts: 1,
    uts: 2,
    status: 'open',
  }
}

/** Answers every item `ok`, echoing what was sent. */
const okResponder: Responder = (call) =>
  call.items.map((item, i) => {
    if (call.type === 'modifyOrders') return { status: 'ok', order: order(item as ModifyOrderInput) }
    if (call.type === 'cancelOrders') return { status: 'ok', oid: item as number }
    return { status: 'ok', oid: 10_000 + i }
  })

/** The venue end of a send: records what goes on the wire and answers it. */
type RawSend = (
  type: BatchType,
  items: readonly (ModifyOrderInput | CreateOrderInput | number)[],
  options: { signal: AbortSignal },
) => Promise<readonly unknown[]>

function fakeSend(responder: Responder = okResponder): { send: RawSend; calls: SendCall[]; log: string[] } {
  const calls: SendCall[] = []
  const log: string[] = []
  const send: RawSend = async (type, items, { signal }) => {
    const call: SendCall = { type, items: [...items], signal }
    calls.push(call)
    log.push(`send ${type} ${items.length}`)
    return await responder(call)
  }
  return { send, calls, log }
}

/**
 * What the perps client does with a batch: passes its request gate (the limiter) once, as one job with
 * the batch's endpoint, n and priority; hands the admission back (here: `onAdmitted`, bridged); then signs and sends.
 */
function viaGate(limiter: Pick<WeightLimiter, 'schedule'>, raw: RawSend): BatchSend {
  const one =
    <I extends ModifyOrderInput | CreateOrderInput | number, R>(type: BatchType) =>
    (items: readonly I[], o: LegacySendOptions): Promise<readonly R[]> =>
      limiter.schedule({ endpoint: type, n: items.length, priority: o.priority }, async () => {
        await o.onAdmitted()
        return (await raw(type, items, { signal: o.signal })) as readonly R[]
      })
  return legacyBatchSend({
    modifyOrders: one<ModifyOrderInput, ModifyResult>('modifyOrders'),
    createOrders: one<CreateOrderInput, CreateOrderAck>('createOrders'),
    cancelOrders: one<number, CancelResult>('cancelOrders'),
  })
}

/** Runs jobs at once, recording them. */
function passThroughLimiter(): { limiter: Pick<WeightLimiter, 'schedule'>; jobs: WeightJob[] } {
  const jobs: WeightJob[] = []
  return {
    jobs,
    limiter: {
      schedule: (job, fn) => {
        jobs.push(job)
        return fn()
      },
    },
  }
}

function deferred<T = void>(): {
  promise: Promise<T>
  resolve: (v: T) => void
  reject: (e: unknown) => void
} {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const modify = (oid: number, p = '100', iid = 1, priority?: 'risk' | 'quote') =>
  ({ type: 'modifyOrders', iid, order: { oid, p, qty: '1' }, ...(priority ? { priority } : {}) }) as const
const cancel = (oid: number, iid = 1) => ({ type: 'cancelOrders', iid, oid }) as const
const create = (iid: number, extra: Partial<CreateOrderInput> = {}) =>
  ({ type: 'createOrders', order: { iid, buy: true, qty: '1', p: '10', tif: 'gtc', ...extra } }) as const

let batchers: Batcher[] = []
function setup(
  overrides: Partial<BatcherOptions> = {},
  responder?: Responder,
): {
  b: Batcher
  clock: ManualClock
  calls: SendCall[]
  log: string[]
  jobs: WeightJob[]
  reconcile: ReturnType<typeof vi.fn>
} {
  const clock = new ManualClock()
  const { send, calls, log } = fakeSend(responder)
  const { limiter, jobs } = passThroughLimiter()
  const reconcile = vi.fn(async (iids: readonly number[]) => {
    log.push(`reconcile ${iids.join(',')}`)
  })
  const b = createBatcher({ send: viaGate(limiter, send), reconcile, clock, windowMs: 10, ...overrides })
  batchers.push(b)
  return { b, clock, calls, log, jobs, reconcile }
}

afterEach(async () => {
  vi.useRealTimers()
  batchers = []
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
