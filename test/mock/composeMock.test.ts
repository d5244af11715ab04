import { request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { InputValidationError } from '../../src/errors.ts'
import type { MockRequest } from '../../src/mock/mockHttp.ts'
import {
  assertScenario,
  composeMock,
  type MockInterfaceBuilder,
  type RunningMockOf,
  serveMock,
} from '../../src/mock/server.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'

const T0 = 1_767_225_600_000
const SCENARIOS = ['calm', 'trending', 'flaky']

interface FakeExchange {
  scenario: string
  calls: number
}

/** Stand-in interfaces: the perps side reports its clock, the catalogue side an empty page. */
const fakeBuilder: MockInterfaceBuilder<FakeExchange, { kind: 'catalogue' }> = (ctx) => {
  const exchange: FakeExchange = { scenario: ctx.scenario, calls: 0 }
  return {
    exchange,
    catalogue: { kind: 'catalogue' },
    perpsHandler: (r) => {
      exchange.calls++
      return { status: 200, body: { time: ctx.clock.now(), path: r.path } }
    },
    catalogueHandler: () => ({ status: 200, body: { events: [] } }),
    setScenario: (name) => {
      assertScenario(name, SCENARIOS)
      exchange.scenario = name
    },
  }
}

function req(method: string, path: string, body?: unknown): MockRequest {
  return { method, path, query: new URLSearchParams(), headers: {}, body, clientId: 'c1' }
}

const stepped = (): VirtualClock => new VirtualClock({ mode: 'stepped', startMs: T0 })

describe('composeMock', () => {
  it('routes /events to the catalogue, /v1 to perps, anything else to 404', async () => {
    const mock = composeMock({ clock: stepped() }, fakeBuilder)
    expect((await mock.handler(req('GET', '/events/keyset'))).body).toEqual({ events: [] })
    expect((await mock.handler(req('GET', '/v1/info/time'))).body).toEqual({
      time: T0,
      path: '/v1/info/time',
    })
    expect(await mock.handler(req('GET', '/health'))).toEqual({
      status: 404,
      body: { status: 'err', error: 'not_found' },
    })
    mock.dispose()
  })

  it('charges rate limits before faults, so an injected 500 still costs its weight', async () => {
    const mock = composeMock(
      { clock: stepped(), faults: { rules: [{ error500: 1 }] }, rateLimits: { requestWeightPerMinute: 20 } },
      fakeBuilder,
    )
    expect((await mock.handler(req('GET', '/v1/account/withdrawals'))).status).toBe(500)
    expect((await mock.handler(req('GET', '/v1/account/withdrawals'))).status).toBe(500)
    expect((await mock.handler(req('GET', '/v1/account/withdrawals'))).status).toBe(429)
    expect(mock.exchange.calls).toBe(0)
    mock.dispose()
  })

  it('can turn the limiter off', async () => {
    const mock = composeMock({ clock: stepped(), rateLimits: false }, fakeBuilder)
    for (let i = 0; i < 150; i++)
      expect((await mock.handler(req('GET', '/v1/account/withdrawals'))).status).toBe(200)
    expect(mock.state().rateLimits).toBe(false)
  })

  it('turns on flaky faults with the flaky scenario unless faults were given', () => {
    const implied = composeMock({ clock: stepped(), scenario: 'flaky' }, fakeBuilder)
    expect(implied.state().faults.preset).toBe('flaky')
    implied.setScenario('calm')
    expect(implied.state().faults.preset).toBe('none')
    implied.setScenario('flaky')
    expect(implied.state().faults.preset).toBe('flaky')

    const explicit = composeMock({ clock: stepped(), scenario: 'flaky', faults: 'none' }, fakeBuilder)
    expect(explicit.state().faults.preset).toBe('none')
    explicit.setFaults('slow')
    explicit.setScenario('calm')
    expect(explicit.state().faults.preset).toBe('slow')
  })

  it('skews the exchange clock by the fault clock offset', async () => {
    const mock = composeMock({ clock: stepped(), faults: 'skewed' }, fakeBuilder)
    expect((await mock.handler(req('GET', '/v1/info/time'))).body).toMatchObject({ time: T0 + 30_000 })
    mock.setFaults({ rules: [], clockOffsetMs: -2_000 })
    expect((await mock.handler(req('GET', '/v1/info/time'))).body).toMatchObject({ time: T0 - 2_000 })
    expect(mock.state().clock).toMatchObject({ now: T0, serverNow: T0 - 2_000, serverOffsetMs: -2_000 })
  })

  it('rejects an unknown fault preset, and passes scenario errors through', () => {
    expect(() => composeMock({ clock: stepped(), faults: 'chaos' as 'none' }, fakeBuilder)).toThrow(
      InputValidationError,
    )
    const mock = composeMock({ clock: stepped() }, fakeBuilder)
    expect(() => mock.setScenario('nope')).toThrow(/unknown scenario 'nope'/)
    expect(mock.scenario).toBe('calm')
  })

  it('builds its own clock from the mode options', () => {
    const mock = composeMock({ clock: 'accelerated', speed: 60, startTime: T0 }, fakeBuilder)
    expect(mock.clock.info()).toMatchObject({ mode: 'accelerated', rate: 60 })
    expect(mock.clock.now()).toBeGreaterThanOrEqual(T0)
    mock.dispose()
  })
})

describe('serveMock over loopback', () => {
  let running: RunningMockOf<FakeExchange, { kind: 'catalogue' }> | undefined
  afterEach(async () => {
    await running?.close()
    running = undefined
  })

  it('serves the composed handler and the controls on 127.0.0.1', async () => {
    running = await serveMock(composeMock({ clock: stepped(), controls: true }, fakeBuilder))
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const time = await request(`${running.url}/v1/info/time`)
    expect(await time.body.json()).toMatchObject({ time: T0 })

    const advanced = await request(`${running.url}/__mock/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 5_000 }),
    })
    expect(advanced.statusCode).toBe(200)
    expect(await advanced.body.json()).toMatchObject({ clock: { now: T0 + 5_000, mode: 'stepped' } })

    const scenario = await request(`${running.url}/__mock/scenario`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'trending' }),
    })
    expect(await scenario.body.json()).toMatchObject({ scenario: 'trending' })
    expect(running.scenario).toBe('trending')
    expect(running.exchange.scenario).toBe('trending')

    const faults = await request(`${running.url}/__mock/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ config: { rules: [{ match: { endpoint: 'getTime' }, error503: 1 }] } }),
    })
    expect(await faults.body.json()).toMatchObject({ faults: { preset: null, config: { rules: [{}] } } })
    const unavailable = await request(`${running.url}/v1/info/time`)
    expect(unavailable.statusCode).toBe(503)
    await unavailable.body.dump()
  })

  it('answers 404 on /__mock when controls are off', async () => {
    running = await serveMock(composeMock({ clock: stepped() }, fakeBuilder))
    const r = await request(`${running.url}/__mock/state`)
    expect(r.statusCode).toBe(404)
    expect(await r.body.json()).toEqual({ status: 'err', error: 'not_found' })
  })

  it('releases held responses on close, so close does not wait for a timeout hold', async () => {
    running = await serveMock(
      composeMock(
        { clock: stepped(), faults: { rules: [{ timeout: { probability: 1, holdMs: 300_000 } }] } },
        fakeBuilder,
      ),
    )
    const pending = request(`${running.url}/v1/info/time`).then(
      (r) => r.statusCode,
      () => 'failed',
    )
    // Wait until the hold is in place, by polling the mock's own state (bounded).
    for (let i = 0; i < 200 && running.faults.pending === 0; i++) await new Promise((r) => setImmediate(r))
    expect(running.faults.pending).toBe(1)
    await running.close()
    expect(await pending).toBe(200)
    expect(running.faults.pending).toBe(0)
  })
})
