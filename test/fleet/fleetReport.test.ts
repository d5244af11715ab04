/**
 * The holders' reports for the fleet's view (fleetReport.ts), on a fake client and a manual clock:
 * written every period only while the lease is held, with a TTL of three periods; read back per
 * account, an unreadable or misfiled value shown as no report; the states phrase.
 */
import { describe, expect, it } from 'vitest'
import type { Clock, TimerId } from '../../src/clock.ts'
import {
  type HolderReport,
  readHolderReports,
  reportKey,
  startHolderReports,
  statesPhrase,
} from '../../src/fleet/fleetReport.ts'

function manualClock(): Clock & { advance(ms: number): void } {
  let now = 1_000
  const timers = new Map<number, { at: number; fn: () => void }>()
  let id = 0
  return {
    now: () => now,
    setTimeout(fn, ms): TimerId {
      id += 1
      timers.set(id, { at: now + ms, fn })
      return id
    },
    clearTimeout(t) {
      if (typeof t === 'number') timers.delete(t)
    },
    advance(ms) {
      const end = now + ms
      for (;;) {
        const next = [...timers].sort((a, b) => a[1].at - b[1].at)[0]
        if (next === undefined || next[1].at > end) break
        timers.delete(next[0])
        now = next[1].at
        next[1].fn()
      }
      now = end
    },
  }
}

function fakeRedis() {
  const store = new Map<string, { value: string; px: number }>()
  return {
    store,
    set: async (key: string, value: string, _px: 'PX', ms: number) => {
      store.set(key, { value, px: ms })
      return 'OK'
    },
    mget: async (...keys: string[]) => keys.map((k) => store.get(k)?.value ?? null),
  }
}

describe('holder reports', () => {
  it('written every period while held, with a TTL of three periods; not while the lease is lost', async () => {
    const clock = manualClock()
    const redis = fakeRedis()
    let held = true
    let pnl = '1.50'
    const r = startHolderReports({
      client: redis,
      account: 'acct-a',
      holder: 'perpbot-0.1',
      epoch: 7,
      held: () => held,
      ownWeight: () => 30,
      read: () => ({ state: 'quoting 2', netPnl: pnl, currency: 'USDC' }),
      everyMs: 2_000,
      clock,
    })
    const stored = (): HolderReport | undefined => {
      const v = redis.store.get(reportKey('perpbot', 'acct-a'))
      return v === undefined ? undefined : JSON.parse(v.value)
    }
    expect(stored()).toEqual({
      account: 'acct-a',
      holder: 'perpbot-0.1',
      epoch: 7,
      state: 'quoting 2',
      netPnl: '1.50',
      currency: 'USDC',
      ownWeight: 30,
      at: 1_000,
    })
    expect(redis.store.get('perpbot:report:acct-a')?.px).toBe(6_000)
    pnl = '-2.00'
    clock.advance(2_000)
    expect(stored()?.netPnl).toBe('-2.00')
    expect(stored()?.at).toBe(3_000)
    held = false
    clock.advance(4_000)
    // Not rewritten once the lease is lost: the last one lapses with its TTL.
    expect(stored()?.at).toBe(3_000)
    r.stop()
  })

  it('read per account; unreadable, invalid or misfiled values are no report', async () => {
    const redis = fakeRedis()
    const good = { account: 'a', holder: 'h', epoch: 1, state: 'quoting 1', ownWeight: 3, at: 5 }
    await redis.set('perpbot:report:a', JSON.stringify(good), 'PX', 1)
    await redis.set('perpbot:report:b', '{not json', 'PX', 1)
    await redis.set('perpbot:report:c', JSON.stringify({ ...good, account: 'a' }), 'PX', 1)
    await redis.set('perpbot:report:d', JSON.stringify({ ...good, account: 'd', epoch: 'x' }), 'PX', 1)
    const out = await readHolderReports(redis, ['a', 'b', 'c', 'd', 'e'])
    expect([...out.keys()]).toEqual(['a'])
    expect(out.get('a')).toEqual(good)
    expect(await readHolderReports(redis, [])).toEqual(new Map())
  })

  it('states phrase: the last part of each state, counted in order of first appearance', () => {
    expect(statesPhrase(['active.normal.quoting', 'halted', 'active.normal.quoting'])).toBe(
      'quoting 2, halted 1',
    )
    expect(statesPhrase([])).toBe('no instruments')
  })
})
