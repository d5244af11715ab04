/**
 * The limiter as the client's request gate (wrapping the real send), aborts of queued jobs, risk work
 * never held by a pause it did not cause, and Retry-After bounds. All on a manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { RateLimitError } from '../../../src/errors.ts'
import { parseRetryAfterMs } from '../../../src/http/callJson.ts'
import type { GatedRequest } from '../../../src/perps/client/context.ts'
import { LimiterAbortedError } from '../../../src/perps/throttle/limiterErrors.ts'
import { MAX_TIMER_MS } from '../../../src/perps/throttle/rateLimitBreaker.ts'
import {
  createWeightLimiter,
  type LimiterPause,
  type WeightLimiter,
  type WeightLimiterOptions,
} from '../../../src/perps/throttle/weightLimiter.ts'
import { PERPS_WEIGHTS, type PerpsEndpoint } from '../../../src/perps/weights.ts'
import { createHarness, FakeClock } from '../../perps/client/harness.ts'
import { flushMicrotasks, ManualClock } from './helpers.ts'

const START = 1_000_000
const noJitter = {
  next: () => 0,
  int: () => 0,
  normal: () => 0,
  pick: <T>(xs: readonly T[]): T => xs[0] as T,
}

/** A manual clock that also records every delay it was asked for. */
class RecordingClock extends ManualClock {
  readonly delays: number[] = []
  override setTimeout(fn: () => void, ms: number) {
    this.delays.push(ms)
    return super.setTimeout(fn, ms)
  }
}

let limiters: WeightLimiter[] = []
function setup(options: WeightLimiterOptions = {}): { l: WeightLimiter; clock: RecordingClock } {
  const clock = new RecordingClock(START)
  const l = createWeightLimiter({ random: noJitter, clock, ...options })
  limiters.push(l)
  return { l, clock }
}
afterEach(async () => {
  await Promise.all(limiters.map((l) => l.stop()))
  limiters = []
})

function request(endpoint: PerpsEndpoint, extra: Partial<GatedRequest> = {}): GatedRequest {
  const w = PERPS_WEIGHTS[endpoint]
  const input = extra.input ?? {}
  return {
    endpoint,
    kind: w.kind,
    input,
    requestWeight: w.request(input),
    actionWeight: w.action(input),
    ...extra,
  }
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

const ipLimited = (retryAfterMs?: number): RateLimitError =>
  new RateLimitError('/v1/info/index', 'ip_rate_limited', retryAfterMs)

describe('the limiter as request gate', () => {
  it('charges the table weights of the request, its filters included', async () => {
    const { l } = setup()
    await l.run(request('getOpenOrders', { input: { instrumentId: 3 } }), async () => 'ok')
    await l.run(request('getOrders', { input: { orderId: 9 } }), async () => 'ok')
    await l.run(request('createOrders', { input: { n: 45 }, priority: 'quote' }), async () => 'ok')
    // 1 (filtered open orders) + 1 (one order's history) + 3 (a batch of 45).
    expect(l.state().request.used).toBe(5)
    expect(l.state().action.used).toBe(45)
    expect(l.state().started).toEqual({ risk: 0, read: 2, quote: 1 })
  })

  it('records a success only with the answer: a read still in flight does not close a half-open breaker', async () => {
    const { l, clock } = setup({
      breakerThreshold: 1,
      breakerCoolDownMs: 1_000,
      breakerSuccessPeriodMs: 1_000,
    })
    l.onRateLimited(ipLimited(10))
    await clock.advance(1_000)
    expect(l.state().breaker).toBe('half-open')
    const answer = deferred<string>()
    const read = l.run(request('getTime'), () => answer.promise)
    await clock.advance(1_000)
    expect(l.state().breaker).toBe('half-open') // sent, not answered: proves nothing yet
    answer.resolve('ok')
    await expect(read).resolves.toBe('ok')
    await clock.advance(1_000)
    expect(l.state().breaker).toBe('closed')
  })

  it("a read's 429 thrown by its send reaches the breaker and pauses reads directly", async () => {
    const { l, clock } = setup({ breakerThreshold: 2 })
    const err = ipLimited(2_000)
    await expect(
      l.run(request('getIndex'), async () => {
        throw err
      }),
    ).rejects.toBe(err)
    expect(l.state()).toMatchObject({ rateLimited: 1, pausedUntil: { request: START + 2_000 } })
    let started = false
    const next = l.run(request('getIndex'), async () => {
      started = true
    })
    await clock.advance(1_999)
    expect(started).toBe(false)
    await clock.advance(1)
    await next
    expect(started).toBe(true)
  })

  it("a 429 on a risk job's own send (the venue's Retry-After on cancels) holds risk work too", async () => {
    const { l, clock } = setup()
    const err = new RateLimitError('/v1/trade/orders', 'ip_rate_limited', 1_500)
    await expect(
      l.run(request('cancelOrders', { input: { n: 3 }, priority: 'risk' }), async () => {
        throw err
      }),
    ).rejects.toBe(err)
    expect(l.state().riskPausedUntil.request).toBe(START + 1_500)
    let at: number | undefined
    const cancel = l.run(request('cancelAll', { priority: 'risk' }), async () => {
      at = clock.now()
    })
    await clock.advance(1_000)
    expect(at).toBeUndefined()
    await clock.advance(500)
    await cancel
    expect(at).toBe(START + 1_500)
  })
})

describe('risk work is never held by a pause it did not cause', () => {
  it('an open breaker and a read/quote 429 pause hold reads and quotes but not cancels, reduce-only or cancel-all', async () => {
    const { l, clock } = setup({ breakerThreshold: 1, breakerCoolDownMs: 30_000 })
    l.onRateLimited(ipLimited(20_000), 'quote')
    expect(l.state().breaker).toBe('open')
    const started: string[] = []
    const job = (name: string) => async () => {
      started.push(name)
    }
    const runs = [
      l.run(request('cancelOrders', { input: { n: 5 }, priority: 'risk' }), job('cancel')),
      l.run(request('createOrders', { input: { n: 2 }, priority: 'risk' }), job('reduceOnly')),
      l.run(request('cancelAll', { priority: 'risk' }), job('cancelAll')),
      l.run(request('getPortfolio'), job('read')),
      l.run(request('modifyOrders', { input: { n: 2 }, priority: 'quote' }), job('quote')),
    ]
    await clock.advance(0)
    expect(started).toEqual(['cancel', 'reduceOnly', 'cancelAll'])
    await clock.advance(20_000)
    expect(started).toEqual(['cancel', 'reduceOnly', 'cancelAll', 'read'])
    await clock.advance(10_000) // the breaker's cool-down
    await Promise.all(runs)
    expect(started.at(-1)).toBe('quote')
  })
})

describe('aborts reach queued jobs', () => {
  it('removes a job waiting out a pause at once and rejects it with LimiterAbortedError', async () => {
    const { l } = setup()
    l.onRateLimited(ipLimited(60_000))
    const controller = new AbortController()
    let ran = false
    const queued = l
      .run(request('getPortfolio', { signal: controller.signal }), async () => {
        ran = true
      })
      .catch((e: unknown) => e)
    await flushMicrotasks()
    expect(l.state().queued.read).toBe(1)
    controller.abort(new Error('stopping'))
    const e = await queued
    expect(e).toBeInstanceOf(LimiterAbortedError)
    expect(ran).toBe(false)
    expect(l.state().queued.read).toBe(0)
    expect(l.state().request.used).toBe(0)
  })

  it('an aborted head of the queue no longer blocks the jobs behind it', async () => {
    const { l } = setup({ requestBudget: 10, headroom: 1, riskReserve: 0 })
    await l.run(request('getIndex'), async () => undefined) // 2 of 10 used
    const controller = new AbortController()
    const heavy = l
      .run(request('getWithdrawals', { signal: controller.signal }), async () => 'heavy') // 10: waits
      .catch((e: unknown) => e)
    let light = false
    const behind = l.run(request('getIndex'), async () => {
      light = true
    })
    await flushMicrotasks()
    expect(light).toBe(false) // strictly head-of-line behind the heavy read
    controller.abort()
    expect(await heavy).toBeInstanceOf(LimiterAbortedError)
    await behind
    expect(light).toBe(true)
  })

  it('removes a quote waiting for the breaker, and refuses an already aborted job before queueing', async () => {
    const { l } = setup({ breakerThreshold: 1 })
    l.onRateLimited(ipLimited(10))
    const controller = new AbortController()
    const quote = l
      .run(
        request('modifyOrders', { input: { n: 1 }, priority: 'quote', signal: controller.signal }),
        async () => 1,
      )
      .catch((e: unknown) => e)
    await flushMicrotasks()
    controller.abort()
    expect(await quote).toBeInstanceOf(LimiterAbortedError)
    await expect(
      l.run(request('getTime', { signal: AbortSignal.abort() }), async () => 1),
    ).rejects.toBeInstanceOf(LimiterAbortedError)
    expect(l.state().queued).toEqual({ risk: 0, read: 0, quote: 0 })
  })
})

describe('Retry-After bounds', () => {
  for (const seconds of ['999999', '9999999']) {
    it(`Retry-After: ${seconds} gives the clamped pause, within Node's timer limit, and is reported`, async () => {
      const pauses: LimiterPause[] = []
      const { l, clock } = setup({ breakerThreshold: 10 })
      l.signals.pauses.subscribe((p) => pauses.push(p))
      const retryAfterMs = parseRetryAfterMs(seconds)
      l.onRateLimited(ipLimited(retryAfterMs))
      expect(l.state().pausedUntil.request).toBe(START + 60_000)
      expect(clock.delays.every((d) => d <= MAX_TIMER_MS)).toBe(true)
      expect(pauses).toEqual([
        {
          scope: 'request',
          holdsRisk: false,
          durationMs: 60_000,
          until: START + 60_000,
          cause: 'ip_rate_limited on /v1/info/index',
          clampedRetryAfterMs: retryAfterMs,
        },
      ])
      // The pause really ends at the clamp: a read goes once it has passed, not before.
      let at: number | undefined
      const read = l.run(request('getTime'), async () => {
        at = clock.now()
      })
      await clock.advance(59_999)
      expect(at).toBeUndefined()
      await clock.advance(1)
      await read
      expect(at).toBe(START + 60_000)
    })
  }

  it('honours a configured maximum and reports long pauses only', () => {
    const pauses: LimiterPause[] = []
    const { l } = setup({ maxRetryAfterMs: 5_000, longPauseMs: 4_000 })
    l.signals.pauses.subscribe((p) => pauses.push(p))
    l.onRateLimited(ipLimited(3_000))
    expect(pauses).toEqual([])
    l.onRateLimited(ipLimited(3_600_000))
    expect(l.state().pausedUntil.request).toBe(START + 5_000)
    expect(pauses).toMatchObject([{ durationMs: 5_000, clampedRetryAfterMs: 3_600_000 }])
  })

  it('never arms a real timer past the limit (no TimeoutOverflowWarning), even at the largest maximum and full jitter', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error): void => {
      warnings.push(w.name)
    }
    process.on('warning', onWarning)
    try {
      // The system clock: Node's own setTimeout, which warns and fires after 1 ms past 2^31 − 1.
      const l = createWeightLimiter({
        maxRetryAfterMs: MAX_TIMER_MS,
        backoffJitter: 1,
        random: { ...noJitter, next: () => 0.99 },
      })
      limiters.push(l)
      const now = Date.now()
      l.onRateLimited(ipLimited(parseRetryAfterMs('9999999')))
      const until = l.state().pausedUntil.request as number
      expect(until - now).toBeGreaterThan(MAX_TIMER_MS - 1_000)
      expect(until - now).toBeLessThanOrEqual(MAX_TIMER_MS + 50)
      await new Promise((r) => setImmediate(r))
      expect(warnings).not.toContain('TimeoutOverflowWarning')
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('rejects a maximum beyond the timer limit', () => {
    expect(() => createWeightLimiter({ maxRetryAfterMs: MAX_TIMER_MS + 1 })).toThrow(
      'invalid limiter settings',
    )
  })
})

describe('through the perps client', () => {
  it("a poller's abort reaches its read queued in the limiter: it rejects at once and nothing is sent", async () => {
    const clock = new FakeClock()
    const l = createWeightLimiter({ random: noJitter, clock })
    limiters.push(l)
    const h = createHarness({ gate: l, clock })
    try {
      l.onRateLimited(ipLimited(60_000)) // a long pause of reads
      const controller = new AbortController()
      const read = h.client.getPortfolio({ signal: controller.signal }).catch((e: unknown) => e)
      await flushMicrotasks()
      expect(l.state().queued.read).toBe(1)
      controller.abort(new Error('stopping'))
      expect(await read).toBeInstanceOf(LimiterAbortedError)
      expect(h.requests).toHaveLength(0)
      expect(l.state().queued.read).toBe(0)
    } finally {
      await h.close()
    }
  })
})

describe('issue 24: nothing local holds the exit, and risk work waits only the venue', () => {
  it('risk work is held for the Retry-After of the 429 on it, not for our doubled back-off', async () => {
    const { l } = setup({ breakerThreshold: 100 })
    // Our own back-off has grown: five 429s on reads without Retry-After.
    for (let i = 0; i < 5; i++)
      l.onRateLimited(new RateLimitError('/v1/info/index', 'ip_rate_limited', undefined), 'read')
    const other = l.state().pausedUntil.request ?? 0
    expect(other).toBeGreaterThanOrEqual(START + 16_000)
    // A 429 on the dead-man refresh with Retry-After 2 s: risk waits 2 s, not the 32 s back-off.
    l.onRateLimited(new RateLimitError('/v1/trade/auto-cancel', 'ip_rate_limited', 2_000), 'risk')
    expect(l.state().riskPausedUntil.request).toBe(START + 2_000)
    // Without a Retry-After: the base pause (1 s), whatever the streak.
    l.onRateLimited(new RateLimitError('/v1/trade/auto-cancel', 'ip_rate_limited', undefined), 'risk')
    expect(l.state().riskPausedUntil.request).toBe(START + 2_000)
  })

  it('an exit job goes at once through a risk pause, an open breaker, a spent budget and a stopped limiter', async () => {
    const { l } = setup({ breakerThreshold: 1 })
    l.onRateLimited(new RateLimitError('/v1/trade/orders/all', 'ip_rate_limited', 60_000), 'risk')
    expect(l.state().breaker).toBe('open')
    expect(l.state().riskPausedUntil.request).toBeDefined()
    let sent = 0
    await l.run(request('cancelAll', { priority: 'exit' }), async () => {
      sent++
    })
    await l.stop()
    await l.run(request('setAutoCancel', { priority: 'exit' }), async () => {
      sent++
    })
    expect(sent).toBe(2)
    expect(l.state().exitSent).toBe(2)
    // A risk job after the stop is refused; the exit's own 429 is counted but pauses nothing further.
    await expect(l.run(request('cancelAll', { priority: 'risk' }), async () => undefined)).rejects.toThrow()
  })

  it('a 429 on an exit job is reported to its caller and pauses nothing (the stop sequence honours it)', async () => {
    const { l } = setup()
    const err = new RateLimitError('/v1/trade/orders/all', 'ip_rate_limited', 5_000)
    await expect(
      l.run(request('cancelAll', { priority: 'exit' }), async () => Promise.reject(err)),
    ).rejects.toBe(err)
    expect(l.state().riskPausedUntil.request).toBeUndefined()
    expect(l.state().pausedUntil.request).toBeUndefined()
  })
})
