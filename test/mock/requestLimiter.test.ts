import { describe, expect, it } from 'vitest'
import type { MockHandler, MockRequest, MockResponse } from '../../src/mock/mockHttp.ts'
import {
  createRequestLimiter,
  MAX_TRACKED_CLIENTS,
  requestWeight,
  withRequestLimit,
} from '../../src/mock/requestLimiter.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'

function req(method: string, pathAndQuery: string, body?: unknown, clientId = '127.0.0.1'): MockRequest {
  const url = new URL(pathAndQuery, 'http://127.0.0.1')
  return { method, path: url.pathname, query: url.searchParams, headers: {}, body, clientId }
}

const ok: MockHandler = () => ({ status: 200, body: { status: 'ok' } })

function modify(n: number): unknown {
  return {
    op: { type: 'modifyOrders', args: Array.from({ length: n }, (_, i) => ({ oid: i, p: '1', qty: '1' })) },
    sig: '0x',
    salt: 1,
    ts: 1,
  }
}

async function call(h: MockHandler, r: MockRequest): Promise<MockResponse> {
  return await h(r)
}

describe('requestWeight', () => {
  it('reads the shared weight table, with batch size and instrument filter', () => {
    expect(requestWeight(req('GET', '/v1/info/time'))).toBe(1)
    expect(requestWeight(req('GET', '/v1/account/withdrawals'))).toBe(10)
    expect(requestWeight(req('GET', '/v1/account/open-orders'))).toBe(20)
    expect(requestWeight(req('GET', '/v1/account/open-orders?instrument_id=3'))).toBe(1)
    expect(requestWeight(req('PATCH', '/v1/trade/orders', modify(19)))).toBe(1)
    expect(requestWeight(req('PATCH', '/v1/trade/orders', modify(40)))).toBe(3)
    expect(requestWeight(req('GET', '/v1/no/such/route'))).toBe(1)
  })
})

describe('withRequestLimit', () => {
  it('answers 429 ip_rate_limited with Retry-After past 1,000 weight, and lets requests through after waiting', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const h = withRequestLimit(ok, { clock })
    // 100 withdrawal reads of weight 10 use the whole minute's budget.
    for (let i = 0; i < 100; i++)
      expect((await call(h, req('GET', '/v1/account/withdrawals'))).status).toBe(200)
    const rejected = await call(h, req('GET', '/v1/account/withdrawals'))
    expect(rejected.status).toBe(429)
    expect(rejected.body).toEqual({ status: 'err', error: 'ip_rate_limited' })
    // 10 tokens refill in 600 ms at 1,000/min: the venue rounds up to whole seconds.
    expect(rejected.headers?.['retry-after']).toBe('1')

    clock.advance(Number(rejected.headers?.['retry-after']) * 1_000)
    expect((await call(h, req('GET', '/v1/account/withdrawals'))).status).toBe(200)
  })

  it('does not charge rejected requests', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const limiter = createRequestLimiter({ clock, capacityPerMinute: 30 })
    const h = withRequestLimit(ok, limiter)
    expect((await call(h, req('GET', '/v1/account/open-orders'))).status).toBe(200) // 20
    expect(limiter.remaining('127.0.0.1')).toBe(10)
    for (let i = 0; i < 5; i++)
      expect((await call(h, req('GET', '/v1/account/open-orders'))).status).toBe(429)
    expect(limiter.remaining('127.0.0.1')).toBe(10)
    // The leftover 10 still admit a withdrawal read.
    expect((await call(h, req('GET', '/v1/account/withdrawals'))).status).toBe(200)
  })

  it('gives a Retry-After long enough to refill a heavy request', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const h = withRequestLimit(ok, { clock, capacityPerMinute: 60 })
    expect((await call(h, req('GET', '/v1/account/open-orders'))).status).toBe(200)
    expect((await call(h, req('GET', '/v1/account/open-orders'))).status).toBe(200)
    expect((await call(h, req('GET', '/v1/account/open-orders'))).status).toBe(200)
    const r = await call(h, req('GET', '/v1/account/open-orders'))
    // 20 tokens at 1 token/s.
    expect(r.headers?.['retry-after']).toBe('20')
    clock.advance(19_000)
    expect((await call(h, req('GET', '/v1/account/open-orders'))).status).toBe(429)
    clock.advance(1_000)
    expect((await call(h, req('GET', '/v1/account/open-orders'))).status).toBe(200)
  })

  it('keeps one bucket per client', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const h = withRequestLimit(ok, { clock, capacityPerMinute: 10 })
    expect((await call(h, req('GET', '/v1/account/withdrawals', undefined, 'a'))).status).toBe(200)
    expect((await call(h, req('GET', '/v1/account/withdrawals', undefined, 'a'))).status).toBe(429)
    expect((await call(h, req('GET', '/v1/account/withdrawals', undefined, 'b'))).status).toBe(200)
  })

  it('answers modifyOrders with a one-item error array, and weighs batches by size', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const h = withRequestLimit(ok, { clock, capacityPerMinute: 5 })
    expect((await call(h, req('PATCH', '/v1/trade/orders', modify(80)))).status).toBe(200) // weight 5
    const r = await call(h, req('PATCH', '/v1/trade/orders', modify(1)))
    expect(r.status).toBe(429)
    expect(r.body).toEqual([{ status: 'err', error: 'ip_rate_limited' }])
    expect(r.headers?.['retry-after']).toBe('12')
    // createOrders keeps the plain object shape.
    const c = await call(h, req('POST', '/v1/trade/orders', { op: { type: 'createOrders', args: [] } }))
    expect(c.body).toEqual({ status: 'err', error: 'ip_rate_limited' })
  })

  it('does not limit the catalogue unless given its own capacity, which is separate from perps', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const unlimited = withRequestLimit(ok, { clock, capacityPerMinute: 1 })
    for (let i = 0; i < 50; i++)
      expect((await call(unlimited, req('GET', '/events/keyset'))).status).toBe(200)

    const limited = withRequestLimit(ok, { clock, capacityPerMinute: 1, catalogueCapacityPerMinute: 2 })
    expect((await call(limited, req('GET', '/v1/info/time'))).status).toBe(200)
    expect((await call(limited, req('GET', '/events/keyset'))).status).toBe(200)
    expect((await call(limited, req('GET', '/events/slug/x'))).status).toBe(200)
    const r = await call(limited, req('GET', '/events/keyset'))
    expect(r.status).toBe(429)
    expect(r.body).toEqual({ type: 'rate limited', error: 'too many requests' })
    expect(r.headers?.['retry-after']).toBe('30')
  })

  it('uses a custom weight function when given', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const h = withRequestLimit(ok, { clock, capacityPerMinute: 100, weightOf: () => 100 })
    expect((await call(h, req('GET', '/v1/info/time'))).status).toBe(200)
    expect((await call(h, req('GET', '/v1/info/time'))).status).toBe(429)
  })
})

describe('client tracking', () => {
  it('stays bounded however many client ids are seen (full buckets are forgotten)', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const limiter = createRequestLimiter({ clock, capacityPerMinute: 100 })
    const h = withRequestLimit(ok, limiter)
    // One client still refilling is kept; the rest are full again a minute later.
    for (let i = 0; i < 1_000; i++) await call(h, req('GET', '/v1/info/time', undefined, 'busy'))
    for (let i = 0; i < MAX_TRACKED_CLIENTS; i++)
      await call(h, req('GET', '/v1/info/time', undefined, `c${i}`))
    // Every bucket is still refilling (virtual time has not moved): none can be forgotten yet.
    expect(limiter.trackedClients).toBe(MAX_TRACKED_CLIENTS + 1)
    clock.advance(60_000)
    expect(limiter.remaining('busy')).toBe(100)
    await call(h, req('GET', '/v1/info/time', undefined, 'busy'))
    await call(h, req('GET', '/v1/info/time', undefined, 'new-client'))
    expect(limiter.trackedClients).toBe(2)
    expect(limiter.remaining('busy')).toBe(99)
  })
})
