/**
 * The actor sleeps until something is due (timeDue.ts): with unchanged inputs it asks its strategy
 * again only when the strategy's answer can change (`revisitAt`), an order reaches its maximum age, a
 * stored best bid/offer has waited a tick, or an input turns stale — not on a fixed tick.
 */
import { describe, expect, it } from 'vitest'
import type { OrderPlan } from '../../../src/bot/quoting/orderPlan.ts'
import type { StrategySnapshot } from '../../../src/strategy/strategy.ts'
import { type Harness, harness, margin, nothing, oneBid } from './helpers.ts'

/** Moves the simulated clock in 100 ms steps (timers due inside one increment fire at its end). */
function advance(h: Harness, ms: number): void {
  for (let left = ms; left > 0; left -= 100) h.clock.increment(Math.min(100, left))
}

const planTimes = (h: Harness): number[] => h.snapshots.map((s) => s.now)

describe('instrument machine: wakes only when something is due', () => {
  it('never re-asks a strategy whose quotes time cannot change while nothing else is due', () => {
    const h = harness(nothing, { revisitAt: () => undefined })
    h.feedAll()
    const plans = h.snapshots.length
    // 14 s: the index (15 s staleness bound) is still fresh, no orders rest, no BBO waits.
    advance(h, 14_000)
    expect(h.snapshots.length).toBe(plans)
    expect(h.value()).toMatchObject({ active: expect.anything() })
  })

  it('re-asks at the time the strategy names, not before', () => {
    const h = harness(nothing, { revisitAt: (s) => s.now + 5_000 })
    h.feedAll()
    const t0 = h.clock.now()
    const plans = h.snapshots.length
    advance(h, 4_900)
    expect(h.snapshots.length).toBe(plans)
    advance(h, 100)
    expect(planTimes(h).slice(plans)).toEqual([t0 + 5_000])
  })

  it('without a revisitAt re-asks every tick, as before', () => {
    const h = harness(nothing)
    h.feedAll()
    const t0 = h.clock.now()
    const plans = h.snapshots.length
    advance(h, 3_000)
    expect(planTimes(h).slice(plans)).toEqual([t0 + 1_000, t0 + 2_000, t0 + 3_000])
  })

  it('plans when a resting order reaches maxOrderAgeMs, lazily (time alone)', async () => {
    let first = true
    let placedAt = 0
    // The quote diff refreshes an order at its maximum age: stand-in, the same bid again then.
    const plan = (s: StrategySnapshot): OrderPlan => {
      if (first) {
        first = false
        return oneBid()
      }
      return s.now - placedAt >= 120_000 ? oneBid() : nothing()
    }
    const h = harness(plan, { revisitAt: () => undefined })
    h.feedAll()
    await h.resolveSubmit()
    placedAt = h.clock.now()
    const plans = h.snapshots.length
    // Keep the inputs fresh with unchanged values (they plan nothing) until the order's maximum age.
    for (let t = 10_000; t < 120_000; t += 10_000) {
      advance(h, 10_000)
      const now = h.clock.now()
      h.actor.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
      h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
    }
    expect(h.snapshots.length).toBe(plans + 1) // the results' re-plan only
    advance(h, placedAt + 120_000 - h.clock.now())
    expect(h.snapshots.length).toBe(plans + 2)
    expect(h.snapshots.at(-1)?.now).toBe(placedAt + 120_000)
    // Only time moved: the refresh may wait to share a batch.
    expect(h.submitted.at(-1)?.lazy).toBe(true)
    expect(h.submitted).toHaveLength(2)
  })

  it('plans a tick after the first best bid/offer since the last plan, whatever follows it', () => {
    const h = harness(nothing, { revisitAt: () => undefined })
    h.feedAll()
    const plans = h.snapshots.length
    advance(h, 500)
    const first = h.clock.now()
    const bbo = (bid: string) => ({
      type: 'BBO' as const,
      bbo: { bid: { price: bid, qty: '1' }, ask: { price: '50100', qty: '1' } },
      receivedAt: h.clock.now(),
    })
    h.actor.send(bbo('49900'))
    for (let i = 0; i < 9; i++) {
      advance(h, 100)
      h.actor.send(bbo(String(49_901 + i)))
    }
    expect(h.snapshots.length).toBe(plans)
    advance(h, 100)
    expect(planTimes(h).slice(plans)).toEqual([first + 1_000])
    expect(h.snapshots.at(-1)?.bbo?.bid?.price).toBe('49909')
    advance(h, 5_000)
    expect(h.snapshots.length).toBe(plans + 1)
  })

  it('plans nothing for the same touch repeated, unless pushes had paused for over two ticks', () => {
    const h = harness(nothing, { revisitAt: () => undefined })
    h.feedAll()
    const touch = () => ({
      type: 'BBO' as const,
      bbo: { bid: { price: '49900', qty: '1' }, ask: { price: '50100', qty: '1' } },
      receivedAt: h.clock.now(),
    })
    h.actor.send(touch())
    advance(h, 1_000)
    const plans = h.snapshots.length // the first touch was new: planned a tick later
    for (let i = 0; i < 10; i++) {
      advance(h, 1_000)
      h.actor.send(touch())
    }
    advance(h, 1_000)
    expect(h.snapshots.length).toBe(plans)
    expect(h.actor.getSnapshot().context.bbo?.receivedAt).toBe(h.clock.now() - 1_000)
    advance(h, 2_000) // 3 s without a push: a strategy may have stopped trusting the touch
    const paused = h.clock.now()
    h.actor.send(touch())
    advance(h, 1_000)
    expect(planTimes(h).slice(plans)).toEqual([paused + 1_000])
  })

  it('halts the moment the index turns stale, without any other input', () => {
    const h = harness(nothing, { revisitAt: () => undefined })
    h.feedAll()
    const t0 = h.clock.now()
    advance(h, 15_000)
    expect(h.value()).toMatchObject({ active: expect.anything() })
    h.clock.increment(1)
    expect(h.value()).toMatchObject({ halted: expect.anything() })
    expect(h.actor.getSnapshot().context.assessment.reason).toMatch(/index stale/)
    expect(h.clock.now()).toBe(t0 + 15_001)
  })
})
