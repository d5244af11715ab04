import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MockRequest } from '../../src/mock/mockHttp.ts'
import { createMockServerHandler, type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'

const T0 = 1_767_225_600_000
const EVENTS = 40

function req(method: string, pathAndQuery: string, body?: unknown): MockRequest {
  const url = new URL(pathAndQuery, 'http://127.0.0.1')
  return { method, path: url.pathname, query: url.searchParams, headers: {}, body, clientId: 'test' }
}

async function getJson(
  url: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  const r = await request(url)
  return { status: r.statusCode, headers: r.headers, body: await r.body.json() }
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: r.statusCode, body: await r.body.json() }
}

describe('startMockServer over loopback', () => {
  let mock: RunningMock
  beforeAll(async () => {
    mock = await startMockServer({
      clock: 'stepped',
      startTime: T0,
      controls: true,
      catalogue: { eventCount: EVENTS },
      rateLimits: { requestWeightPerMinute: 50 },
    })
  })
  afterAll(async () => {
    await mock.close()
  })

  it('serves the catalogue and the perps interface from one 127.0.0.1 port', async () => {
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}`)
    const page = await getJson(`${mock.url}/events/keyset?limit=5`)
    expect(page.status).toBe(200)
    const body = page.body as { events: { id: string }[]; next_cursor?: string }
    expect(body.events).toHaveLength(5)
    expect(typeof body.next_cursor).toBe('string')

    const time = await getJson(`${mock.url}/v1/info/time`)
    expect(time).toMatchObject({ status: 200, body: { time: T0 } })
    expect(mock.exchange.scenario).toBe('calm')
    expect(mock.catalogue.size).toBe(EVENTS)
  })

  it('moves the exchange clock and scenario through the controls', async () => {
    const before = mock.clock.now()
    const advanced = await postJson(`${mock.url}/__mock/clock/advance`, { ms: 60_000 })
    expect(advanced).toMatchObject({ status: 200, body: { clock: { now: before + 60_000 } } })
    expect((await getJson(`${mock.url}/v1/info/time`)).body).toEqual({ time: before + 60_000 })

    expect(await postJson(`${mock.url}/__mock/scenario`, { name: 'trending' })).toMatchObject({
      status: 200,
      body: { scenario: 'trending' },
    })
    expect(mock.exchange.scenario).toBe('trending')
    const bad = await postJson(`${mock.url}/__mock/scenario`, { name: 'meltdown' })
    expect(bad).toMatchObject({ status: 400, body: { status: 'err', error: 'unknown scenario "meltdown"' } })
    const back = await postJson(`${mock.url}/__mock/clock/set`, { time: before })
    expect(back.status).toBe(400)
  })

  it('skews /v1/info/time by the fault clock offset', async () => {
    const now = mock.clock.now()
    await postJson(`${mock.url}/__mock/faults`, { config: { rules: [], clockOffsetMs: -4_000 } })
    expect((await getJson(`${mock.url}/v1/info/time`)).body).toEqual({ time: now - 4_000 })
    await postJson(`${mock.url}/__mock/faults`, { config: 'none' })
    expect((await getJson(`${mock.url}/v1/info/time`)).body).toEqual({ time: now })
  })

  it('limits request weight per client; waiting Retry-After on the virtual clock lets requests through', async () => {
    // Refill the bucket fully, then spend it: withdrawals weigh 10 (401 without credentials, still charged).
    await postJson(`${mock.url}/__mock/clock/advance`, { ms: 60_000 })
    for (let i = 0; i < 5; i++) expect((await getJson(`${mock.url}/v1/account/withdrawals`)).status).toBe(401)
    const limited = await getJson(`${mock.url}/v1/account/withdrawals`)
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ status: 'err', error: 'ip_rate_limited' })
    const retryAfter = Number(limited.headers['retry-after'])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    // The controls are not limited.
    await postJson(`${mock.url}/__mock/clock/advance`, { ms: retryAfter * 1_000 })
    expect((await getJson(`${mock.url}/v1/account/withdrawals`)).status).toBe(401)
    // The catalogue has no limit by default.
    for (let i = 0; i < 3; i++) expect((await getJson(`${mock.url}/events/keyset?limit=1`)).status).toBe(200)
  })

  it('answers 404 with the perps body for routes outside both interfaces', async () => {
    await postJson(`${mock.url}/__mock/clock/advance`, { ms: 60_000 })
    expect(await getJson(`${mock.url}/nothing/here`)).toMatchObject({
      status: 404,
      body: { status: 'err', error: 'not_found' },
    })
  })
})

describe('createMockServerHandler in process', () => {
  it('shares an injected stepped clock, and reports state', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: T0 })
    const mock = createMockServerHandler({ clock, seed: 5, catalogue: { eventCount: EVENTS } })
    expect((await mock.handler(req('GET', '/v1/info/time'))).body).toEqual({ time: T0 })
    clock.advance(1_000)
    expect((await mock.handler(req('GET', '/v1/info/time'))).body).toEqual({ time: T0 + 1_000 })
    expect(mock.state()).toMatchObject({
      seed: 5,
      scenario: 'calm',
      clock: { mode: 'stepped', now: T0 + 1_000 },
      faults: { preset: 'none' },
      rateLimits: { requestWeightPerMinute: 1_000 },
      controls: false,
    })
    expect((await mock.handler(req('GET', '/__mock/state'))).status).toBe(404)
    mock.dispose()
    // The clock was passed in, so it survives dispose.
    clock.advance(1)
  })

  it('turns on flaky faults under the flaky scenario', () => {
    const mock = createMockServerHandler({
      clock: 'stepped',
      scenario: 'flaky',
      catalogue: { eventCount: EVENTS },
    })
    expect(mock.state().faults.preset).toBe('flaky')
    expect(mock.exchange.scenario).toBe('flaky')
    mock.dispose()
  })

  it('answers 503 on /events/keyset when keyset pagination is disabled', async () => {
    const mock = createMockServerHandler({
      clock: 'stepped',
      catalogue: { eventCount: EVENTS, keysetDisabled: true },
    })
    expect(await mock.handler(req('GET', '/events/keyset'))).toMatchObject({
      status: 503,
      body: { type: 'service unavailable', error: 'keyset pagination is not configured' },
    })
    mock.dispose()
  })

  it('rejects an unknown scenario before building anything', () => {
    expect(() => createMockServerHandler({ scenario: 'meltdown' })).toThrow(/unknown scenario 'meltdown'/)
  })

  it('gives the same catalogue and market for the same seed', async () => {
    const a = createMockServerHandler({
      clock: new VirtualClock({ mode: 'stepped', startMs: T0 }),
      seed: 9,
      catalogue: { eventCount: EVENTS },
    })
    const b = createMockServerHandler({
      clock: new VirtualClock({ mode: 'stepped', startMs: T0 }),
      seed: 9,
      catalogue: { eventCount: EVENTS },
    })
    for (const path of ['/events/keyset?limit=3', '/v1/info/statistics', '/v1/info/index?asset=BTC']) {
      expect((await a.handler(req('GET', path))).body).toEqual((await b.handler(req('GET', path))).body)
    }
  })
})
