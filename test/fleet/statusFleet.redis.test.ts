/**
 * `perpbot status --fleet` against a real redis-server: every account with its holder, epoch and
 * lease time left, the holder's report (bot state, net PnL, its weight), and the egress's weight in
 * the window; bad settings name their variable.
 */
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { statusCommand } from '../../src/cli/status.ts'
import { AccountLease } from '../../src/fleet/accountLease.ts'
import { startHolderReports, statesPhrase } from '../../src/fleet/fleetReport.ts'
import { formatFleetView } from '../../src/fleet/fleetView.ts'
import { createSharedBudget } from '../../src/fleet/sharedBudget.ts'
import { type RedisServer, redisSkipReason } from '../helpers/redis.ts'
import { startFleetRedis, stopFleetRedis } from './fleetRedis.ts'

const skip = redisSkipReason()

describe.skipIf(skip !== undefined)(`perpbot status --fleet ${skip ?? ''}`, () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    ;({ server, redis } = await startFleetRedis())
  })
  afterAll(() => stopFleetRedis({ server, redis }))

  const run = async (env: Record<string, string>, argv: string[] = ['--fleet']) => {
    const out: string[] = []
    const code = await statusCommand({
      argv,
      env,
      stdout: (l) => out.push(l),
      stderr: () => undefined,
      configDir: 'config',
      isTty: false,
      signal: new AbortController().signal,
    })
    return { code, out: out.join('\n') }
  }

  it('lists holders, epochs, lease left and the weight in the window', async () => {
    const lease = new AccountLease({
      client: redis,
      account: 'main',
      holderId: 'perpbot-0.42',
      ttlMs: 10_000,
    })
    const r = await lease.tryAcquire()
    const budget = createSharedBudget({ client: redis, egressId: 'nat-1', budget: 900, graceMs: 1 })
    await budget.acquire(7, 'read')
    await budget.acquire(5, 'risk')
    // The holder's own report: its bot's state, PnL and weight (a report of an older epoch is not shown).
    const reports = startHolderReports({
      client: redis,
      account: 'main',
      holder: 'perpbot-0.42',
      epoch: r.acquired ? r.epoch : -1,
      held: () => true,
      ownWeight: () => 12,
      read: () => ({
        state: statesPhrase(['active.normal.quoting', 'active.normal.quoting', 'halted']),
        netPnl: '-3.25',
        currency: 'USDC',
      }),
    })
    await redis.set(
      'perpbot:report:hedge',
      JSON.stringify({ account: 'hedge', holder: 'old', epoch: 1, state: 'quoting 1', ownWeight: 1, at: 0 }),
    )
    const env = { FLEET_REDIS_URL: server.url, FLEET_ACCOUNTS: 'main,hedge', FLEET_EGRESS_ID: 'nat-1' }
    const { code, out } = await run(env)
    reports.stop()
    expect(code).toBe(0)
    expect(out).toContain('egress nat-1: request weight 12 of 900 in the last minute (1 %)')
    expect(out).toContain('accounts: 1 of 2 held')
    expect(out).toMatch(
      new RegExp(`main\\s+held\\s+perpbot-0\\.42\\s+${r.acquired ? r.epoch : -1}\\s+\\d+\\.\\d s`),
    )
    expect(out).toMatch(/main\s+held.*quoting 2, halted 1\s+-3\.25 USDC\s+12 \(1 %\)/)
    expect(out).toMatch(/hedge\s+free\s+-\s+-\s+-\s+-\s+-\s+-$/m)
    const json = JSON.parse((await run(env, ['--fleet', '--json'])).out)
    expect(json.accounts[0]).toMatchObject({
      account: 'main',
      state: 'held',
      holder: 'perpbot-0.42',
      report: { netPnl: '-3.25', ownWeight: 12, state: 'quoting 2, halted 1' },
    })
    lease.stop()
    budget.stop()
  })

  it('names a missing variable; an unreachable Redis is a clear error without its password', async () => {
    await expect(run({ FLEET_ACCOUNTS: 'a', FLEET_EGRESS_ID: 'x' })).rejects.toThrow(/FLEET_REDIS_URL/)
    await expect(
      run({ FLEET_REDIS_URL: 'redis://:hunter2@127.0.0.1:1', FLEET_ACCOUNTS: 'a', FLEET_EGRESS_ID: 'x' }),
    ).rejects.toThrow(/^(?!.*hunter2).*does not answer/)
  })
})

describe('formatFleetView', () => {
  it('says when the fleet is paused after a 429', () => {
    expect(
      formatFleetView({ egressId: 'e', budget: 900, windowWeight: 900, pausedMs: 2_500, accounts: [] }),
    ).toContain('request weight 900 of 900 in the last minute (100 %); paused 3 s after a 429')
  })
})
