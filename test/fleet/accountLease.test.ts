/**
 * The lease holder's own deadline, on a simulated clock with a scripted Redis: it stops writing at
 * `sentAt + ttl - margin` when renewals fail, renewals move the deadline, a refused renewal is a
 * lost lease at once, and a resumed holder past its deadline renews nothing.
 */

import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { AccountLease, type LeaseStatus } from '../../src/fleet/accountLease.ts'
import { ACQUIRE_LUA, RENEW_LUA } from '../../src/fleet/leaseScripts.ts'
import { LuaScript } from '../../src/fleet/redisScript.ts'

const ACQUIRE = new LuaScript(ACQUIRE_LUA).sha
const RENEW = new LuaScript(RENEW_LUA).sha

function setup(renew: () => unknown) {
  const clock = new SimulatedClock()
  clock.set(1_000)
  const calls: string[] = []
  const client = {
    evalsha: async (sha: string): Promise<unknown> => {
      calls.push(sha === ACQUIRE ? 'acquire' : sha === RENEW ? 'renew' : 'other')
      if (sha === ACQUIRE) return [1, '42:me', 1_000]
      if (sha === RENEW) return renew()
      return 0
    },
    eval: async (): Promise<unknown> => 0,
  }
  const lease = new AccountLease({
    client,
    account: 'acct',
    holderId: 'me',
    ttlMs: 1_000,
    renewEveryMs: 200,
    marginMs: 300,
    clock,
    monotonic: () => clock.now(),
  })
  const seen: LeaseStatus[] = []
  lease.onChange((s) => seen.push(s))
  return { clock, lease, seen, calls }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

async function step(clock: SimulatedClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 50) {
    clock.increment(Math.min(50, ms - t))
    await flush()
  }
}

describe('AccountLease deadline', () => {
  it('Redis unreachable: writes until sentAt + ttl - margin, then lost (expired) without any answer', async () => {
    const { clock, lease, seen } = setup(() => Promise.reject(new Error('connection refused')))
    expect(await lease.tryAcquire()).toEqual({ acquired: true, epoch: 42 })
    expect(lease.canWrite()).toBe(true)
    await step(clock, 650)
    expect(lease.canWrite()).toBe(true)
    expect(lease.renewErrors).toBeGreaterThanOrEqual(2)
    await step(clock, 100)
    expect(lease.canWrite()).toBe(false)
    expect(seen.at(-1)).toEqual({ state: 'lost', epoch: 42, reason: 'expired' })
  })

  it('renewals move the deadline', async () => {
    const { clock, lease } = setup(() => 1)
    await lease.tryAcquire()
    await step(clock, 3_000)
    expect(lease.canWrite()).toBe(true)
    expect(lease.renewals).toBeGreaterThanOrEqual(10)
    expect(lease.msLeft()).toBeGreaterThan(400)
  })

  it('a refused renewal (someone else holds it) is lost at once', async () => {
    const { clock, lease, seen } = setup(() => 0)
    await lease.tryAcquire()
    await step(clock, 200)
    expect(seen.at(-1)).toEqual({ state: 'lost', epoch: 42, reason: 'taken' })
    expect(lease.canWrite()).toBe(false)
  })

  it('a holder resumed past its deadline sends no renewal (no re-assert by a zombie)', async () => {
    const { clock, lease, calls } = setup(() => 1)
    await lease.tryAcquire()
    // The process was stopped: time jumps without timers running, then they all fire at once.
    clock.set(clock.now() + 5_000)
    await flush()
    expect(lease.canWrite()).toBe(false)
    expect(calls.filter((c) => c === 'renew')).toEqual([])
  })

  it('refuses settings where a renewal could not land before the deadline', () => {
    const client = { evalsha: async () => 0, eval: async () => 0 }
    expect(
      () =>
        new AccountLease({
          client,
          account: 'a',
          holderId: 'x',
          ttlMs: 1_000,
          renewEveryMs: 800,
          marginMs: 300,
        }),
    ).toThrow(/renewEveryMs \+ marginMs/)
  })
})
