import { describe, expect, it } from 'vitest'
import { instrumentStatus } from '../../../src/bot/observe/statusView.ts'
import { createPlanFn } from '../../../src/bot/quoting/planFunction.ts'
import type { StrategyBbo } from '../../../src/strategy/strategy.ts'
import { strategy as indexPeg } from '../../../strategies/indexPeg.ts'
import { harness, nothing, oneBid } from './helpers.ts'

const touch = (bid: string, ask: string): StrategyBbo => ({
  bid: { price: bid, qty: '2' },
  ask: { price: ask, qty: '3' },
})

describe('instrument machine: best bid and offer', () => {
  it('stores a BBO with its receive time and hands it to the next plan, without planning on it', async () => {
    const h = harness(oneBid)
    h.feedAll()
    await h.resolveSubmit()
    const plans = h.snapshots.length
    const at = h.clock.now()
    h.actor.send({ type: 'BBO', bbo: touch('49990', '50010'), receivedAt: at })
    expect(h.snapshots.length).toBe(plans) // a BBO alone plans nothing
    expect(h.actor.getSnapshot().context.bbo).toEqual({ ...touch('49990', '50010'), receivedAt: at })
    h.clock.increment(1_000) // the tick plans, and sees it, 1 s old
    expect(h.snapshots.length).toBe(plans + 1)
    const snap = h.snapshots.at(-1)
    expect(snap?.bbo).toEqual({ ...touch('49990', '50010'), receivedAt: at })
    expect((snap?.now ?? 0) - (snap?.bbo?.receivedAt ?? 0)).toBe(1_000)
    // /status shows its age beside the index's.
    const view = { id: 1, symbol: 'X', strategy: 's', actor: h.actor.getSnapshot() }
    expect(instrumentStatus(view, at + 2_500).details?.bboAgeMs).toBe(2_500)
    expect(instrumentStatus(harnessView(), at).details?.bboAgeMs).toBeNull()
  })

  it('keeps a BBO that arrives while syncing (not a required input) and drops one older than the stored one', () => {
    const h = harness(nothing)
    const t0 = h.clock.now()
    h.actor.send({ type: 'BBO', bbo: touch('1', '2'), receivedAt: t0 })
    expect(h.value()).toBe('syncing')
    h.actor.send({ type: 'BBO', bbo: touch('3', '4'), receivedAt: t0 - 1 }) // out of order
    expect(h.actor.getSnapshot().context.bbo?.bid?.price).toBe('1')
    h.feedAll()
    expect(h.snapshots[0]?.bbo?.bid?.price).toBe('1')
    h.actor.send({ type: 'BBO', bbo: touch('5', '6'), receivedAt: t0 }) // same time: the newer push wins
    expect(h.actor.getSnapshot().context.bbo?.bid?.price).toBe('5')
  })

  it('a stream of BBOs adds no plan: the reprice interval and the tick decide', async () => {
    const run = async (withBbo: boolean): Promise<number> => {
      const h = harness(nothing)
      h.feedAll()
      const start = h.snapshots.length
      for (let i = 0; i < 300; i++) {
        h.clock.increment(10)
        if (withBbo) {
          const p = String(50_000 + (i % 7))
          h.actor.send({ type: 'BBO', bbo: touch(p, String(50_010 + (i % 5))), receivedAt: h.clock.now() })
        }
        if (i % 100 === 0) {
          h.actor.send({
            type: 'INDEX',
            index: { price: '50001', ts: h.clock.now() },
            receivedAt: h.clock.now(),
          })
        }
      }
      return h.snapshots.length - start
    }
    const quiet = await run(false)
    expect(quiet).toBeGreaterThan(0)
    expect(await run(true)).toBe(quiet)
  })

  it('with index-peg: a fresh BBO keeps the created bid below the best ask; a stale one is ignored', async () => {
    const params = indexPeg.paramsSchema.parse({
      size: '0.01',
      positionCap: '1',
      halfSpreadBps: 10,
      skewBps: 0,
    })
    const plan = createPlanFn(
      { quote: (s) => indexPeg.quote(s, params) },
      { priceTicks: 0, priceBps: 0, maxOrderAgeMs: 120_000 },
    )
    const h = harness(plan)
    // Index 50000 → bid 49950, ask 50050; the book's ask is at 49900.
    h.actor.send({ type: 'BBO', bbo: touch('49850', '49900'), receivedAt: h.clock.now() })
    h.feedAll()
    const first = h.submitted[0]?.plan.create ?? []
    expect(first.map((c) => `${c.buy ? 'buy' : 'sell'}@${c.p}`)).toEqual(['buy@49899', 'sell@50050'])
    await h.resolveSubmit()
    // 6 s later (past maxBboAgeMs 5 s), with no new BBO: the bid goes back to the index peg.
    h.clock.increment(6_000)
    h.feedAll()
    const repriced = h.submitted.at(-1)?.plan
    expect(repriced?.modify.map((m) => m.p)).toEqual(['49950'])
  })
})

function harnessView(): Parameters<typeof instrumentStatus>[0] {
  return { id: 2, symbol: 'Y', strategy: 's', actor: harness(nothing).actor.getSnapshot() }
}
