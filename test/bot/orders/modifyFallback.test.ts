/**
 * The modify fallback: when the venue refuses our modifyOrders signature while creates and cancels
 * verify, the order path alerts once and reprices each modify as cancel + create, reporting the pair
 * as the modify's one result (the instrument machine's plan contract is unchanged).
 */

import { describe, expect, it } from 'vitest'
import type { Alert } from '../../../src/alerts/alert.ts'
import { applyOutcome } from '../../../src/bot/instrument/results.ts'
import { isSignatureRejection, ModifyCapability } from '../../../src/bot/orders/modifyCapability.ts'
import { createOrderDesk } from '../../../src/bot/orders/orderDesk.ts'
import type { OrderPlan } from '../../../src/bot/quoting/orderPlan.ts'
import { systemClock } from '../../../src/clock.ts'
import { RateLimitError, RequestRejectedError } from '../../../src/errors.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { CreateOrderInput, Order } from '../../../src/perps/schemas/orders.ts'
import { loadSettings } from '../../../src/settings/load.ts'
import { type LegacyBatchSend, legacyBatchSend } from '../../helpers/admission.ts'

const badSig = () => new RequestRejectedError('/v1/trade/orders', 400, 'account not found for proxy')

describe('ModifyCapability', () => {
  it('switches once: a modify refused as a bad signature while creates or cancels verify', () => {
    const c = new ModifyCapability()
    // A refused modify alone is not enough (the key itself may be bad).
    expect(c.observe({ type: 'modifyOrders', outcome: 'error', error: badSig() }, 1)).toBe(false)
    expect(c.mode).toBe('modify')
    expect(c.observe({ type: 'createOrders', outcome: 'ok' }, 2)).toBe(true)
    expect(c.state()).toEqual({
      mode: 'cancel+create',
      signatureRejections: 1,
      since: 2,
      reason: '/v1/trade/orders rejected with 400 account not found for proxy',
    })
    // Never again, whatever follows.
    expect(c.observe({ type: 'modifyOrders', outcome: 'error', error: badSig() }, 3)).toBe(false)
    expect(c.observe({ type: 'cancelOrders', outcome: 'ok' }, 4)).toBe(false)
    expect(c.state().since).toBe(2)
  })

  it('stays on modify when the refusal is not about the signature, when every command is refused, or after a modify verified', () => {
    const other = new ModifyCapability()
    other.observe({ type: 'cancelOrders', outcome: 'ok' }, 1)
    other.observe(
      { type: 'modifyOrders', outcome: 'error', error: new RateLimitError('/x', 'rate_limited', 1) },
      2,
    )
    other.observe(
      { type: 'modifyOrders', outcome: 'error', error: new RequestRejectedError('/x', 400, 'invalid price') },
      3,
    )
    expect(other.mode).toBe('modify')

    const broken = new ModifyCapability()
    broken.observe({ type: 'createOrders', outcome: 'error', error: badSig() }, 1)
    broken.observe({ type: 'modifyOrders', outcome: 'error', error: badSig() }, 2)
    expect(broken.mode).toBe('modify')

    const flaky = new ModifyCapability()
    flaky.observe({ type: 'modifyOrders', outcome: 'error', error: badSig() }, 1)
    flaky.observe({ type: 'modifyOrders', outcome: 'ok' }, 2)
    flaky.observe({ type: 'createOrders', outcome: 'ok' }, 3)
    expect(flaky.mode).toBe('modify')
  })

  it('recognises signature refusals by status and text', () => {
    expect(isSignatureRejection(badSig())).toBe(true)
    expect(isSignatureRejection(new RequestRejectedError('/x', 401, 'invalid signature'))).toBe(true)
    expect(isSignatureRejection(new RequestRejectedError('/x', 500, 'invalid signature'))).toBe(false)
    expect(isSignatureRejection(new Error('invalid signature'))).toBe(false)
  })
})

/** A venue (admitted at once, as the request gate would) that refuses every modify as a bad signature and keeps a book for creates and cancels. */
function fakeVenue(opts: { rejectCreatesAt?: string } = {}) {
  const sent: { type: string; items: unknown[] }[] = []
  const book = new Map<number, CreateOrderInput>()
  let nextOid = 100
  const send: LegacyBatchSend = {
    async modifyOrders(items, o) {
      await o.onAdmitted()
      sent.push({ type: 'modifyOrders', items: [...items] })
      throw badSig()
    },
    async createOrders(items, o) {
      await o.onAdmitted()
      sent.push({ type: 'createOrders', items: [...items] })
      return items.map((i) => {
        if (i.p === opts.rejectCreatesAt) return { status: 'err' as const, error: 'insufficient_margin' }
        const oid = nextOid++
        book.set(oid, i)
        return { status: 'ok' as const, oid }
      })
    },
    async cancelOrders(oids, o) {
      await o.onAdmitted()
      sent.push({ type: 'cancelOrders', items: [...oids] })
      return oids.map((oid) =>
        book.delete(oid)
          ? { status: 'ok' as const, oid }
          : { status: 'err' as const, error: 'order_not_found' },
      )
    },
  }
  return {
    sent,
    book,
    perps: {
      admitted: legacyBatchSend(send),
      cancelAll: async () => ({ status: 'ok' as const }),
      // The gateway's own cancels by id (foreign orders resting, or at exit) may go at exit priority.
      cancelOrders: (oids: readonly number[], o: { signal: AbortSignal }) =>
        send.cancelOrders(oids, { ...o, priority: 'risk', onAdmitted: async () => undefined }),
    },
  }
}

function path(venue: ReturnType<typeof fakeVenue>) {
  const alerts: Alert[] = []
  const { settings } = loadSettings({
    configDir: 'config',
    mode: 'dry-run',
    overrides: { 'batcher.windowMs': 0 },
    env: {},
  })
  const p = createOrderDesk({
    perps: venue.perps,
    openOrders: { reconcile: async () => undefined },
    settings,
    clock: systemClock,
    logger: createLogger({ level: 'silent', pretty: 'never' }),
    alerts: { send: (a) => void alerts.push(a) },
  })
  return { ...p, alerts }
}

const resting = (oid: number, buy: boolean, p: string): Order => ({
  oid,
  iid: 7,
  buy,
  p,
  qty: '0.01',
  tif: 'gtc',
  po: true,
  ro: false,
  rest: '0.01',
  fill: '0',
  cts: 1,
  uts: 1,
  status: 'open',
})

describe('the order path with a venue that refuses our modify signature', () => {
  it('alerts once and reprices by cancel + create, reported as the modify results', async () => {
    const venue = fakeVenue()
    const p = path(venue)
    const quote: OrderPlan = {
      modify: [],
      create: [
        { iid: 7, buy: true, p: '99.5', qty: '0.01', po: true, tif: 'gtc' },
        { iid: 7, buy: false, p: '100.5', qty: '0.01', po: true, tif: 'gtc' },
      ],
      cancel: [],
    }
    const first = await p.gateway.submitPlan({ instrumentId: 7, plan: quote, priority: 'quote' })
    expect(first.create).toEqual([
      { status: 'ok', oid: 100 },
      { status: 'ok', oid: 101 },
    ])
    let orders = [resting(100, true, '99.5'), resting(101, false, '100.5')]
    const reprice = (bid: string, ask: string, oids: [number, number]): OrderPlan => ({
      modify: [
        { oid: oids[0], p: bid, qty: '0.01' },
        { oid: oids[1], p: ask, qty: '0.02' },
      ],
      create: [],
      cancel: [],
    })
    // The refused modify: a request-level failure, orders untouched; the fallback starts.
    const refused = await p.gateway.submitPlan({
      instrumentId: 7,
      plan: reprice('99.6', '100.4', [100, 101]),
      priority: 'quote',
      openOrders: orders,
    })
    expect(refused.modify.map((r) => [r.status, r.status === 'failed' ? r.error.message : ''])).toEqual([
      ['failed', '/v1/trade/orders rejected with 400 account not found for proxy'],
      ['failed', '/v1/trade/orders rejected with 400 account not found for proxy'],
    ])
    expect(p.modify.state().mode).toBe('cancel+create')
    expect(p.alerts.map((a) => a.key)).toEqual(['modify-fallback'])

    // Every later reprice: cancel, then create of the same side and flags at the new price/qty.
    for (const [n, bid] of ['99.7', '99.8'].entries()) {
      const plan = reprice(bid, '100.3', [orders[0]?.oid ?? 0, orders[1]?.oid ?? 0])
      const before = venue.sent.length
      const outcome = await p.gateway.submitPlan({
        instrumentId: 7,
        plan,
        priority: 'quote',
        openOrders: orders,
      })
      const base = 102 + 2 * n
      expect(outcome.modify).toEqual([
        { status: 'replaced', create: { status: 'ok', oid: base } },
        { status: 'replaced', create: { status: 'ok', oid: base + 1 } },
      ])
      expect(venue.sent.slice(before).map((s) => s.type)).toEqual(['cancelOrders', 'createOrders'])
      expect(venue.sent.at(-1)?.items).toEqual([
        { iid: 7, buy: true, p: bid, qty: '0.01', tif: 'gtc', po: true },
        { iid: 7, buy: false, p: '100.3', qty: '0.02', tif: 'gtc', po: true },
      ])
      // The actor's order set follows: the new oids at the new prices, the old ones gone.
      orders = applyOutcome(orders, plan, outcome, 7, 5).orders
      expect(orders.map((o) => [o.oid, o.buy, o.p, o.qty, o.rest])).toEqual([
        [base, true, bid, '0.01', '0.01'],
        [base + 1, false, '100.3', '0.02', '0.02'],
      ])
    }
    expect([...venue.book.keys()]).toEqual([104, 105])
    expect(p.alerts).toHaveLength(1)
    expect(p.alerts[0]).toMatchObject({ key: 'modify-fallback', severity: 'warning' })
    await p.batcher.stop()
  })

  it('a gone order is not recreated; a refused create after the cancel drops the old order', async () => {
    const venue = fakeVenue({ rejectCreatesAt: '1' })
    const p = path(venue)
    await p.gateway.submitPlan({
      instrumentId: 7,
      plan: { modify: [], create: [{ iid: 7, buy: true, p: '99.5', qty: '0.01', po: true }], cancel: [] },
      priority: 'quote',
    })
    await p.gateway.submitPlan({
      instrumentId: 7,
      plan: { modify: [{ oid: 100, p: '99.6', qty: '0.01' }], create: [], cancel: [] },
      priority: 'quote',
    })
    expect(p.modify.mode).toBe('cancel+create')
    const orders = [resting(100, true, '99.5'), resting(55, true, '98')]
    const plan: OrderPlan = {
      modify: [
        { oid: 100, p: '1', qty: '0.01' },
        { oid: 55, p: '97', qty: '0.01' },
      ],
      create: [],
      cancel: [],
    }
    const outcome = await p.gateway.submitPlan({
      instrumentId: 7,
      plan,
      priority: 'quote',
      openOrders: orders,
    })
    expect(outcome.modify).toEqual([
      { status: 'replaced', create: { status: 'err', error: 'insufficient_margin' } },
      { status: 'err', error: 'order_not_found' },
    ])
    // Only the cancelled order was recreated (and refused); nothing for the gone one.
    expect(venue.sent.filter((s) => s.type === 'createOrders').at(-1)?.items).toEqual([
      { iid: 7, buy: true, p: '1', qty: '0.01', tif: 'gtc', po: true },
    ])
    const applied = applyOutcome(orders, plan, outcome, 7, 5)
    expect(applied.orders).toEqual([])
    expect(applied.domain).toEqual(['insufficient_margin'])
    expect(applied.gone).toEqual([55])
    await p.batcher.stop()
  })
})
