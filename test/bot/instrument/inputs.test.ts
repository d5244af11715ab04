/**
 * `INPUTS` (issue 37 point 2): the inputs of one moment stored in order, as each alone would be, then
 * one re-assessment and one plan over all of them.
 */
import { describe, expect, it } from 'vitest'
import type { InstrumentEvent } from '../../../src/bot/instrument/instrument.machine.ts'
import type { OrderPlan } from '../../../src/bot/quoting/orderPlan.ts'
import type { StrategySnapshot } from '../../../src/strategy/strategy.ts'
import { restingOrder } from '../../helpers/orders.ts'
import { harness, margin, nothing, oneBid } from './helpers.ts'

type Input = Exclude<InstrumentEvent, { type: 'INPUTS' | 'BBO' | 'RECONFIGURE' | 'STOP' | 'WAKE' | 'SETTLE' }>

const moment = (now: number, price: string, ratio: number): Input[] => [
  { type: 'INDEX', index: { price, ts: now }, receivedAt: now },
  { type: 'STATISTICS', statistics: { volume: '10', openPrice: '49000', klines: [] }, receivedAt: now },
  { type: 'ACCOUNT', margin: margin(ratio), position: undefined, receivedAt: now },
  { type: 'ORDERS', orders: [restingOrder(5, { p: '49000', qty: '0.01', rest: '0.01' })], receivedAt: now },
]

/** The fields the inputs are stored in. */
const stored = (c: ReturnType<ReturnType<typeof harness>['actor']['getSnapshot']>['context']) => ({
  index: c.index,
  indexAt: c.indexAt,
  statistics: c.statistics,
  statisticsAt: c.statisticsAt,
  margin: c.margin,
  marginAt: c.marginAt,
  openOrders: c.openOrders,
  ordersAt: c.ordersAt,
  assessment: c.assessment,
})

describe('INPUTS: the inputs of one moment, planned once', () => {
  it('stores every input as the events one by one do, and asks the strategy once instead of once each', () => {
    const asked = { one: [] as StrategySnapshot[], all: [] as StrategySnapshot[] }
    const one = harness((s) => {
      asked.one.push(s)
      return nothing()
    })
    const all = harness((s) => {
      asked.all.push(s)
      return nothing()
    })
    one.feedAll()
    all.feedAll()
    one.clock.increment(2_000)
    all.clock.increment(2_000)
    const events = moment(one.clock.now(), '50010', 0.2)
    const before = { one: asked.one.length, all: asked.all.length }
    for (const e of events) one.actor.send(e)
    all.actor.send({ type: 'INPUTS', inputs: events })
    expect(stored(all.actor.getSnapshot().context)).toEqual(stored(one.actor.getSnapshot().context))
    expect(asked.one.length - before.one).toBe(4)
    expect(asked.all.length - before.all).toBe(1)
    // The one plan sees every input of the moment: the last of the one-by-one plans saw the same.
    expect(asked.all.at(-1)).toEqual(asked.one.at(-1))
    expect(all.value()).toEqual({ active: { risk: 'normal', work: 'quoting' } })
  })

  it('takes a syncing actor to active in one event, sending the plan once', () => {
    const h = harness(oneBid)
    h.actor.send({ type: 'INPUTS', inputs: moment(h.clock.now(), '50000', 0.1) })
    expect(h.value()).toEqual({ active: { risk: 'normal', work: 'repricing' } })
    expect(h.submitted).toHaveLength(1)
  })

  it('a moment that widens plans once, in the new mode', () => {
    const modes: string[] = []
    const h = harness((s): OrderPlan => {
      modes.push(s.mode)
      return nothing()
    })
    h.feedAll()
    h.clock.increment(2_000)
    modes.length = 0
    h.actor.send({ type: 'INPUTS', inputs: moment(h.clock.now(), '50010', 0.55) })
    expect(h.value()).toEqual({ active: { risk: 'widened', work: 'quoting' } })
    expect(modes).toEqual(['widened'])
  })

  it('screens an index among them as alone: a jump is dropped, counted and logged, the rest stored', () => {
    const h = harness(nothing)
    h.feedAll()
    h.clock.increment(2_000)
    const [, statistics, account, orders] = moment(h.clock.now(), '50000', 0.3)
    const jump: Input = {
      type: 'INDEX',
      index: { price: '99000', ts: h.clock.now() },
      receivedAt: h.clock.now(),
    }
    h.actor.send({
      type: 'INPUTS',
      inputs: [jump, ...[statistics, account, orders].filter((e) => e !== undefined)],
    })
    const c = h.actor.getSnapshot().context
    expect(c.index?.price).toBe('50000')
    expect(c.stats.indexRejected).toBe(1)
    expect(c.margin?.marginRatio).toBe(0.3)
    expect(c.openOrders.map((o) => o.oid)).toEqual([5])
    expect(h.logs.some((l) => l.startsWith('index update dropped'))).toBe(true)
  })
})
