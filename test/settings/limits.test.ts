import { describe, expect, it } from 'vitest'
import { PERPS_WEIGHTS } from '../../src/perps/weights.ts'
import {
  POLLED_READ_WEIGHT,
  POLLING_FLOOR_MS,
  pollingAllowancePerMinute,
  pollingWeightPerMinute,
  VENUE_ACTION_BUDGET_PER_MINUTE,
  VENUE_REQUEST_BUDGET_PER_MINUTE,
} from '../../src/settings/limits.ts'
import { LimiterSettings, PollingSettings } from '../../src/settings/schema.ts'

describe('venue limits and polling floors', () => {
  it('budgets stop at the documented venue limits (PN c.4), which are also the defaults', () => {
    expect([VENUE_REQUEST_BUDGET_PER_MINUTE, VENUE_ACTION_BUDGET_PER_MINUTE]).toEqual([1000, 5000])
    const d = LimiterSettings.parse({})
    expect([d.requestBudgetPerMinute, d.actionBudgetPerMinute]).toEqual([1000, 5000])
  })

  it('each floor keeps its poller alone within an eighth of the request budget, in 500 ms steps', () => {
    expect(POLLING_FLOOR_MS).toEqual({
      indexMs: 1_000,
      statisticsMs: 1_000,
      portfolioMs: 1_000,
      openOrdersMs: 10_000,
      withdrawalsMs: 5_000,
      fundingMs: 5_000,
      depositsMs: 5_000,
      fillsMs: 5_000,
      credentialsMs: 1_000,
      timeSyncMs: 500,
    })
    for (const [key, floor] of Object.entries(POLLING_FLOOR_MS)) {
      const weight = POLLED_READ_WEIGHT[key as keyof typeof POLLING_FLOOR_MS]
      expect((weight * 60_000) / floor, key).toBeLessThanOrEqual(VENUE_REQUEST_BUDGET_PER_MINUTE / 8)
      expect((weight * 60_000) / (floor - 500), key).toBeGreaterThan(VENUE_REQUEST_BUDGET_PER_MINUTE / 8)
    }
    expect(POLLED_READ_WEIGHT.openOrdersMs).toBe(PERPS_WEIGHTS.getOpenOrders.request({}))
  })

  it('the default polling fits what the default limiter leaves besides the index; all floors do not', () => {
    const allowance = pollingAllowancePerMinute(LimiterSettings.parse({}))
    expect(allowance).toBeCloseTo(510, 6)
    expect(pollingWeightPerMinute(PollingSettings.parse({}))).toBeLessThan(allowance)
    expect(pollingWeightPerMinute(POLLING_FLOOR_MS)).toBeGreaterThan(allowance)
  })
})
