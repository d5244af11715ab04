import { describe, expect, it } from 'vitest'
import { InputValidationError } from '../../src/errors.ts'
import {
  createFaultInjector,
  FAULT_HEADER,
  FAULT_PRESETS,
  type FaultConfig,
  MAX_FAULT_RULES,
  matchesRule,
  resolveFaultConfig,
  routeNameFor,
  withFaults,
} from '../../src/mock/faults.ts'
import type { MockHandler, MockRequest, MockResponse } from '../../src/mock/mockHttp.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'
import { type Random, seededRandom } from '../../src/random.ts'

function req(method: string, path: string, body?: unknown): MockRequest {
  return { method, path, query: new URLSearchParams(), headers: {}, body, clientId: '127.0.0.1' }
}

/** A handler that counts its calls and answers 200. */
function countingHandler(): { handler: MockHandler; calls: () => number } {
  let n = 0
  return {
    handler: (r) => {
      n++
      return { status: 200, body: { path: r.path, items: [1, 2, 3] } }
    },
    calls: () => n,
  }
}

/** A Random that replays scripted draws for `next()`. */
function scripted(values: number[]): Random {
  const base = seededRandom(1)
  let i = 0
  return {
    ...base,
    next: () => {
      const v = values[i++]
      if (v === undefined) throw new Error('script exhausted')
      return v
    },
  }
}

function deps(random: Random = seededRandom(7)): { clock: VirtualClock; random: Random } {
  return { clock: new VirtualClock({ mode: 'stepped', startMs: 0 }), random }
}

/** Tracks whether a handler's answer has arrived yet. */
function track(p: MockResponse | Promise<MockResponse>): {
  done: () => boolean
  value: Promise<MockResponse>
} {
  let done = false
  const value = Promise.resolve(p).then((r) => {
    done = true
    return r
  })
  return { done: () => done, value }
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('fault injection', () => {
  it('is reproducible from the seed', async () => {
    const config: FaultConfig = { rules: [{ error500: 0.2, error503: 0.1, malformedJson: 0.1 }] }
    const run = async (seed: number): Promise<string[]> => {
      const h = withFaults(countingHandler().handler, config, deps(seededRandom(seed)))
      const out: string[] = []
      for (let i = 0; i < 200; i++) {
        const r = await h(req('GET', '/v1/info/time'))
        out.push(`${r.status}:${r.headers?.[FAULT_HEADER] ?? ''}`)
      }
      return out
    }
    const a = await run(42)
    expect(await run(42)).toEqual(a)
    expect(await run(43)).not.toEqual(a)
    expect(a.filter((s) => s.startsWith('500')).length).toBeGreaterThan(10)
  })

  it('injects 500s in each interface body shape without calling the handler', async () => {
    const { handler, calls } = countingHandler()
    const h = withFaults(handler, { rules: [{ error500: 1 }] }, deps())
    const perps = await h(req('GET', '/v1/info/time'))
    expect(perps).toMatchObject({ status: 500, body: { status: 'err', error: 'internal_error' } })
    const modify = await h(req('PATCH', '/v1/trade/orders'))
    expect(modify.body).toEqual([{ status: 'err', error: 'internal_error' }])
    const catalogue = await h(req('GET', '/events/keyset'))
    expect(catalogue.status).toBe(500)
    expect(catalogue.body).toMatchObject({ type: 'internal error', error: expect.any(String) })
    expect(calls()).toBe(0)
  })

  it('injects 503s', async () => {
    const h = withFaults(countingHandler().handler, { rules: [{ error503: 1 }] }, deps())
    expect(await h(req('GET', '/v1/info/fees'))).toMatchObject({
      status: 503,
      body: { status: 'err', error: 'service_unavailable' },
    })
    expect(await h(req('GET', '/events/keyset'))).toMatchObject({
      status: 503,
      body: { type: 'service unavailable' },
    })
  })

  it('injects a burst of N consecutive 429s with Retry-After', async () => {
    // One draw per request (the burst roll): start a burst, then three quiet rolls.
    const injector = createFaultInjector(
      { rules: [{ rateLimitBurst: { probability: 0.5, length: 3, retryAfterSeconds: 2 } }] },
      deps(scripted([0.1, 0.9, 0.9, 0.9])),
    )
    const h = injector.wrap(countingHandler().handler)
    const statuses: number[] = []
    let first: MockResponse | undefined
    for (let i = 0; i < 4; i++) {
      const r = await h(req('GET', '/v1/account/portfolio'))
      first ??= r
      statuses.push(r.status)
    }
    expect(statuses).toEqual([429, 429, 429, 200])
    expect(first?.body).toEqual({ status: 'err', error: 'ip_rate_limited' })
    expect(first?.headers?.['retry-after']).toBe('2')
    expect(injector.counts.rateLimited).toBe(3)
  })

  it('adds latency on the delay clock: fixed plus seeded jitter', async () => {
    const d = deps(scripted([0.5]))
    const h = withFaults(
      countingHandler().handler,
      { rules: [{ latency: { fixedMs: 100, jitterMs: 50 } }] },
      d,
    )
    const r = track(h(req('GET', '/v1/info/time')))
    d.clock.advance(124)
    await flush()
    expect(r.done()).toBe(false)
    d.clock.advance(1)
    expect((await r.value).status).toBe(200)
  })

  it('holds a timed-out response after running the handler, until holdMs or releaseAll', async () => {
    const { handler, calls } = countingHandler()
    const d = deps()
    const injector = createFaultInjector({ rules: [{ timeout: { probability: 1, holdMs: 30_000 } }] }, d)
    const h = injector.wrap(handler)
    const first = track(h(req('PATCH', '/v1/trade/orders')))
    await flush()
    expect(calls()).toBe(1)
    d.clock.advance(29_999)
    await flush()
    expect(first.done()).toBe(false)
    d.clock.advance(1)
    expect((await first.value).headers?.[FAULT_HEADER]).toBe('timeout')

    const second = track(h(req('GET', '/v1/info/time')))
    await flush()
    expect(injector.pending).toBe(1)
    injector.releaseAll()
    expect((await second.value).status).toBe(200)
    expect(injector.pending).toBe(0)
    expect(d.clock.info().pendingTimers).toBe(0)
  })

  it('sends a truncated body that is not valid JSON, keeping the status', async () => {
    const h = withFaults(countingHandler().handler, { rules: [{ malformedJson: 1 }] }, deps())
    const r = await h(req('GET', '/v1/info/statistics'))
    expect(r.status).toBe(200)
    expect(r.raw).toBeDefined()
    expect(() => JSON.parse(r.raw ?? '')).toThrow()
    expect(JSON.stringify({ path: '/v1/info/statistics', items: [1, 2, 3] }).startsWith(r.raw ?? 'x')).toBe(
      true,
    )
  })

  it('applies rules only to matching routes', async () => {
    const { handler, calls } = countingHandler()
    const h = withFaults(handler, { rules: [{ match: { endpoint: 'modifyOrders' }, error500: 1 }] }, deps())
    expect((await h(req('PATCH', '/v1/trade/orders'))).status).toBe(500)
    expect((await h(req('POST', '/v1/trade/orders'))).status).toBe(200)
    expect((await h(req('GET', '/events/keyset'))).status).toBe(200)
    expect(calls()).toBe(2)
  })

  it('passes requests straight through with no rules', async () => {
    const h = withFaults(countingHandler().handler, 'none', deps())
    expect((await h(req('GET', '/v1/info/time'))).status).toBe(200)
  })
})

describe('fault matching', () => {
  it('names routes from the weight table and the catalogue', () => {
    expect(routeNameFor('PATCH', '/v1/trade/orders')).toBe('modifyOrders')
    expect(routeNameFor('GET', '/events/keyset')).toBe('listEventsKeyset')
    expect(routeNameFor('GET', '/events/slug/some-event')).toBe('getEventBySlug')
    expect(routeNameFor('GET', '/events/12/tags')).toBe('getEventTags')
    expect(routeNameFor('GET', '/nope')).toBeUndefined()
  })

  it('combines method, kind, api, path glob and endpoint', () => {
    const get = req('GET', '/v1/account/withdrawals')
    expect(matchesRule(undefined, get)).toBe(true)
    expect(matchesRule({ kind: 'read' }, get)).toBe(true)
    expect(matchesRule({ kind: 'write' }, get)).toBe(false)
    expect(matchesRule({ api: 'perps', path: '/v1/account/*' }, get)).toBe(true)
    expect(matchesRule({ api: 'catalogue' }, get)).toBe(false)
    expect(matchesRule({ path: '/v1/info/*' }, get)).toBe(false)
    expect(matchesRule({ method: 'get', endpoint: ['getWithdrawals', 'getFunding'] }, get)).toBe(true)
    expect(matchesRule({ method: 'POST' }, get)).toBe(false)
  })
})

describe('fault configs', () => {
  it('resolves presets and validates objects', () => {
    expect(resolveFaultConfig('none')).toEqual({ rules: [] })
    expect(resolveFaultConfig('flaky')).toEqual(FAULT_PRESETS.flaky)
    expect(resolveFaultConfig({ rules: [], clockOffsetMs: 5_000 }).clockOffsetMs).toBe(5_000)
    expect(() => resolveFaultConfig('chaos')).toThrow(/unknown fault preset 'chaos'/)
    expect(() => resolveFaultConfig({ rules: [{ error500: 2 }] })).toThrow(InputValidationError)
    expect(() => resolveFaultConfig({ rules: [{ bogus: true }] })).toThrow(InputValidationError)
  })

  it('bounds what a config can make the mock store (rules, names)', () => {
    const rules = Array.from({ length: MAX_FAULT_RULES }, () => ({ error500: 0.1 }))
    expect(resolveFaultConfig({ rules }).rules).toHaveLength(MAX_FAULT_RULES)
    expect(() => resolveFaultConfig({ rules: [...rules, { error500: 0.1 }] })).toThrow(/invalid fault config/)
    expect(() => resolveFaultConfig({ rules: [{ match: { path: `/${'a'.repeat(1_000)}` } }] })).toThrow(
      InputValidationError,
    )
    const endpoints = Array.from({ length: MAX_FAULT_RULES + 1 }, () => 'getTime')
    expect(() => resolveFaultConfig({ rules: [{ match: { endpoint: endpoints } }] })).toThrow(
      InputValidationError,
    )
  })

  it('flaky gives each fault kind at roughly its configured rate (seeded)', async () => {
    const d = deps(seededRandom(3))
    const injector = createFaultInjector(resolveFaultConfig('flaky'), d)
    const h = injector.wrap(countingHandler().handler)
    const n = 3_000
    for (let i = 0; i < n; i++) {
      const r = track(h(req('GET', '/v1/info/time')))
      // Release latency and timeout holds.
      await flush()
      d.clock.advance(20_000)
      await r.value
    }
    const c = injector.counts
    expect(c.error500 / n).toBeGreaterThan(0.03)
    expect(c.error500 / n).toBeLessThan(0.07)
    expect(c.error503 / n).toBeGreaterThan(0.01)
    expect(c.error503 / n).toBeLessThan(0.035)
    expect(c.rateLimited).toBeGreaterThan(0)
    expect(c.timeout).toBeGreaterThan(0)
    expect(c.malformedJson).toBeGreaterThan(0)
    expect(c.delayed).toBeGreaterThan(n * 0.5)
  })
})
