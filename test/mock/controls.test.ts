import { describe, expect, it } from 'vitest'
import { InputValidationError } from '../../src/errors.ts'
import { type MockControlTarget, withControls } from '../../src/mock/controls.ts'
import type { MockHandler, MockRequest } from '../../src/mock/mockHttp.ts'
import { MAX_CLOCK_JUMP_MS, VirtualClock } from '../../src/mock/virtualClock.ts'

function req(method: string, path: string, body?: unknown): MockRequest {
  return { method, path, query: new URLSearchParams(), headers: {}, body, clientId: '127.0.0.1' }
}

const inner: MockHandler = (r) => ({ status: 200, body: { inner: r.path } })

function fakeTarget(): MockControlTarget & { log: string[]; clock: VirtualClock } {
  const clock = new VirtualClock({ mode: 'stepped', startMs: 1_000 })
  const log: string[] = []
  let scenario = 'calm'
  let faults: unknown = 'none'
  return {
    clock,
    log,
    advanceClock: (ms) => clock.advance(ms),
    setClock: (t) => clock.set(t),
    setScenario: (name) => {
      if (name !== 'calm' && name !== 'trending') throw new InputValidationError(`unknown scenario '${name}'`)
      scenario = name
    },
    setFaults: (config) => {
      log.push(JSON.stringify(config))
      faults = config
    },
    state: () => ({ now: clock.now(), scenario, faults }),
  }
}

describe('mock controls', () => {
  it('are off by default: every /__mock route is a 404, other routes pass through', async () => {
    const target = fakeTarget()
    const h = withControls(inner, { enabled: false, target })
    expect(await h(req('GET', '/__mock/state'))).toEqual({
      status: 404,
      body: { status: 'err', error: 'not_found' },
    })
    expect((await h(req('POST', '/__mock/clock/advance', { ms: 5 }))).status).toBe(404)
    expect(target.clock.now()).toBe(1_000)
    expect((await h(req('GET', '/v1/info/time'))).body).toEqual({ inner: '/v1/info/time' })
    // Only the exact prefix is reserved.
    expect((await h(req('GET', '/__mockery'))).body).toEqual({ inner: '/__mockery' })
  })

  it('move the clock, switch scenario and faults, and report state when enabled', async () => {
    const target = fakeTarget()
    const h = withControls(inner, { enabled: true, target })
    expect(await h(req('POST', '/__mock/clock/advance', { ms: 500 }))).toMatchObject({
      status: 200,
      body: { now: 1_500 },
    })
    expect((await h(req('POST', '/__mock/clock/set', { time: 9_000 }))).body).toMatchObject({ now: 9_000 })
    expect((await h(req('POST', '/__mock/scenario', { name: 'trending' }))).body).toMatchObject({
      scenario: 'trending',
    })
    await h(req('POST', '/__mock/faults', { config: { rules: [{ error500: 0.5 }] } }))
    await h(req('POST', '/__mock/faults', { config: 'flaky' }))
    expect(target.log).toEqual(['{"rules":[{"error500":0.5}]}', '"flaky"'])
    expect((await h(req('GET', '/__mock/state'))).body).toEqual({
      now: 9_000,
      scenario: 'trending',
      faults: 'flaky',
    })
  })

  it('answer 400 with the reason for bad input, and 404 for unknown controls', async () => {
    const target = fakeTarget()
    const h = withControls(inner, { enabled: true, target })
    const back = await h(req('POST', '/__mock/clock/set', { time: 0 }))
    expect(back.status).toBe(400)
    expect(back.body).toMatchObject({ status: 'err', error: expect.stringMatching(/backwards/) })
    expect((await h(req('POST', '/__mock/clock/advance', { ms: -1 }))).status).toBe(400)
    expect((await h(req('POST', '/__mock/clock/advance', {}))).status).toBe(400)
    expect((await h(req('POST', '/__mock/scenario', { name: 'nope' }))).body).toMatchObject({
      error: "unknown scenario 'nope'",
    })
    expect((await h(req('GET', '/__mock/clock/advance'))).status).toBe(404)
    expect((await h(req('POST', '/__mock/reboot'))).status).toBe(404)
  })

  it('reject absurd clock moves (1e308) with a clear 400 and leave the clock where it was', async () => {
    const target = fakeTarget()
    const h = withControls(inner, { enabled: true, target })
    for (const [path, body] of [
      ['/__mock/clock/advance', { ms: 1e308 }],
      ['/__mock/clock/advance', { ms: MAX_CLOCK_JUMP_MS + 1 }],
      ['/__mock/clock/set', { time: 1e308 }],
      ['/__mock/clock/set', { time: 1_000 + MAX_CLOCK_JUMP_MS + 1 }],
    ] as const) {
      const res = await h(req('POST', path, body))
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ status: 'err', error: expect.stringMatching(/at most .*366 days/) })
    }
    expect(target.clock.now()).toBe(1_000)
    expect((await h(req('POST', '/__mock/clock/advance', { ms: MAX_CLOCK_JUMP_MS }))).status).toBe(200)
    expect(target.clock.now()).toBe(1_000 + MAX_CLOCK_JUMP_MS)
  })
})
