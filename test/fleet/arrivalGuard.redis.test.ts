/**
 * The arrival guard on a real redis-server: the venue counts a request from its arrival, a little
 * after Redis stamped its admission, while a refused caller is admitted the instant the oldest
 * entries leave Redis's window. A burst that arrived late and the admission that replaces it then
 * fell into one venue window (the fleet bench's start-up overshoot); counting each admission
 * `arrivalGuardMs` longer than the window keeps them apart. Arrivals are modelled from Redis's own
 * stamps plus a fixed lag, so the outcome does not depend on this machine's timers.
 */
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSharedBudget } from '../../src/fleet/sharedBudget.ts'
import { type RedisServer, redisSkipReason } from '../helpers/redis.ts'
import { maxWindowWeight } from './fleetBots.ts'
import { startFleetRedis, stopFleetRedis } from './fleetRedis.ts'

const skip = redisSkipReason()
const WINDOW_MS = 1_000
/** Admission → arrival of the first burst (a starved sender, a slow network): inside the guard. */
const LAG_MS = 40

describe.skipIf(skip !== undefined)(`fleet arrival guard on redis-server ${skip ?? ''}`, () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    ;({ server, redis } = await startFleetRedis())
  })
  afterAll(() => stopFleetRedis({ server, redis }))

  /** A full window's burst arriving LAG_MS late, then a caller that waits for room and arrives at once. */
  async function venueWindows(egressId: string, arrivalGuardMs: number): Promise<number> {
    const budget = createSharedBudget({
      client: redis,
      egressId,
      graceMs: 1,
      budget: 10,
      windowMs: WINDOW_MS,
      riskReserve: 0,
      arrivalGuardMs,
    })
    // The first call to an empty Redis opens a generation (a 1 ms pause): admitted just after it.
    const burst = await budget.acquire(10, 'read')
    const next = await budget.acquire(10, 'read')
    budget.stop()
    expect(next.atUs - burst.atUs).toBeGreaterThanOrEqual((WINDOW_MS + arrivalGuardMs) * 1000)
    return maxWindowWeight(
      [
        { at: burst.atUs / 1000 + LAG_MS, weight: 10 },
        { at: next.atUs / 1000 + 1, weight: 10 },
      ],
      WINDOW_MS,
    )
  }

  it('without a guard, the late burst and its replacement arrive in one window: the venue counts 20 of 10', async () => {
    expect(await venueWindows('guard-off', 0)).toBe(20)
  })

  it('with the guard longer than the lag, no venue window holds more than the budget', async () => {
    expect(await venueWindows('guard-on', 100)).toBeLessThanOrEqual(10)
  })

  it('the default guard is min(250 ms, window / 40): 25 ms on a 1 s window', async () => {
    const budget = createSharedBudget({
      client: redis,
      egressId: 'guard-default',
      graceMs: 1,
      budget: 10,
      windowMs: WINDOW_MS,
      riskReserve: 0,
    })
    const a = await budget.acquire(10, 'read')
    const b = await budget.acquire(10, 'read')
    budget.stop()
    expect(b.atUs - a.atUs).toBeGreaterThanOrEqual((WINDOW_MS + 25) * 1000)
  })
})
