/**
 * Issue 34, point 1, with the real bot: a fleet whose shared budget is filled (another process takes
 * every read, quote and risk weight it may) starves the bot's reads, its index goes stale and it
 * halts. Its cancels go at once on the halt reserve, which the rest of the fleet is never lent: the
 * venue sees the cancel-all within seconds of the halt and the bot's orders are gone, long before the
 * dead-man switch (10 s, its refreshes starved too) would have cancelled them.
 */
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { AccountLease } from '../../src/fleet/accountLease.ts'
import { createFleetPart } from '../../src/fleet/fleetPart.ts'
import { readFleetView } from '../../src/fleet/fleetView.ts'
import { createSharedBudget, type SharedBudget } from '../../src/fleet/sharedBudget.ts'
import { startBotOnMock, type WireExchange } from '../../src/sim/botOnMock.ts'
import { type RedisServer, redisSkipReason } from '../helpers/redis.ts'
import { startFleetRedis, stopFleetRedis } from './fleetRedis.ts'

const skip = redisSkipReason()
const BUDGET = 300

/** Takes all `priority` may of the window, one weight at a time, until refused. */
async function fill(b: SharedBudget, priority: 'quote' | 'risk'): Promise<void> {
  for (;;) {
    const ctl = new AbortController()
    const ask = b.acquire(5, priority, ctl.signal).then(
      () => true,
      () => false,
    )
    const refused = new Promise<boolean>((r) => setTimeout(() => r(false), 150))
    if (!(await Promise.race([ask, refused]))) {
      ctl.abort()
      await ask
      return
    }
  }
}

describe.skipIf(skip !== undefined)(`a fleet that fills its budget ${skip ?? ''}`, () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    ;({ server, redis } = await startFleetRedis())
  })
  afterAll(() => stopFleetRedis({ server, redis }))

  it('the halted bot cancels at once on the halt reserve', { timeout: 120_000 }, async () => {
    const lease = new AccountLease({
      client: redis,
      account: 'acct-h',
      holderId: 'bot-h',
      ttlMs: 10_000,
      renewEveryMs: 2_000,
      marginMs: 3_000,
    })
    expect((await lease.tryAcquire()).acquired).toBe(true)
    const options = { client: redis, egressId: 'full', budget: BUDGET, graceMs: 50 }
    const budget = createSharedBudget(options)
    const rest = createSharedBudget(options)
    const part = createFleetPart({
      lease,
      budget,
      egressId: 'full',
      view: () => readFleetView(redis, { accounts: ['acct-h'], egressId: 'full', budget: BUDGET }),
    })
    const wire: (WireExchange & { at: number })[] = []
    const run = await startBotOnMock({
      mock: { seed: 34, scenario: 'calm', clock: 'real', catalogue: { eventCount: 5 } },
      logLevel: 'warn',
      streams: false,
      fleet: part,
      overrides: { 'quoting.staleIndexMs': 3_000 },
      onExchange: (x) => wire.push({ ...x, at: Date.now() }),
    })
    let owner = ''
    run.mock.exchange.onOrderChange((o) => {
      owner = o
    })
    try {
      await vi.waitFor(() => expect(run.mock.exchange.openOrders(owner).length).toBeGreaterThan(0), {
        timeout: 30_000,
        interval: 100,
      })
      // The rest of the fleet takes every weight it may: quotes and reads to 90 %, risk to 95 %.
      await fill(rest, 'quote')
      await fill(rest, 'risk')
      const filledAt = Date.now()
      expect(rest.state().windowWeight).toBeGreaterThanOrEqual(
        BUDGET - rest.state().limits.halt + rest.state().limits.risk - 5,
      )
      await vi.waitFor(
        () => expect(run.bot.status().instruments.some((i) => i.mode === 'halted')).toBe(true),
        {
          timeout: 30_000,
          interval: 50,
        },
      )
      // Seen halted (the halt's cancel may already be through: polled every 50 ms).
      const haltedAt = Date.now()
      // The halt's cancel-all reaches the venue at once and the orders are gone.
      await vi.waitFor(() => expect(run.mock.exchange.openOrders(owner)).toEqual([]), {
        timeout: 5_000,
        interval: 50,
      })
      const cancels = wire.filter(
        (x) => x.at >= filledAt && x.req.method === 'DELETE' && x.req.path.startsWith('/v1/trade/orders'),
      )
      expect(cancels.length).toBeGreaterThan(0)
      expect(cancels[0]?.res.status).toBe(200)
      // Well before the dead-man switch (10 s after its last refresh, which the full window starves).
      expect((cancels[0]?.at ?? Number.POSITIVE_INFINITY) - haltedAt).toBeLessThan(5_000)
    } finally {
      await run.stop('test over').catch(() => undefined)
      lease.stop()
      budget.stop()
      rest.stop()
    }
  })
})
