/**
 * A strategy that lists the optional inputs it reads (`Strategy.reads`) is not asked again when only
 * another one changes: the actor stores it (for the next snapshot and the risk assessment) and plans
 * nothing. Position (size, entry), liquidation and the index always plan; a liquidation price alone is
 * a margin number (`equity`); without a list every input does.
 */
import { describe, expect, it } from 'vitest'
import type { StrategyMargin } from '../../../src/strategy/strategy.ts'
import { type Harness, harness, margin, nothing } from './helpers.ts'

const richer = (m: StrategyMargin): StrategyMargin => ({ ...m, accountValue: '1250.5' })

function account(h: Harness, m: StrategyMargin, size?: string, liquidationPrice = '0'): void {
  const now = h.clock.now()
  h.actor.send({
    type: 'ACCOUNT',
    margin: m,
    position: size === undefined ? undefined : { size, entryPrice: '50000', liquidationPrice },
    receivedAt: now,
  })
}

/** Past the reprice interval, so a plan is not merely deferred. */
const later = (h: Harness): void => h.clock.increment(300)

describe('instrument machine: inputs the strategy does not read', () => {
  it('a new account value alone plans nothing for a strategy that does not read equity', () => {
    const h = harness(nothing, { revisitAt: () => undefined, reads: ['bbo'] })
    h.feedAll()
    const plans = h.snapshots.length
    later(h)
    account(h, richer(margin(0.1)))
    expect(h.snapshots).toHaveLength(plans)
    // Stored all the same: the next plan sees it.
    h.actor.send({ type: 'INDEX', index: { price: '50010', ts: h.clock.now() }, receivedAt: h.clock.now() })
    expect(h.snapshots).toHaveLength(plans + 1)
    expect(h.snapshots.at(-1)?.margin.accountValue).toBe('1250.5')
  })

  it('a strategy that reads equity, or declares nothing, is asked again', () => {
    for (const reads of [['equity'] as const, undefined]) {
      const h = harness(nothing, { revisitAt: () => undefined, reads })
      h.feedAll()
      const plans = h.snapshots.length
      later(h)
      account(h, richer(margin(0.1)))
      expect(h.snapshots).toHaveLength(plans + 1)
    }
  })

  it('a liquidation price alone moving (a margin number) plans only for a strategy that reads equity', () => {
    for (const [reads, replans] of [
      [['bbo'] as const, false],
      [['equity'] as const, true],
    ] as const) {
      const h = harness(nothing, { revisitAt: () => undefined, reads })
      h.feedAll()
      later(h)
      account(h, margin(0.1), '0.5', '30000')
      const plans = h.snapshots.length
      later(h)
      account(h, margin(0.1), '0.5', '30010')
      expect(h.snapshots).toHaveLength(replans ? plans + 1 : plans)
      // Stored all the same: the next plan sees it.
      h.actor.send({ type: 'INDEX', index: { price: '50020', ts: h.clock.now() }, receivedAt: h.clock.now() })
      expect(h.snapshots.at(-1)?.position?.liquidationPrice).toBe('30010')
    }
  })

  it('a position change or a liquidation flag plans whatever the strategy reads', () => {
    const h = harness(nothing, { revisitAt: () => undefined, reads: [] })
    h.feedAll()
    const plans = h.snapshots.length
    later(h)
    account(h, margin(0.1), '0.5')
    expect(h.snapshots).toHaveLength(plans + 1)
    later(h)
    account(h, margin(0.1, true), '0.5')
    // In liquidation the actor halts (and cancels) instead of asking the strategy: the mode changed.
    expect(h.value()).toMatchObject({ halted: expect.anything() })
  })

  it('statistics and a changed best bid/offer plan nothing for a strategy that reads neither', () => {
    const h = harness(nothing, { revisitAt: () => undefined, reads: ['equity'] })
    h.feedAll()
    const plans = h.snapshots.length
    later(h)
    const now = h.clock.now()
    h.actor.send({
      type: 'STATISTICS',
      statistics: { volume: '99', openPrice: '48000', klines: [] },
      receivedAt: now,
    })
    h.actor.send({
      type: 'BBO',
      bbo: { bid: { price: '49990', qty: '1' }, ask: { price: '50010', qty: '1' } },
      receivedAt: now,
    })
    h.clock.increment(2_000)
    expect(h.snapshots).toHaveLength(plans)
  })

  it('the same statistics and BBO plan for a strategy that reads them', () => {
    const h = harness(nothing, { revisitAt: () => undefined, reads: ['statistics', 'bbo'] })
    h.feedAll()
    const plans = h.snapshots.length
    later(h)
    h.actor.send({
      type: 'STATISTICS',
      statistics: { volume: '99', openPrice: '48000', klines: [] },
      receivedAt: h.clock.now(),
    })
    expect(h.snapshots).toHaveLength(plans + 1)
    later(h)
    h.actor.send({
      type: 'BBO',
      bbo: { bid: { price: '49990', qty: '1' }, ask: { price: '50010', qty: '1' } },
      receivedAt: h.clock.now(),
    })
    h.clock.increment(1_000)
    expect(h.snapshots).toHaveLength(plans + 2)
  })

  it('statistics are no input at all for a strategy that does not read them: it quotes without, and never halts for their age', () => {
    for (const reads of [['bbo'] as const, undefined]) {
      const h = harness(nothing, { revisitAt: () => undefined, reads })
      const now = h.clock.now()
      h.actor.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
      h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
      h.actor.send({ type: 'ORDERS', orders: [], receivedAt: now })
      // Without a list every input is read: the actor waits for its statistics.
      if (reads === undefined) expect(h.value()).toBe('syncing')
      else expect(h.value()).toMatchObject({ active: expect.anything() })
    }
    const h = harness(nothing, { revisitAt: () => undefined, reads: ['bbo'] })
    h.feedAll()
    // Keep index and margin fresh past the statistics' 180 s staleness bound: still quoting.
    for (let t = 0; t < 200_000; t += 10_000) {
      h.clock.increment(10_000)
      const now = h.clock.now()
      h.actor.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
      h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
    }
    expect(h.value()).toMatchObject({ active: expect.anything() })
  })
})
