/**
 * The WebSocket's hooks on a plain state (streamHooks.ts over book.ts/matching.ts): order changes
 * reported lazily, order fills pushed as the very row GET /v1/account/fills serves, liquidation
 * trades recorded but not pushed, tickers' open interest.
 */
import { describe, expect, it } from 'vitest'
import { toTicks } from '../../../src/decimal.ts'
import { ensureAccount } from '../../../src/mock/perps/account/accounts.ts'
import { trade } from '../../../src/mock/perps/book.ts'
import { setMarketPrice } from '../../../src/mock/perps/market/market.ts'
import { cancelOrder, modifyOrder, placeOrder } from '../../../src/mock/perps/matching.ts'
import { SIGNATURE_WINDOW_MS } from '../../../src/mock/perps/options.ts'
import { type Account, createState, type ExchangeState, marketOf } from '../../../src/mock/perps/state.ts'
import { addFillListener, addOrderListener, tickers } from '../../../src/mock/perps/streamHooks.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import type { FillItem } from '../../../src/perps/stream/pushSchemas.ts'
import { OWNER, START } from './helpers.ts'

const ETH = 2
const T = START
const COID = '0123456789abcdef0123456789abcdef'

/** ETH pinned at 3000 (touch 2999.70 / 3000.30) and one funded account. */
function setup(): { s: ExchangeState; a: Account } {
  const s = createState({ clock: { now: () => T }, seed: 3, historyMinutes: 0 }, SIGNATURE_WINDOW_MS)
  s.simTime = T
  const m = marketOf(s, ETH)
  m.regime = 'frozen'
  setMarketPrice(m, toTicks('3000', m.spec.priceDecimals))
  return { s, a: ensureAccount(s, OWNER, undefined) }
}

function oidOf(ack: { status: string; oid?: number | undefined }): number {
  if (ack.status !== 'ok' || ack.oid === undefined) throw new Error(`not placed: ${JSON.stringify(ack)}`)
  return ack.oid
}

describe('stream hooks on the split exchange', () => {
  it('reports an order when created, modified and cancelled; order() reads the state after the change', () => {
    const { s, a } = setup()
    const seen: { owner: string; oid: number; order: () => Order }[] = []
    const off = addOrderListener(s, (owner, oid, order) => seen.push({ owner, oid, order }))

    const oid = oidOf(
      placeOrder(s, a, { iid: ETH, buy: true, po: false, qty: '1', p: '2990', tif: 'gtc' }, T),
    )
    expect(seen.map((e) => e.oid)).toEqual([oid])
    expect(seen[0]?.owner).toBe(a.owner)
    expect(seen[0]?.order()).toMatchObject({ oid, status: 'open', p: '2990', qty: '1' })

    expect(modifyOrder(s, a, { oid, p: '2991', qty: '2' }, T + 1).status).toBe('ok')
    expect(seen).toHaveLength(2)
    expect(seen[1]?.order()).toMatchObject({ oid, p: '2991', qty: '2', uts: T + 1 })

    expect(cancelOrder(s, a, oid, T + 2).status).toBe('ok')
    expect(seen).toHaveLength(3)
    expect(seen[2]?.order()).toMatchObject({ oid, status: 'cancelled', uts: T + 2 })

    off()
    placeOrder(s, a, { iid: ETH, buy: true, po: false, qty: '1', p: '2980', tif: 'gtc' }, T)
    expect(seen).toHaveLength(3)
  })

  it('tells the listeners after the change: an order read at the notification already has its final status', () => {
    const { s, a } = setup()
    // A listener that reads at once (as the simulate recorder did): every read must be the final state.
    const read: Order[] = []
    addOrderListener(s, (_owner, _oid, order) => read.push(order()))
    const last = (oid: number): Order | undefined => read.filter((o) => o.oid === oid).at(-1)

    const resting = oidOf(
      placeOrder(s, a, { iid: ETH, buy: true, po: true, qty: '1', p: '2990', tif: 'gtc' }, T),
    )
    expect(last(resting)).toMatchObject({ status: 'open', rest: '1' })
    cancelOrder(s, a, resting, T + 1)
    expect(last(resting)).toMatchObject({ status: 'cancelled' })

    // A post-only order that would cross is rejected on placement...
    const rejected = oidOf(
      placeOrder(s, a, { iid: ETH, buy: true, po: true, qty: '1', p: '3001', tif: 'gtc' }, T),
    )
    expect(read.filter((o) => o.oid === rejected).map((o) => o.status)).toEqual(['post_only_rejected'])
    // ...and when modified to cross.
    const moved = oidOf(
      placeOrder(s, a, { iid: ETH, buy: false, po: true, qty: '1', p: '3010', tif: 'gtc' }, T),
    )
    expect(modifyOrder(s, a, { oid: moved, p: '2999', qty: '1' }, T + 2).status).toBe('ok')
    expect(last(moved)).toMatchObject({ status: 'post_only_rejected' })

    // A crossing order fills at once: read as filled, never as open with nothing left to rest.
    const taken = oidOf(
      placeOrder(s, a, { iid: ETH, buy: true, po: false, qty: '1', p: '3010', tif: 'gtc' }, T),
    )
    expect(read.filter((o) => o.oid === taken).map((o) => o.status)).toEqual(['filled'])
    const ioc = oidOf(
      placeOrder(s, a, { iid: ETH, buy: true, po: false, qty: '1', p: '2900', tif: 'ioc' }, T),
    )
    expect(last(ioc)).toMatchObject({ status: 'ioc_no_fill' })
    // Nothing read as resting is missing from the book.
    const open = new Set(a.open.keys())
    for (const oid of new Set(read.map((o) => o.oid)))
      expect(open.has(oid)).toBe(['open', 'partial'].includes(last(oid)?.status ?? ''))
  })

  it('pushes an order fill as the row GET /v1/account/fills serves, as a copy', () => {
    const { s, a } = setup()
    const fills: { owner: string; fill: FillItem }[] = []
    const off = addFillListener(s, (owner, fill) => fills.push({ owner, fill }))
    const oid = oidOf(
      placeOrder(s, a, { iid: ETH, buy: true, po: false, qty: '2', p: '3010', tif: 'gtc', c: COID }, T),
    )
    expect(fills).toHaveLength(1)
    expect(fills[0]?.owner).toBe(a.owner)
    expect(fills[0]?.fill).toEqual(a.fills[0])
    expect(fills[0]?.fill).toMatchObject({
      tid: 1,
      oid,
      iid: ETH,
      side: 'long',
      p: '3000.3',
      qty: '2',
      taker: true,
      // The position before the fill (bindings: previousSize).
      psz: '0',
      pep: '0',
      liq: false,
      ts: T,
      coid: COID,
    })
    if (fills[0] !== undefined) fills[0].fill.p = '1'
    expect(a.fills[0]?.p).toBe('3000.3')
    off()
    placeOrder(s, a, { iid: ETH, buy: false, po: false, qty: '1', p: '2990', tif: 'gtc' }, T)
    expect(a.fills).toHaveLength(2)
    expect(fills).toHaveLength(1)
  })

  it('a liquidation trade is recorded and returns its PnL and fee, but is not pushed', () => {
    const { s, a } = setup()
    const fills: FillItem[] = []
    addFillListener(s, (_owner, fill) => fills.push(fill))
    placeOrder(s, a, { iid: ETH, buy: true, po: false, qty: '1', p: '3010', tif: 'gtc' }, T)
    expect(fills).toHaveLength(1)
    const m = marketOf(s, ETH)
    setMarketPrice(m, toTicks('2900', m.spec.priceDecimals))
    const before = a.collateral
    const r = trade(s, a, m, -toTicks('1', m.spec.quantityDecimals), m.markTicks, 'liquidation', T + 5)
    expect(r.realized).toBeLessThan(0n)
    expect(r.fee).toBeGreaterThan(0n)
    expect(a.collateral).toBe(before + r.realized - r.fee)
    expect(r.row).toBe(a.fills[1])
    expect(r.row).toMatchObject({ oid: 0, liq: true, side: 'short', psz: '1', pep: '3000.3' })
    expect(fills).toHaveLength(1)
  })

  it("tickers' open interest is the sum of the accounts' long sizes", () => {
    const { s, a } = setup()
    const b = ensureAccount(s, '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', undefined)
    placeOrder(s, a, { iid: ETH, buy: true, po: false, qty: '2', p: '3010', tif: 'gtc' }, T)
    placeOrder(s, b, { iid: ETH, buy: false, po: false, qty: '1', p: '2990', tif: 'gtc' }, T)
    const [eth] = tickers(s, ETH)
    expect(tickers(s, undefined).length).toBe(s.markets.length)
    expect(eth).toMatchObject({ instrument_id: ETH, open_interest: '2', mark_price: '3000', timestamp: T })
  })
})
