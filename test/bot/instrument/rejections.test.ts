/**
 * Rejection storms on the instrument machine (SimulatedClock): plans the venue keeps rejecting back
 * off exponentially up to a cap, degrade the instrument once (`rejections`), and the first plan with
 * an accepted item ends the episode.
 */
import { describe, expect, it } from 'vitest'
import { degradations } from '../../../src/bot/instrument/instrument.machine.ts'
import {
  MAX_CREATE_REJECT_BACKOFF_MS,
  MAX_REJECT_BACKOFF_MS,
  rejectBackoff,
  resultsStep,
} from '../../../src/bot/instrument/results.ts'
import type { OrderPlan, PlanOutcome } from '../../../src/bot/quoting/orderPlan.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { restingOrder } from '../../helpers/orders.ts'
import { type Harness, harness, margin, oneBid } from './helpers.ts'

/** Every item refused: by the venue's per-order rules (`err`), or the whole request (`failed`). */
const rejectAll =
  (error: string, request = false) =>
  (p: OrderPlan): PlanOutcome => {
    const refused = () =>
      request ? { status: 'failed' as const, error: new Error(error) } : { status: 'err' as const, error }
    return { modify: p.modify.map(refused), create: p.create.map(refused), cancel: p.cancel.map(refused) }
  }

/** Advances to exactly `at` in steps of at most 1 s, refreshing index and margin every 5 s. */
function advanceTo(h: Harness, at: number): void {
  let lastRefresh = h.clock.now()
  for (let i = 0; i < 10_000 && h.clock.now() < at; i++) {
    h.clock.increment(Math.min(1_000, at - h.clock.now()))
    const now = h.clock.now()
    if (now - lastRefresh >= 5_000) {
      lastRefresh = now
      h.actor.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
      h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
    }
  }
}

const ctx = (h: Harness) => h.actor.getSnapshot().context

describe('rejectBackoff', () => {
  it('doubles per rejected plan in a row from the base, up to the cap; none without a streak', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100].map((n) => rejectBackoff(1_000, n))).toEqual([
      0, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ])
    expect(rejectBackoff(50_000, 1)).toBe(MAX_REJECT_BACKOFF_MS)
  })
})

describe('instrument machine: a rejection storm', () => {
  it('backs off exponentially between plans, degrades once, and the first accepted order ends the episode', async () => {
    const h = harness(oneBid)
    h.feedAll()
    const t0 = h.clock.now()
    const gaps: number[] = []
    let last = t0
    for (let n = 1; n <= 7; n++) {
      expect(h.submitted).toHaveLength(n)
      await h.resolveSubmit(rejectAll('insufficient_margin'))
      const pause = ctx(h).backoffUntil - h.clock.now()
      // Every create refused: the longer cap for doomed creates (issue 24).
      expect(pause).toBe(rejectBackoff(1_000, n, MAX_CREATE_REJECT_BACKOFF_MS))
      expect(ctx(h).rejectStreak).toBe(n)
      // Nothing is planned before the pause ends (inputs keep arriving), and the next plan comes at its end.
      advanceTo(h, ctx(h).backoffUntil - 1)
      expect(h.submitted).toHaveLength(n)
      advanceTo(h, h.clock.now() + 1)
      expect(h.submitted).toHaveLength(n + 1)
      gaps.push(h.clock.now() - last)
      last = h.clock.now()
    }
    expect(gaps).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000])
    // Three all-rejected plans in a row open one episode; the four after it raise nothing more.
    expect(h.emitted).toEqual([
      {
        type: 'degraded',
        instrumentId: 7,
        symbol: 'BTC-USDC',
        cause: 'rejections',
        reason: 'the venue rejected every order of the plan: insufficient_margin',
        at: t0 + 3_000,
      },
    ])
    expect(degradations(ctx(h).health)).toEqual([
      {
        cause: 'rejections',
        since: t0 + 3_000,
        reason: 'the venue rejected every order of the plan: insufficient_margin',
      },
    ])
    expect(h.logs.filter((l) => l.startsWith('order rejected:'))).toHaveLength(7)
    expect(h.logs).toContain('backing off 64000 ms after 7 rejected plan(s) in a row')
    expect(ctx(h).stats.rejected).toBe(7)
    // The venue accepts again: one `recovered`, the backoff is reset.
    await h.resolveSubmit()
    expect(h.emitted).toHaveLength(2)
    expect(h.emitted[1]).toEqual({
      type: 'recovered',
      instrumentId: 7,
      symbol: 'BTC-USDC',
      cause: 'rejections',
      since: t0 + 3_000,
      at: h.clock.now(),
    })
    expect(ctx(h)).toMatchObject({ backoffUntil: 0, backoffMs: 0, rejectStreak: 0 })
    expect(degradations(ctx(h).health)).toEqual([])
  })

  it('a plan with an accepted item is not a storm (but its rejection still backs off)', async () => {
    const twoBids = (): OrderPlan => ({
      modify: [],
      create: [
        { iid: 7, buy: true, p: '49990', qty: '0.01' },
        { iid: 7, buy: true, p: '49980', qty: '0.01' },
      ],
      cancel: [],
    })
    const h = harness(twoBids)
    h.feedAll()
    for (let n = 1; n <= 5; n++) {
      await h.resolveSubmit(() => ({
        modify: [],
        create: [
          { status: 'ok', oid: 100 + n },
          { status: 'err', error: 'price_outside_bounds' },
        ],
        cancel: [],
      }))
      expect(ctx(h).backoffMs).toBe(rejectBackoff(1_000, n))
      advanceTo(h, ctx(h).backoffUntil)
    }
    expect(h.emitted).toEqual([])
  })

  it('request-level refusals back off but do not count as domain rejections', async () => {
    const h = harness(oneBid)
    h.feedAll()
    for (let n = 1; n <= 4; n++) {
      await h.resolveSubmit(rejectAll('account not found for proxy', true))
      expect(ctx(h).backoffMs).toBe(rejectBackoff(1_000, n))
      advanceTo(h, ctx(h).backoffUntil)
    }
    expect(h.submitted).toHaveLength(5)
    expect(h.emitted).toEqual([])
    expect(ctx(h).health.rejections.streak).toBe(0)
  })

  it('a modified post-only order that crossed and left the book is a domain rejection', async () => {
    const resting: Order = restingOrder(5)
    const h = harness((s) =>
      s.openOrders.length > 0
        ? { modify: [{ oid: 5, p: '50010', qty: '0.01' }], create: [], cancel: [] }
        : { modify: [], create: [], cancel: [] },
    )
    h.feedAll()
    for (let n = 1; n <= 3; n++) {
      h.actor.send({ type: 'ORDERS', orders: [resting], receivedAt: h.clock.now() })
      advanceTo(h, Math.max(ctx(h).backoffUntil, h.clock.now() + 250))
      expect(h.submitted).toHaveLength(n)
      await h.resolveSubmit(() => ({
        modify: [{ status: 'ok', order: { ...resting, p: '50010', status: 'post_only_rejected' } }],
        create: [],
        cancel: [],
      }))
      expect(ctx(h).openOrders).toEqual([])
    }
    expect(ctx(h).stats.rejected).toBe(3)
    expect(h.emitted.map((e) => [e.type, e.cause])).toEqual([['degraded', 'rejections']])
  })
})

describe('after a liquidation: every create refused while cancels go through (issue 24)', () => {
  it('backs off the doomed creates past 30 s and opens the rejections episode with the reason', () => {
    const h = harness(oneBid)
    h.feedAll()
    let c = ctx(h)
    const changes: unknown[] = []
    let now = h.clock.now()
    for (let n = 1; n <= 8; n++) {
      const step = resultsStep(
        c,
        {
          orders: [],
          rejected: [
            'create buy 0.01@50000: insufficient_margin',
            'create sell 0.01@50100: insufficient_margin',
          ],
          domain: ['insufficient_margin', 'insufficient_margin'],
          // The plan's cancel of a stale order went through: not a sign the venue is fine.
          accepted: 1,
          gone: [],
          unknown: 0,
          creates: { tried: 2, accepted: 0, domain: ['insufficient_margin', 'insufficient_margin'] },
        },
        now,
      )
      c = { ...c, ...step.update }
      changes.push(...step.changes)
      now += c.backoffMs
    }
    expect(c.backoffMs).toBe(rejectBackoff(1_000, 8, MAX_CREATE_REJECT_BACKOFF_MS))
    expect(c.backoffMs).toBeGreaterThan(MAX_REJECT_BACKOFF_MS)
    expect(JSON.stringify(changes)).toContain(
      'the venue rejected every create of the plan: insufficient_margin ×2',
    )
  })
})
