/**
 * The real bot in fleet mode against the loopback mock and a real redis-server: every request
 * passes the shared budget, creates carry the lease epoch in their client order ids, and once the
 * lease is taken by a successor nothing but cancels of its own orders leaves the bot (no create, no
 * cancel-all), and its stop cancels exactly its own epoch's orders.
 */
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountLease, type LeaseStatus } from '../../src/fleet/accountLease.ts'
import { createFleetPart } from '../../src/fleet/fleetPart.ts'
import { readFleetView } from '../../src/fleet/fleetView.ts'
import { ACQUIRE_LUA, leaseKeys } from '../../src/fleet/leaseScripts.ts'
import { createSharedBudget } from '../../src/fleet/sharedBudget.ts'
import { DEFAULT_ORDER_TAG_NAME, orderTagFor, parseClientOrderId } from '../../src/perps/orderTag.ts'
import { startBotOnMock, type WireExchange } from '../../src/sim/botOnMock.ts'
import { type RedisServer, redisSkipReason } from '../helpers/redis.ts'
import { startFleetRedis, stopFleetRedis } from './fleetRedis.ts'

const skip = redisSkipReason()
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

describe.skipIf(skip !== undefined)(`bot in fleet mode ${skip ?? ''}`, () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    ;({ server, redis } = await startFleetRedis())
  })
  afterAll(() => stopFleetRedis({ server, redis }))

  it('shared budget, epoch in coids, fenced after the lease is taken, own epoch cancelled at stop', {
    timeout: 60_000,
  }, async () => {
    const lease = new AccountLease({
      client: redis,
      account: 'acct-1',
      holderId: 'bot-a',
      ttlMs: 3_000,
      renewEveryMs: 500,
      marginMs: 900,
    })
    expect((await lease.tryAcquire()).acquired).toBe(true)
    const budget = createSharedBudget({ client: redis, egressId: 'it', budget: 900, graceMs: 50 })
    const part = createFleetPart({
      lease,
      budget,
      egressId: 'it',
      view: () => readFleetView(redis, { accounts: ['acct-1'], egressId: 'it', budget: 900 }),
    })
    const statuses: LeaseStatus[] = []
    lease.onChange((s) => statuses.push(s))
    const wire: (WireExchange & { at: number })[] = []
    const coids = new Map<number, { coid: string | undefined; status: string }>()
    const run = await startBotOnMock({
      mock: { seed: 7, scenario: 'calm', clock: 'accelerated', speed: 10, catalogue: { eventCount: 20 } },
      logLevel: 'warn',
      streams: false,
      // The venue's dead-man switch would cancel everything a second (of wall time, at 10×) after the
      // fence stops its refreshes; off here, so the stop's cancel of our own epoch is what is seen.
      overrides: { 'ops.deadManSwitch.enabled': false },
      fleet: part,
      onExchange: (x) => wire.push({ ...x, at: Date.now() }),
    })
    let ownerSeen = ''
    run.mock.exchange.onOrderChange((_owner, oid, order) => {
      ownerSeen = _owner
      const o = order()
      coids.set(oid, { coid: o.coid, status: o.status })
    })
    try {
      await until('two orders', () => coids.size >= 2, 20_000)
      const tag = orderTagFor(DEFAULT_ORDER_TAG_NAME)
      for (const { coid } of coids.values())
        expect(parseClientOrderId(coid)).toMatchObject({ tag, epoch: part.epoch })
      // The requests went through Redis first (all but the dry run's self-provisioning, which a
      // live fleet bot does not do).
      const provisioning = wire.filter((x) => x.req.path.startsWith('/v1/account/proxy')).length
      expect(budget.state().admitted).toBeGreaterThanOrEqual(
        wire.length - provisioning - budget.state().waiting - 2,
      )
      expect(Number(await redis.zcard('perpbot:ip:{it}:log'))).toBeGreaterThan(0)

      // A successor takes the account (as after an expiry): our next renewal is refused.
      // (Deleting the key and acquiring in one script: between two calls our own renewal would
      // re-assert the vanished lease, as it does after a Redis restart.)
      const k = leaseKeys('perpbot', 'acct-1')
      const taken = await redis.eval(
        `redis.call('DEL', KEYS[1]) ${ACQUIRE_LUA}`,
        2,
        k.lease,
        k.epoch,
        'bot-b',
        3_000,
        0,
      )
      expect(Array.isArray(taken) && taken[0] === 1).toBe(true)
      expect(Number(String(Array.isArray(taken) ? taken[1] : '').split(':')[0])).toBeGreaterThan(part.epoch)
      await until('lease lost', () => statuses.some((s) => s.state === 'lost'), 3_000)
      const lostAt = Date.now()
      expect(statuses.at(-1)).toMatchObject({ state: 'lost', reason: 'taken' })
      await sleep(1_500)
      const report = await run.bot.stop('lease lost')
      const after = wire.filter((x) => x.at > lostAt + 100 && x.command)
      // Nothing but cancels by id; never cancel-all (account-wide) nor a create.
      for (const x of after) expect(`${x.req.method} ${x.req.path}`).toBe('DELETE /v1/trade/orders')
      expect(after.length).toBeGreaterThan(0)
      expect(report.cancelAllFailed).toBe(false)
      // Our epoch's orders are all gone.
      expect(run.mock.exchange.openOrders(ownerSeen)).toEqual([])
    } finally {
      lease.stop()
      budget.stop()
      await run.stop('test over').catch(() => undefined)
    }
  })
})
