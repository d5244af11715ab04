/**
 * `SETTLE` in place of `always` transitions (issues 36, 37): the state follows the context whenever a
 * step leaves it behind, including the cases where the plan or the mode was decided in another state.
 */
import { describe, expect, it } from 'vitest'
import { harness, margin, oneBid } from './helpers.ts'

describe('the state follows the context (SETTLE)', () => {
  it('a plan made while syncing (the orders not yet read) is sent once the actor is active', () => {
    const h = harness(oneBid)
    const now = h.clock.now()
    h.actor.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
    h.actor.send({
      type: 'STATISTICS',
      statistics: { volume: '10', openPrice: '49000', klines: [] },
      receivedAt: now,
    })
    h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
    expect(h.value()).toBe('syncing')
    expect(h.actor.getSnapshot().context.pendingPlan).toBeDefined()
    expect(h.submitted).toHaveLength(0)
    h.actor.send({ type: 'ORDERS', orders: [], receivedAt: now })
    expect(h.value()).toEqual({ active: { risk: 'normal', work: 'repricing' } })
    expect(h.submitted).toHaveLength(1)
  })

  it('one input that both widens and plans moves both regions, the plan made in the new mode', async () => {
    const h = harness((s) => (s.mode === 'widened' ? oneBid() : { modify: [], create: [], cancel: [] }))
    h.feedAll()
    expect(h.value()).toMatchObject({ active: { risk: 'normal', work: 'quoting' } })
    const now = h.clock.now()
    h.actor.send({ type: 'ACCOUNT', margin: margin(0.55), position: undefined, receivedAt: now })
    expect(h.value()).toEqual({ active: { risk: 'widened', work: 'repricing' } })
    expect(h.submitted).toHaveLength(1)
    expect(h.logs.filter((l) => l.startsWith('risk mode normal → widened'))).toHaveLength(1)
  })

  it('a resume straight into a raised mode enters normal, then the raised mode, logging both', () => {
    const h = harness(() => ({ modify: [], create: [], cancel: [] }))
    h.feedAll({ ratio: 0.1, inLiquidation: true })
    expect(h.value()).toEqual({ halted: 'idle' })
    h.clock.increment(11_000) // past the halt's minimum dwell
    h.feedAll({ ratio: 0.55 })
    expect(h.value()).toMatchObject({ active: { risk: 'widened', work: 'quoting' } })
    expect(h.logs.some((l) => l.startsWith('risk mode halted → normal'))).toBe(true)
    expect(h.logs.some((l) => l.startsWith('risk mode normal → widened'))).toBe(true)
  })
})
