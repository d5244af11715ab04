/**
 * Issue 34, point 8: a slow Redis is an alert (every request of the fleet waits on it). The shared
 * budget times each admission's round trip on the injected clock; three slow ones in a row turn it
 * `slow`, no answer `down`, three fast ones `ok` again; the fleet part turns each into an alert.
 */
import { describe, expect, it } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import { systemClock } from '../../src/clock.ts'
import { createSharedBudget, type RedisHealth } from '../../src/fleet/sharedBudget.ts'

function fakeRedis() {
  let now = 0
  let delayMs = 1
  let fail = false
  const admit = async (): Promise<unknown> => {
    now += delayMs
    if (fail) throw new Error('Connection is closed.')
    return [1, 0, 1, 0, now * 1_000, 1, '1:1']
  }
  return {
    clock: { ...systemClock, now: () => now },
    client: { evalsha: admit, eval: admit },
    set: (o: { delayMs?: number; fail?: boolean }) => {
      delayMs = o.delayMs ?? delayMs
      fail = o.fail ?? fail
    },
  }
}

describe('a slow Redis is noticed', () => {
  it('three slow admissions in a row: slow; no answer: down; three fast: ok again', async () => {
    const r = fakeRedis()
    const budget = createSharedBudget({
      client: r.client,
      egressId: 'h',
      budget: 100,
      clock: r.clock,
      retryMs: 1,
    })
    const seen: RedisHealth[] = []
    budget.onHealth((h) => seen.push(h))
    await budget.acquire(1, 'read')
    r.set({ delayMs: 400 })
    await budget.acquire(1, 'read')
    await budget.acquire(1, 'read')
    expect(seen).toEqual([])
    await budget.acquire(1, 'read')
    expect(seen.map((h) => h.state)).toEqual(['slow'])
    expect(seen[0]?.ms).toBe(400)
    r.set({ fail: true, delayMs: 5 })
    const ctl = new AbortController()
    const waiting = budget.acquire(1, 'read', ctl.signal).catch(() => undefined)
    await new Promise((res) => setImmediate(res))
    expect(seen.map((h) => h.state)).toEqual(['slow', 'down'])
    ctl.abort()
    await waiting
    r.set({ fail: false, delayMs: 1 })
    await budget.acquire(1, 'read')
    expect(seen.map((h) => h.state)).toEqual(['slow', 'down', 'ok'])
    budget.stop()
  })

  it('the fleet part raises and resolves the alert', async () => {
    const { createFleetPart } = await import('../../src/fleet/fleetPart.ts')
    const r = fakeRedis()
    const budget = createSharedBudget({ client: r.client, egressId: 'h2', budget: 100, clock: r.clock })
    const lease = {
      account: 'a1',
      epoch: 7,
      ttlMs: 10_000,
      holderId: 'p',
      status: () => ({ state: 'held' as const, epoch: 7, token: '7:p' }),
      canWrite: () => true,
      msLeft: () => 5_000,
    }
    const part = createFleetPart({
      lease: lease as never,
      budget,
      egressId: 'h2',
      view: async () => ({}) as never,
    })
    const alerts: Alert[] = []
    part.watchHealth({ send: (a) => void alerts.push(a) }, r.clock)
    r.set({ delayMs: 300 })
    for (let i = 0; i < 3; i++) await budget.acquire(1, 'risk')
    r.set({ delayMs: 1 })
    for (let i = 0; i < 3; i++) await budget.acquire(1, 'risk')
    expect(alerts.map((a) => [a.key, a.severity, a.resolved === true])).toEqual([
      ['fleet-redis', 'warning', false],
      ['fleet-redis', 'warning', true],
    ])
    expect(alerts[0]?.title).toMatch(/slow/)
    budget.stop()
  })
})
