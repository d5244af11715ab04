/**
 * Matching on a plain state, without signatures, HTTP or the façade: the functions of matching.ts
 * called directly on a state built by createState.
 */
import { describe, expect, it } from 'vitest'
import { toTicks } from '../../../src/decimal.ts'
import { ensureAccount } from '../../../src/mock/perps/account/accounts.ts'
import { MockRejection } from '../../../src/mock/perps/errors.ts'
import { setMarketPrice } from '../../../src/mock/perps/market/market.ts'
import {
  cancelAllOrders,
  cancelOrder,
  checkOpenOrderCap,
  fillResting,
  modifyOrder,
  placeOrder,
} from '../../../src/mock/perps/matching.ts'
import { SIGNATURE_WINDOW_MS } from '../../../src/mock/perps/options.ts'
import { type Account, createState, type ExchangeState, marketOf } from '../../../src/mock/perps/state.ts'
import type { CreateOrderBody } from '../../../src/perps/signing/ops.ts'
import { OWNER, START } from './helpers.ts'

const ETH = 2
const T = START

/** A state with ETH pinned at 3000 (touch 2999.70 / 3000.30) and one funded account. */
function setup(options: { accountOpenOrderLimit?: number } = {}): { s: ExchangeState; a: Account } {
  const s = createState(
    { clock: { now: () => T }, seed: 3, historyMinutes: 0, ...options },
    SIGNATURE_WINDOW_MS,
  )
  s.simTime = T
  pin(s, '3000')
  return { s, a: ensureAccount(s, OWNER, undefined) }
}

function pin(s: ExchangeState, price: string): void {
  const m = marketOf(s, ETH)
  m.regime = 'frozen'
  setMarketPrice(m, toTicks(price, m.spec.priceDecimals))
}

const order = (o: Partial<CreateOrderBody>): CreateOrderBody => ({
  iid: ETH,
  buy: true,
  po: false,
  qty: '1',
  ...o,
})

describe('matching on a plain state', () => {
  it('rests a non-crossing GTC order and fills a crossing one at the synthetic touch', () => {
    const { s, a } = setup()
    const resting = placeOrder(s, a, order({ p: '2990', tif: 'gtc' }), T)
    expect(resting).toMatchObject({ status: 'ok' })
    expect(a.open.size).toBe(1)
    expect(s.resting.get(ETH)?.size).toBe(1)

    const taken = placeOrder(s, a, order({ p: '3010', tif: 'gtc', qty: '2' }), T)
    expect(taken.status).toBe('ok')
    const o = taken.status === 'ok' ? a.orders.get(taken.oid ?? -1) : undefined
    expect(o?.status).toBe('filled')
    expect(o?.price).toBe(toTicks('3010', 2))
    expect(a.positions.get(ETH)?.size).toBe(toTicks('2', 4))
    expect(s.fills).toBe(1)
    expect(a.open.size).toBe(1)
  })

  it('rejects a crossing post-only order and a reduce-only order without a position', () => {
    const { s, a } = setup()
    const po = placeOrder(s, a, order({ p: '3001', po: true }), T)
    expect(po.status).toBe('ok')
    expect(a.orders.get(po.status === 'ok' ? (po.oid ?? -1) : -1)?.status).toBe('post_only_rejected')
    expect(placeOrder(s, a, order({ p: '2990', ro: true, buy: false }), T)).toEqual({
      status: 'err',
      error: 'reduce_only_invalid',
    })
    expect(placeOrder(s, a, order({ p: '3300' }), T)).toEqual({
      status: 'err',
      error: 'price_outside_bounds',
    })
    expect(placeOrder(s, a, order({ tif: 'ioc', po: true, p: '2990' }), T)).toMatchObject({ status: 'err' })
    expect(a.open.size).toBe(0)
    expect(s.fills).toBe(0)
  })

  it('fills a resting order over steps once the mark trades through it', () => {
    const { s, a } = setup()
    const ack = placeOrder(s, a, order({ p: '2990', qty: '0.004' }), T)
    const oid = ack.status === 'ok' ? (ack.oid ?? -1) : -1
    fillResting(s, marketOf(s, ETH), T + 1_000, 1_000)
    expect(a.orders.get(oid)?.filled).toBe(0n)
    pin(s, '2985')
    for (let i = 1; i <= 200 && a.open.has(oid); i++) fillResting(s, marketOf(s, ETH), T + i * 1_000, 1_000)
    const o = a.orders.get(oid)
    expect(o?.status).toBe('filled')
    expect(s.fills).toBeGreaterThan(1)
    // Maker fills happen at the order's own price, not the mark's.
    expect(a.positions.get(ETH)?.cost).toBe(toTicks('0.004', 4) * toTicks('2990', 2))
  })

  it('answers a cancel or modify of an order off the book with each official gone code (a seeded draw), an unseen id with order_not_found', () => {
    const draw = (seed: number) => {
      const s = createState({ clock: { now: () => T }, seed, historyMinutes: 0 }, SIGNATURE_WINDOW_MS)
      s.simTime = T
      pin(s, '3000')
      const a = ensureAccount(s, OWNER, undefined)
      const ack = placeOrder(s, a, order({ p: '2990' }), T)
      const oid = ack.status === 'ok' ? (ack.oid ?? -1) : -1
      cancelOrder(s, a, oid, T)
      const codes: string[] = []
      for (let i = 0; i < 30; i++) {
        const c = cancelOrder(s, a, oid, T)
        const m = modifyOrder(s, a, { oid, p: '2991', qty: '1' }, T)
        for (const r of [c, m]) if (r.status === 'err') codes.push(r.error ?? '')
      }
      expect(cancelOrder(s, a, 424242, T)).toEqual({ status: 'err', error: 'order_not_found', oid: 424242 })
      return codes
    }
    const codes = draw(3)
    expect(new Set(codes)).toEqual(new Set(['order_not_found', 'order_not_in_orderbook', 'order_unknown']))
    // Seeded: the same seed draws the same codes.
    expect(draw(3)).toEqual(codes)
  })

  it('modifies, cancels and cancels all', () => {
    const { s, a } = setup()
    const ids = [2990, 2980, 2970].map((p) => {
      const ack = placeOrder(s, a, order({ p: String(p) }), T)
      return ack.status === 'ok' ? (ack.oid ?? -1) : -1
    })
    const [first = -1, second = -1] = ids
    expect(modifyOrder(s, a, { oid: first, p: '2995', qty: '3' }, T + 1)).toMatchObject({
      status: 'ok',
      order: { oid: first, p: '2995', qty: '3', rest: '3', uts: T + 1 },
    })
    // Modified to cross: it takes at the touch and leaves the book.
    expect(modifyOrder(s, a, { oid: second, p: '3005', qty: '1' }, T + 2)).toMatchObject({
      status: 'ok',
      order: { status: 'filled' },
    })
    expect(cancelOrder(s, a, first, T + 3)).toEqual({ status: 'ok', oid: first })
    // Known to the account but off the book: one of the official "gone" codes (a seeded draw).
    expect(cancelOrder(s, a, first, T + 3)).toEqual({
      status: 'err',
      error: expect.stringMatching(/^order_(not_found|not_in_orderbook|unknown)$/),
      oid: first,
    })
    cancelAllOrders(s, a, undefined, T + 4)
    expect(a.open.size).toBe(0)
    expect(s.resting.get(ETH)?.size).toBe(0)
    expect(a.orders.get(ids[2] ?? -1)?.status).toBe('cancelled')
  })

  it('enforces the open-order cap for a whole batch up front', () => {
    const { s, a } = setup({ accountOpenOrderLimit: 2 })
    const batch = [order({ p: '2990' }), order({ p: '2980' }), order({ p: '2970' })]
    expect(() => checkOpenOrderCap(s, a, batch)).toThrow(MockRejection)
    expect(() => checkOpenOrderCap(s, a, batch.slice(0, 2))).not.toThrow()
    // IOC orders never rest, so they do not count.
    expect(() =>
      checkOpenOrderCap(s, a, [...batch.slice(0, 2), order({ p: '2990', tif: 'ioc' })]),
    ).not.toThrow()
  })
})
