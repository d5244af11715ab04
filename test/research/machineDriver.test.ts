/**
 * The fast engine's driver runs the bot's own instrument machine with pure transitions on a stepped
 * clock: the plans the machine sends its submitter and its invoked cancelAll reach the target at
 * once, its delayed events (the deferred plan's WAKE, the halted RECHECK) become timers the driver
 * fires when told the time.
 */
import { describe, expect, it } from 'vitest'
import type { InstrumentDeps } from '../../src/bot/instrument/instrument.machine.ts'
import { createLogger } from '../../src/logging/logger.ts'
import type { Order } from '../../src/perps/schemas/orders.ts'
import { MachineDriver } from '../../src/research/backtest/machineDriver.ts'
import { margin, oneBid, risk } from '../bot/instrument/helpers.ts'
import { restingOrder } from '../helpers/orders.ts'

const T0 = 1_767_000_000_000

function setup(plan = oneBid) {
  const clock = { t: T0, now: () => clock.t }
  const plans: number[] = []
  let cancelAlls = 0
  let oid = 1000
  const logs: string[] = []
  const deps: InstrumentDeps = {
    clock,
    logger: createLogger({
      pretty: 'never',
      level: 'info',
      destination: { write: (line: string) => logs.push(line) },
    }),
    plan,
    risk,
    recheckMs: 1_000,
    minRepriceIntervalMs: 250,
    rejectBackoffMs: 1_000,
    maxOrderAgeMs: 120_000,
    guard: { maxIndexJump: '0.1', degradeAfter: 3 },
    reads: new Set(),
  }
  const driver = new MachineDriver(
    {
      instrument: {
        id: 7,
        symbol: 'BTC-USDC',
        priceDecimals: 1,
        quantityDecimals: 3,
        priceBounds: '0.05',
        minNotional: '1',
        maxOrderCount: 200,
      },
      deps,
    },
    {
      submit: (p) => {
        plans.push(clock.t)
        return {
          modify: p.modify.map((m) => ({
            status: 'ok' as const,
            order: restingOrder(m.oid, { p: m.p, qty: m.qty, rest: m.qty, cts: clock.t, uts: clock.t }),
          })),
          create: p.create.map(() => ({ status: 'ok' as const, oid: oid++ })),
          cancel: p.cancel.map(() => ({ status: 'ok' as const })),
        }
      },
      cancelAll: () => {
        cancelAlls++
      },
    },
  )
  const feed = (ratio = 0.1, orders: Order[] = []) => {
    const now = clock.t
    driver.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
    driver.send({ type: 'ACCOUNT', margin: margin(ratio), position: undefined, receivedAt: now })
    driver.send({ type: 'ORDERS', orders, receivedAt: now })
  }
  /** Steps the clock to `t`, firing every timer due on the way, as runBacktest does. */
  const advance = (t: number) => {
    for (let d = driver.nextDue(); d !== undefined && d <= t; d = driver.nextDue()) {
      clock.t = Math.max(clock.t, d)
      driver.wake(clock.t)
    }
    clock.t = t
  }
  return { clock, driver, plans, feed, advance, cancelAlls: () => cancelAlls, logs }
}

describe('MachineDriver: the instrument machine on pure transitions', () => {
  it('syncs, then submits the plan at once and applies the answer (back in quoting)', () => {
    const s = setup()
    expect(s.driver.state).toBe('syncing')
    s.feed()
    expect(s.driver.state).toBe('active.normal.quoting')
    expect(s.plans).toEqual([T0])
    expect(s.driver.submitted).toBe(1)
    expect(s.driver.context.openOrders.map((o) => o.oid)).toEqual([1000])
    expect(s.driver.context.stats.submitted).toBe(1)
  })

  it("turns the machine's delayed WAKE into a timer: a plan inside the reprice interval goes when it ends", () => {
    let price = 49_990
    const moving = () => ({
      modify: [],
      create: [{ iid: 7, buy: true, p: String(price), qty: '0.01' }],
      cancel: [],
    })
    const m = setup(moving)
    m.feed()
    expect(m.plans).toHaveLength(1)
    m.clock.t += 100
    price = 49_980
    m.driver.send({ type: 'INDEX', index: { price: '50000', ts: m.clock.t }, receivedAt: m.clock.t })
    expect(m.plans).toHaveLength(1) // 100 ms after the last plan: deferred
    expect(m.driver.nextDue()).toBe(T0 + 250)
    m.advance(T0 + 300)
    expect(m.plans).toEqual([T0, T0 + 250])
  })

  it('halts through the machine: cancels through the target, re-checks on its timer, resumes', () => {
    const s = setup()
    s.feed()
    s.driver.send({ type: 'BREAKER', open: true })
    expect(s.driver.state).toBe('halted.idle')
    expect(s.cancelAlls()).toBe(1)
    expect(s.driver.context.openOrders).toEqual([])
    expect(s.driver.nextDue()).toBe(T0 + 1_000) // the halted RECHECK
    s.advance(T0 + 2_500)
    expect(s.driver.state).toBe('halted.idle')
    s.driver.send({ type: 'BREAKER', open: false })
    expect(s.driver.state).toBe('active.normal.quoting')
    expect(s.plans).toHaveLength(2)
    // The risk mode changes were logged by the machine's own log action.
    expect(s.logs.some((l) => l.includes('risk mode normal → halted'))).toBe(true)
  })
})
