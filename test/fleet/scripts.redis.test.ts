/**
 * The fleet's Lua against a real redis-server, in-process (no child processes): admission and its
 * wait, the risk share, the shared 429 pause, NOSCRIPT reload, a new generation after data loss;
 * the lease's compare-and-set, epochs, and the re-assert after a flush; the gate adapter.
 */

import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../../src/clock.ts'
import { RateLimitError } from '../../src/errors.ts'
import { claimFirstFree, peekLeases } from '../../src/fleet/accountClaim.ts'
import { AccountLease } from '../../src/fleet/accountLease.ts'
import { ACQUIRE_LUA, leaseKeys, RELEASE_LUA, RENEW_LUA } from '../../src/fleet/leaseScripts.ts'
import { intAt, LuaScript, stringAt } from '../../src/fleet/redisScript.ts'
import { createSharedBudget } from '../../src/fleet/sharedBudget.ts'
import { withSharedBudget } from '../../src/fleet/sharedGate.ts'
import type { GatedRequest } from '../../src/perps/client/context.ts'
import { OPEN_GATE } from '../../src/perps/throttle/requestGate.ts'
import { runThrough } from '../helpers/admission.ts'
import { type RedisServer, redisSkipReason } from '../helpers/redis.ts'
import { startFleetRedis, stopFleetRedis } from './fleetRedis.ts'

const skip = redisSkipReason()

describe.skipIf(skip !== undefined)(`fleet scripts on redis-server ${skip ?? ''}`, () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    ;({ server, redis } = await startFleetRedis())
  })
  afterAll(() => stopFleetRedis({ server, redis }))

  it('admits up to the budget, then names the wait until the oldest weight leaves the window', async () => {
    const budget = createSharedBudget({
      client: redis,
      egressId: 'w1',
      graceMs: 50,
      budget: 10,
      windowMs: 1_000,
      riskReserve: 0,
    })
    await budget.acquire(6, 'read')
    await budget.acquire(4, 'read')
    expect(budget.state().windowWeight).toBe(10)
    const t0 = performance.now()
    await budget.acquire(5, 'read')
    const waited = performance.now() - t0
    // The 6 admitted first had to leave the window: about one window after it, never before.
    expect(waited).toBeGreaterThanOrEqual(900)
    expect(waited).toBeLessThan(1_500)
    expect(budget.state().refused).toBeGreaterThanOrEqual(1)
  })

  it('a send long after its admission re-stamps the entry: it counts from the send, not the admission', async () => {
    let now = 0
    const clock = { ...systemClock, now: () => now }
    const budget = createSharedBudget({
      client: redis,
      egressId: 'w-late',
      graceMs: 50,
      budget: 10,
      windowMs: 1_000,
      riskReserve: 0,
      clock,
    })
    await budget.acquire(1, 'read') // opens the generation
    await new Promise((r) => setTimeout(r, 80))
    const onTime = await budget.acquire(4, 'read')
    budget.sent(onTime) // sent at once: no re-stamp
    const late = await budget.acquire(6, 'read')
    // Starved for 600 ms of a 1 s window before the send.
    await new Promise((r) => setTimeout(r, 600))
    now += 600
    budget.sent(late)
    await new Promise((r) => setTimeout(r, 50))
    expect(budget.state().restamped).toBe(1)
    const scores = await redis.zrange('perpbot:ip:{w-late}:log', '0', '-1', 'WITHSCORES')
    const stampOf = (member: string): number => Number(scores[scores.indexOf(member) + 1])
    expect(stampOf(onTime.member)).toBe(onTime.atUs)
    expect(stampOf(late.member) - late.atUs).toBeGreaterThanOrEqual(590_000)
    // 450 ms on, the on-time entry (and the first) has left the window; the late one still counts
    // (the venue saw it arrive 450 ms ago), so 6 of 10 are taken and 5 more must wait.
    await new Promise((r) => setTimeout(r, 450))
    const t0 = performance.now()
    await budget.acquire(5, 'read')
    expect(performance.now() - t0).toBeGreaterThanOrEqual(400)
    budget.stop()
  })

  it('reads and quotes stop short of the risk reserve; risk work short of the halt reserve; a halt may use it all', async () => {
    const budget = createSharedBudget({
      client: redis,
      egressId: 'w2',
      graceMs: 50,
      budget: 10,
      windowMs: 60_000,
      riskReserve: 0.2,
    })
    // Half the risk reserve is the halt's: quotes and reads 8, other risk work 9, a halt all 10.
    expect(budget.state().limits).toEqual({ halt: 10, risk: 9, read: 8, quote: 8 })
    await budget.acquire(8, 'quote')
    const ctl = new AbortController()
    const quote = budget.acquire(1, 'quote', ctl.signal)
    await budget.acquire(1, 'risk')
    const risk = budget.acquire(1, 'risk', ctl.signal)
    await budget.acquire(1, 'halt')
    expect(budget.state().windowWeight).toBe(10)
    ctl.abort()
    await expect(quote).rejects.toThrow(/aborted/)
    await expect(risk).rejects.toThrow(/aborted/)
    await expect(budget.acquire(9, 'read')).rejects.toThrow(/outside 1..8/)
  })

  it('a fleet that fills its budget (issue 34): the halted process still cancels at once, through the gate', async () => {
    // Three processes on one egress at a budget of 300 (the adversarial run's FLEET_BUDGET), a
    // minute's window: two fill it with quotes, reads and other risk work until each is refused.
    const fleet = [0, 1, 2].map(() =>
      createSharedBudget({ client: redis, egressId: 'w-full', graceMs: 50, budget: 300, windowMs: 60_000 }),
    )
    const [a, b, halted] = fleet
    if (a === undefined || b === undefined || halted === undefined) throw new Error('three processes')
    // Refused is read from the process's own counters, not from a timer: a refusal for a full window
    // counts one more `refused` while not `blocked` (the first call on a new egress opens a generation
    // and is paused for its grace, blocked, then admitted; under load that pause outlasts any timer).
    const fill = async (p: typeof a, priority: 'quote' | 'read' | 'risk'): Promise<number> => {
      let taken = 0
      for (;;) {
        const ctl = new AbortController()
        const before = p.state().refused
        let admitted = false
        const ask = p.acquire(5, priority, ctl.signal).then(() => {
          admitted = true
        })
        const full = (): boolean => p.state().refused > before && !p.state().blocked
        for (let i = 0; i < 2_000 && !admitted && !full(); i++) await new Promise((r) => setTimeout(r, 5))
        if (!admitted) {
          expect(full()).toBe(true)
          ctl.abort()
          await ask.catch(() => undefined)
          return taken
        }
        taken += 5
      }
    }
    expect(await fill(a, 'quote')).toBe(270)
    expect(await fill(b, 'read')).toBe(0)
    expect(await fill(b, 'risk')).toBe(15)
    expect(b.state().windowWeight).toBe(285)
    // The halted process's cancel-all (and a cancel by id of 99 orders, weight 5) go without a wait.
    const gate = withSharedBudget(OPEN_GATE, halted)
    const sent: string[] = []
    const halt = (endpoint: 'cancelAll' | 'cancelOrders', requestWeight: number): Promise<void> =>
      runThrough(
        gate,
        { endpoint, kind: 'command', input: {}, requestWeight, actionWeight: 0, priority: 'halt' },
        async () => {
          sent.push(endpoint)
        },
      )
    await halt('cancelAll', 1)
    await halt('cancelOrders', 5)
    expect(sent).toEqual(['cancelAll', 'cancelOrders'])
    expect(halted.state().refused).toBe(0)
    for (const p of fleet) p.stop()
  })

  it('a 429 anywhere pauses every process (shared blocked-until)', async () => {
    const a = createSharedBudget({ client: redis, egressId: 'w3', graceMs: 50, budget: 100, windowMs: 1_000 })
    const b = createSharedBudget({ client: redis, egressId: 'w3', graceMs: 50, budget: 100, windowMs: 1_000 })
    await a.reportRateLimited(400)
    const t0 = performance.now()
    await b.acquire(1, 'risk')
    expect(performance.now() - t0).toBeGreaterThanOrEqual(350)
    expect(b.state().refused).toBeGreaterThanOrEqual(1)
  })

  it('NOSCRIPT after SCRIPT FLUSH: the script goes again as EVAL, no error to the caller', async () => {
    const budget = createSharedBudget({
      client: redis,
      egressId: 'w4',
      graceMs: 50,
      budget: 100,
      windowMs: 1_000,
    })
    await budget.acquire(1, 'read')
    await redis.script('FLUSH')
    await budget.acquire(1, 'read')
    expect(budget.state().scriptReloads).toBe(1)
    expect(budget.state().admitted).toBe(2)
  })

  it('data lost (FLUSHALL): a new generation pauses for the grace and the process restores its window', async () => {
    const budget = createSharedBudget({
      client: redis,
      egressId: 'w5',
      budget: 10,
      windowMs: 2_000,
      riskReserve: 0,
      graceMs: 200,
    })
    await budget.acquire(8, 'read')
    await redis.flushall()
    const t0 = performance.now()
    await budget.acquire(1, 'read')
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150)
    expect(budget.state()).toMatchObject({ generations: 1, restored: 1, windowWeight: 9 })
    // The restored 8 still count: 2 more would overspend, so it waits.
    const ctl = new AbortController()
    const p = budget.acquire(2, 'read', ctl.signal)
    await new Promise((r) => setTimeout(r, 100))
    expect(budget.state().admitted).toBe(2)
    ctl.abort()
    await expect(p).rejects.toThrow(/aborted/)
  })

  it('a standby leaves an account lost with Redis data to its holder, which re-asserts it', async () => {
    const a = new AccountLease({ client: redis, account: 'rs', holderId: 'holder-a', ttlMs: 3_000 })
    const got = await a.tryAcquire()
    expect(got.acquired).toBe(true)
    let claimed: AccountLease | undefined
    const claim = claimFirstFree({
      client: redis,
      accounts: ['rs'],
      pollMs: 100,
      dataLossDeferMs: 1_200,
      lease: (account) => new AccountLease({ client: redis, account, holderId: 'standby-b', ttlMs: 3_000 }),
    }).then((l) => {
      claimed = l
      return l
    })
    await new Promise((r) => setTimeout(r, 300))
    // Redis loses its data: the lease and its counter are gone; a renews every 600 ms.
    await redis.flushall()
    await new Promise((r) => setTimeout(r, 2_000))
    expect(claimed).toBeUndefined()
    expect(a.status().state).toBe('held')
    expect(await redis.get(leaseKeys('perpbot', 'rs').lease)).toMatch(/:holder-a$/)
    // A clean release (the counter stays): the standby takes it at once.
    await a.release()
    a.stop()
    const b = await claim
    expect(b.status().state).toBe('held')
    b.stop()
  })

  it('lease: one holder, CAS renew and release, epochs above Redis seconds and minEpoch', async () => {
    const acquire = new LuaScript(ACQUIRE_LUA)
    const renew = new LuaScript(RENEW_LUA)
    const release = new LuaScript(RELEASE_LUA)
    const k = leaseKeys('perpbot', 'acct-x')
    const keys = [k.lease, k.epoch]
    const a = await acquire.run(redis, keys, ['pa', 5_000, 0])
    expect(intAt(a, 0)).toBe(1)
    const tokenA = stringAt(a, 1)
    const epochA = Number(tokenA.split(':')[0])
    expect(epochA).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5)
    const b = await acquire.run(redis, keys, ['pb', 5_000, 0])
    expect(intAt(b, 0)).toBe(0)
    expect(stringAt(b, 1)).toBe(tokenA)
    expect(await renew.run(redis, keys, [`${epochA}:pb`, 5_000, epochA])).toBe(0)
    expect(await renew.run(redis, keys, [tokenA, 5_000, epochA])).toBe(1)
    expect(await release.run(redis, [k.lease], [`${epochA}:pb`])).toBe(0)
    expect(await release.run(redis, [k.lease], [tokenA])).toBe(1)
    const c = await acquire.run(redis, keys, ['pc', 5_000, epochA + 1_000])
    expect(Number(stringAt(c, 1).split(':')[0])).toBe(epochA + 1_001)
    // Redis lost its data: the holder re-asserts its lease; a new acquirer then sees it held.
    const tokenC = stringAt(c, 1)
    await redis.flushall()
    expect(await renew.run(redis, keys, [tokenC, 5_000, epochA + 1_001])).toBe(2)
    const view = await peekLeases(redis, ['acct-x', 'acct-free'])
    expect(view[0]).toMatchObject({ account: 'acct-x', holder: tokenC })
    expect(view[1]).toEqual({ account: 'acct-free', holder: undefined, ttlMs: undefined, known: false })
    expect(view[0]?.known).toBe(true)
    // ...and the next epoch is above the re-asserted one.
    await release.run(redis, [k.lease], [tokenC])
    const d = await acquire.run(redis, keys, ['pd', 5_000, 0])
    expect(Number(stringAt(d, 1).split(':')[0])).toBe(epochA + 1_002)
  })

  it('gate adapter: the shared budget before each send; an IP 429 pauses the fleet, an action 429 does not', async () => {
    const budget = createSharedBudget({
      client: redis,
      egressId: 'w6',
      graceMs: 50,
      budget: 100,
      windowMs: 1_000,
    })
    const order: string[] = []
    const gate = withSharedBudget(OPEN_GATE, budget)
    const req = (w: number): GatedRequest => ({
      endpoint: 'getOpenOrders',
      kind: 'read',
      input: {},
      requestWeight: w,
      actionWeight: 0,
    })
    await runThrough(gate, req(3), async () => {
      order.push(`sent after ${budget.state().admittedWeight}`)
    })
    expect(order).toEqual(['sent after 3'])
    await expect(
      runThrough(gate, req(1), () =>
        Promise.reject(new RateLimitError('/v1/trade/orders', 'action_rate_limited', 5_000)),
      ),
    ).rejects.toThrow(RateLimitError)
    expect(budget.state().blocked).toBe(false)
    await expect(
      runThrough(gate, req(1), () =>
        Promise.reject(new RateLimitError('/v1/info/index', 'ip_rate_limited', 300)),
      ),
    ).rejects.toThrow(RateLimitError)
    expect(budget.state().blocked).toBe(true)
    expect(Number(await redis.pttl('perpbot:ip:{w6}:blocked'))).toBeGreaterThan(100)
  })
})
