/** `applyOutcome`: an accepted create enters the actor's order set as it was asked for. */
import { describe, expect, it } from 'vitest'
import { applyOutcome } from '../../../src/bot/instrument/results.ts'
import type { OrderPlan, PlanOutcome } from '../../../src/bot/quoting/orderPlan.ts'

describe('applyOutcome', () => {
  it("records each accepted create's own time in force and post-only flag (wire defaults when absent)", () => {
    const plan: OrderPlan = {
      modify: [],
      create: [
        { iid: 7, buy: true, p: '99', qty: '1', tif: 'gtc', po: true },
        { iid: 7, buy: false, p: '101', qty: '2', tif: 'ioc', po: false, ro: true },
        { iid: 7, buy: true, p: '98', qty: '3' },
      ],
      cancel: [],
    }
    const outcome: PlanOutcome = {
      modify: [],
      create: [
        { status: 'ok', oid: 1 },
        { status: 'ok', oid: 2 },
        { status: 'ok', oid: 3 },
      ],
      cancel: [],
    }
    const applied = applyOutcome([], plan, outcome, 7, 5)
    expect(applied.accepted).toBe(3)
    expect(applied.orders.map((o) => [o.oid, o.tif, o.po, o.ro])).toEqual([
      [1, 'gtc', true, false],
      [2, 'ioc', false, true],
      [3, 'gtc', false, false],
    ])
  })
})
