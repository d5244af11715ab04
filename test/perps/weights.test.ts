import { describe, expect, it } from 'vitest'
import { splitBatchSizes } from '../../src/bot/orders/batching/batchSizes.ts'
import {
  batchRequestWeight,
  isCommand,
  maxBatchForWeight,
  PERPS_WEIGHTS,
  type PerpsEndpoint,
} from '../../src/perps/weights.ts'

const endpoints = Object.keys(PERPS_WEIGHTS) as PerpsEndpoint[]

describe('the weight table', () => {
  it('says once which endpoints are commands (sent once, never retried)', () => {
    expect(endpoints.filter(isCommand).sort()).toEqual(
      [
        'applyReferral',
        'cancelAll',
        'cancelOrders',
        'createOrders',
        'createProxy',
        'modifyOrders',
        'setAutoCancel',
        'cancelOrdersCoid',
        'updateLeverage',
        'updateMargin',
        'deleteProxy',
        'withdraw',
      ].sort(),
    )
    expect(endpoints.filter((e) => PERPS_WEIGHTS[e].batch === true).sort()).toEqual(
      ['cancelOrders', 'cancelOrdersCoid', 'createOrders', 'modifyOrders'].sort(),
    )
  })

  it('maxBatchForWeight is the exact inverse of the batch request weight of every batch endpoint', () => {
    for (const e of ['createOrders', 'modifyOrders', 'cancelOrders'] as const) {
      for (let w = 0; w <= 12; w++) {
        const n = maxBatchForWeight(w)
        if (n > 0) expect(PERPS_WEIGHTS[e].request({ n })).toBeLessThanOrEqual(w)
        expect(PERPS_WEIGHTS[e].request({ n: n + 1 })).toBeGreaterThan(w)
      }
    }
    expect([1, 2, 5].map(maxBatchForWeight)).toEqual([19, 39, 99])
    expect(maxBatchForWeight(0.5)).toBe(0)
  })

  it('the batch planner buys the most actions for the table weight (20k + 19 caps fill up)', () => {
    expect(splitBatchSizes(100, 99)).toEqual([99, 1])
    expect(splitBatchSizes(100, 99).reduce((w, n) => w + batchRequestWeight(n), 0)).toBe(6)
  })
})
