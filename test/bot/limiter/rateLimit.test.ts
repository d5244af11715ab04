import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RateLimitError } from '../../../src/errors.ts'
import { rateLimitPauseMs } from '../../../src/perps/throttle/rateLimitBreaker.ts'
import {
  type BreakerState,
  createWeightLimiter,
  type WeightLimiter,
  type WeightLimiterOptions,
} from '../../../src/perps/throttle/weightLimiter.ts'
import { tick } from './helpers.ts'

const START = 1_000_000
let limiters: WeightLimiter[] = []
const noJitter = {
  next: () => 0,
  int: () => 0,
  normal: () => 0,
  pick: <T>(xs: readonly T[]): T => xs[0] as T,
}

function limiter(options: WeightLimiterOptions = {}): WeightLimiter {
  const l = createWeightLimiter({ random: noJitter, ...options })
  limiters.push(l)
  return l
}

beforeEach(() => {
  vi.useFakeTimers({ now: START })
})
afterEach(async () => {
  await Promise.all(limiters.map((l) => l.stop()))
  limiters = []
  vi.useRealTimers()
})

const ipLimited = (retryAfterMs?: number): RateLimitError =>
  new RateLimitError('/v1/info/index', 'ip_rate_limited', retryAfterMs)

/** Schedules a job that records the fake time it started at. */
function timed(
  l: WeightLimiter,
  job: Parameters<WeightLimiter['schedule']>[0],
): { at: () => number | undefined } {
  let at: number | undefined
  void l
    .schedule(job, async () => {
      at = Date.now()
    })
    .catch(() => undefined)
  return { at: () => at }
}

describe('rateLimitPauseMs', () => {
  const opts = { baseMs: 1000, maxMs: 60_000, jitter: 0.2 }
  it('never pauses less than Retry-After and doubles for repeated 429s up to the cap', () => {
    expect(rateLimitPauseMs(5000, 1, opts, { next: () => 0 })).toBe(5000)
    expect(rateLimitPauseMs(undefined, 1, opts, { next: () => 0 })).toBe(1000)
    expect(rateLimitPauseMs(undefined, 3, opts, { next: () => 0 })).toBe(4000)
    expect(rateLimitPauseMs(1000, 10, opts, { next: () => 0 })).toBe(60_000)
  })
  it('adds up to `jitter` of the pause at random, never subtracts', () => {
    expect(rateLimitPauseMs(5000, 1, opts, { next: () => 0.999999 })).toBe(6000)
    for (const u of [0, 0.25, 0.5, 0.75]) {
      const ms = rateLimitPauseMs(2000, 1, opts, { next: () => u })
      expect(ms).toBeGreaterThanOrEqual(2000)
      expect(ms).toBeLessThanOrEqual(2400)
    }
  })
})

describe('429 handling', () => {
  it('honours Retry-After of a 429 on risk work: nothing starts until it has passed, risk included, then all resume', async () => {
    const l = limiter()
    l.onRateLimited(ipLimited(3000), 'risk')
    expect(l.state().pausedUntil.request).toBe(START + 3000)
    const risk = timed(l, { endpoint: 'cancelOrders', n: 10, priority: 'risk' })
    const read = timed(l, { endpoint: 'getPortfolio', priority: 'read' })
    const quote = timed(l, { endpoint: 'modifyOrders', n: 19, priority: 'quote' })
    await tick(2_900)
    expect([risk.at(), read.at(), quote.at()]).toEqual([undefined, undefined, undefined])
    await tick(200)
    expect(risk.at()).toBeGreaterThanOrEqual(START + 3000)
    expect(read.at()).toBeGreaterThanOrEqual(START + 3000)
    expect(quote.at()).toBeGreaterThanOrEqual(START + 3000)
    // Risk is first out of the pause.
    expect(risk.at()).toBeLessThanOrEqual(read.at() as number)
    expect(l.state().pausedUntil.request).toBeUndefined()
  })

  it('a 429 on reads or quotes never holds risk work: cancels go at once, reads and quotes wait', async () => {
    const l = limiter()
    l.onRateLimited(ipLimited(3000)) // a read's 429
    expect(l.state()).toMatchObject({
      pausedUntil: { request: START + 3000 },
      riskPausedUntil: { request: undefined },
    })
    const risk = timed(l, { endpoint: 'cancelOrders', n: 10, priority: 'risk' })
    const read = timed(l, { endpoint: 'getPortfolio', priority: 'read' })
    const quote = timed(l, { endpoint: 'modifyOrders', n: 19, priority: 'quote' })
    await tick(10)
    expect([risk.at(), read.at(), quote.at()]).toEqual([START, undefined, undefined])
    await tick(3_000)
    expect(read.at()).toBeGreaterThanOrEqual(START + 3000)
    expect(quote.at()).toBeGreaterThanOrEqual(START + 3000)
  })

  it('action_rate_limited pauses only jobs with action weight; cancels still go', async () => {
    const l = limiter()
    // A reduce-only batch (risk, action weight) refused by the venue.
    l.onRateLimited(new RateLimitError('/v1/trade/orders', 'action_rate_limited', 2000), 'risk')
    const cancel = timed(l, { endpoint: 'cancelOrders', n: 10, priority: 'risk' })
    const read = timed(l, { endpoint: 'getPortfolio', priority: 'read' })
    const reduceOnly = timed(l, { endpoint: 'createOrders', n: 2, priority: 'risk' })
    await tick(50)
    expect(cancel.at()).toBeDefined()
    expect(read.at()).toBeDefined()
    expect(reduceOnly.at()).toBeUndefined()
    await tick(2_000)
    expect(reduceOnly.at()).toBeGreaterThanOrEqual(START + 2000)
  })

  it('backs off longer on repeated 429s (exponential from backoffBaseMs)', async () => {
    const l = limiter({ backoffBaseMs: 1000, breakerThreshold: 10 })
    l.onRateLimited(ipLimited(undefined))
    expect(l.state().pausedUntil.request).toBe(START + 1000)
    l.onRateLimited(ipLimited(undefined))
    expect(l.state().pausedUntil.request).toBe(START + 2000)
    l.onRateLimited(ipLimited(500))
    expect(l.state().pausedUntil.request).toBe(START + 4000)
    expect(l.state().rateLimited).toBe(3)
  })

  it('detects a RateLimitError thrown by the job and counts each error once', async () => {
    const l = limiter()
    const err = ipLimited(1000)
    const failing = l.schedule({ endpoint: 'getIndex', priority: 'read' }, async () => {
      throw err
    })
    const outcome = failing.catch((e: unknown) => e)
    await tick()
    expect(await outcome).toBe(err)
    l.onRateLimited(err) // the caller reporting the same error again
    expect(l.state().rateLimited).toBe(1)
    expect(l.state().pausedUntil.request).toBeGreaterThan(START)
  })

  it('does not pause for open_orders_limit (a capacity cap, not a rate)', () => {
    const l = limiter()
    l.onRateLimited(new RateLimitError('/v1/trade/orders', 'open_orders_limit', undefined))
    expect(l.state()).toMatchObject({
      rateLimited: 0,
      openOrdersLimited: 1,
      pausedUntil: { request: undefined, action: undefined },
    })
  })
})

describe('breaker', () => {
  it('opens after 3 429s in 60 s, holds quotes for the cool-down while risk and reads go, then half-opens and closes', async () => {
    const events: [BreakerState, string][] = []
    const l = limiter({
      breakerThreshold: 3,
      breakerWindowMs: 60_000,
      breakerCoolDownMs: 30_000,
      breakerSuccessPeriodMs: 20_000,
    })
    l.signals.breaker.subscribe(({ state, reason }) => events.push([state, reason]))
    l.onRateLimited(ipLimited(1000))
    await tick(10_000)
    l.onRateLimited(ipLimited(1000))
    expect(l.state().breaker).toBe('closed')
    await tick(10_000)
    l.onRateLimited(ipLimited(1000))
    const openedAt = Date.now()
    expect(l.state().breaker).toBe('open')
    expect(events).toEqual([['open', expect.stringContaining('3 rate-limit rejections within 60000 ms')]])

    const quote = timed(l, { endpoint: 'modifyOrders', n: 19, priority: 'quote' })
    const risk = timed(l, { endpoint: 'cancelOrders', n: 19, priority: 'risk' })
    const read = timed(l, { endpoint: 'getPortfolio', priority: 'read' })
    await tick(10_000) // past the Retry-After pause (4 s at the third 429), inside the cool-down
    expect(risk.at()).toBeDefined()
    expect(read.at()).toBeDefined()
    expect(quote.at()).toBeUndefined()
    expect(l.state().queued.quote).toBe(1)

    await tick(openedAt + 30_000 - Date.now() + 20)
    expect(l.state().breaker).toBe('half-open')
    expect(quote.at()).toBeGreaterThanOrEqual(openedAt + 30_000)
    expect(events.map((e) => e[0])).toEqual(['open', 'half-open'])

    await tick(20_000)
    expect(l.state().breaker).toBe('closed')
    expect(events.map((e) => e[0])).toEqual(['open', 'half-open', 'closed'])
  })

  it('re-opens on a 429 while half-open, and stays half-open while nothing has succeeded', async () => {
    const events: BreakerState[] = []
    const l = limiter({
      breakerThreshold: 1,
      breakerCoolDownMs: 5_000,
      breakerSuccessPeriodMs: 5_000,
    })
    l.signals.breaker.subscribe(({ state }) => events.push(state))
    l.onRateLimited(ipLimited(100))
    await tick(5_100)
    expect(events).toEqual(['open', 'half-open'])
    l.onRateLimited(ipLimited(100))
    expect(events).toEqual(['open', 'half-open', 'open'])
    await tick(5_100)
    expect(l.state().breaker).toBe('half-open')
    await tick(20_000) // no traffic: no proof the venue accepts us again
    expect(l.state().breaker).toBe('half-open')
    await Promise.all([l.schedule({ endpoint: 'getTime', priority: 'read' }, async () => 1), tick()])
    await tick(5_000)
    expect(events).toEqual(['open', 'half-open', 'open', 'half-open', 'closed'])
  })

  it('holds quotes that were already queued for weight when the breaker opened, without holding budget', async () => {
    const l = limiter({
      requestBudget: 20,
      headroom: 1,
      riskReserve: 0,
      windowMs: 1_000,
      breakerThreshold: 1,
      breakerCoolDownMs: 5_000,
    })
    const fillers = [0, 1].map(() => timed(l, { endpoint: 'getWithdrawals', priority: 'read' }))
    const quote = timed(l, { endpoint: 'getIndex', priority: 'quote' }) // queued: the budget is spent
    await tick()
    expect(fillers.every((f) => f.at() !== undefined)).toBe(true)
    expect(quote.at()).toBeUndefined()
    l.onRateLimited(ipLimited(100))
    expect(l.state().breaker).toBe('open')
    await tick(3_000) // the window frees the budget and Bottleneck admits the quote, but the breaker is open
    expect(quote.at()).toBeUndefined()
    expect(l.state().request.used).toBe(0) // handed back unsent, so reads are not starved meanwhile
    const read = timed(l, { endpoint: 'getWithdrawals', priority: 'read' })
    await tick()
    expect(read.at()).toBeDefined()
    await tick(2_100)
    expect(l.state().breaker).toBe('half-open')
    expect(quote.at()).toBeGreaterThanOrEqual(START + 5_000)
  })
})
