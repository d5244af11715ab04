import { describe, expect, it } from 'vitest'
import { DEFAULT_INSTRUMENTS, defineInstrument } from '../../../src/mock/perps/instruments.ts'
import type { OrderDataWire } from '../../../src/perps/schemas/orders.ts'
import {
  buildCancelAll,
  buildCancelOrders,
  buildCreateOrders,
  buildCreateOrdersUnchecked,
  buildModifyOrders,
  type CreateOrderInput,
} from '../../../src/perps/signing/ops.ts'
import { OWNER, type Rig, rig } from './helpers.ts'

const ETH = 2
const SOL = 3
const COID = 'c0ffee00c0ffee00c0ffee00c0ffee01'

/** An exchange whose ETH and SOL prices are pinned (no random moves). */
async function pinned(options: Parameters<typeof rig>[0] = {}): Promise<Rig> {
  const r = await rig(options)
  r.ex.setRegime('ETH', 'frozen')
  r.ex.setIndexPrice('ETH', '3000')
  r.ex.setRegime('SOL', 'frozen')
  r.ex.setIndexPrice('SOL', '150')
  return r
}

// Orders built without the client-side format checks, so the venue's own checks are exercised.
const buildUnchecked = (orders: CreateOrderInput[]) => buildCreateOrdersUnchecked({ orders })

async function openOrders(r: Rig, query: Record<string, string> = {}): Promise<OrderDataWire[]> {
  const res = await r.call('GET', '/v1/account/open-orders', { query })
  expect(res.status).toBe(200)
  return res.body as OrderDataWire[]
}

async function order(r: Rig, oid: number): Promise<OrderDataWire> {
  const res = await r.call('GET', '/v1/account/orders', { query: { order_id: String(oid) } })
  const rows = res.body as OrderDataWire[]
  expect(rows).toHaveLength(1)
  return rows[0] as OrderDataWire
}

const oidOf = (body: unknown, i = 0): number => (body as { oid: number }[])[i]?.oid as number

describe('createOrders validation (per-order errors in a 200 array)', () => {
  it('reports each venue rule with its documented text and echoes the client order id', async () => {
    const r = await pinned()
    const cases: [CreateOrderInput, string][] = [
      [{ iid: ETH, buy: true, p: '2990', qty: '1', tif: 'ioc', po: true }, 'IOC orders cannot be post-only'],
      [{ iid: ETH, buy: true, p: '2990', qty: '1', tif: 'fok', po: true }, 'FOK orders cannot be post-only'],
      [{ iid: ETH, buy: true, qty: '1', tif: 'gtc' }, 'GTC orders require a price'],
      [{ iid: ETH, buy: true, qty: '1' }, 'GTC orders require a price'],
      [{ iid: ETH, buy: true, p: '0', qty: '1', tif: 'gtc' }, 'price cannot be zero'],
      [{ iid: ETH, buy: true, p: '2990.123', qty: '1', tif: 'gtc' }, 'price exceeds allowed decimal places'],
      [
        { iid: ETH, buy: true, p: '2990.25', qty: '1', tif: 'gtc' },
        'price exceeds allowed significant figures',
      ],
      [{ iid: ETH, buy: true, p: '2990', qty: '0', tif: 'gtc' }, 'quantity must be positive'],
      [
        { iid: ETH, buy: true, p: '2990', qty: '1.00001', tif: 'gtc' },
        'quantity exceeds allowed decimal places',
      ],
      [
        { iid: ETH, buy: true, p: '2990', qty: '12.3456', tif: 'gtc' },
        'quantity exceeds allowed significant figures',
      ],
      [{ iid: ETH, buy: true, p: '3151', qty: '1', tif: 'gtc' }, 'price_outside_bounds'],
      [{ iid: ETH, buy: false, p: '2849', qty: '1', tif: 'gtc' }, 'price_outside_bounds'],
      [{ iid: ETH, buy: true, p: '2990', qty: '0.001', tif: 'gtc' }, 'order notional below minimum'],
      [{ iid: ETH, buy: false, p: '3010', qty: '1', tif: 'gtc', ro: true }, 'reduce_only_invalid'],
      [{ iid: ETH, buy: true, p: '2990', qty: '400', tif: 'gtc' }, 'insufficient_margin'],
      [{ iid: 99, buy: true, p: '1', qty: '1', tif: 'gtc' }, 'unknown instrument'],
      [
        { iid: ETH, buy: true, p: '2990', qty: '1', tif: 'gtc', coid: '0'.repeat(32) },
        'client order id cannot be all zeros',
      ],
    ]
    const res = await r.send('POST', '/v1/trade/orders', buildUnchecked(cases.map(([o]) => o)))
    expect(res.status).toBe(200)
    const acks = res.body as { status: string; error?: string }[]
    expect(acks.map((a) => a.error)).toEqual(cases.map(([, e]) => e))
    expect(acks[acks.length - 1]).toEqual({
      status: 'err',
      error: 'client order id cannot be all zeros',
      coid: '0'.repeat(32),
    })
    // Bounds are inclusive: exactly +5 % is fine; integer prices are exempt from the 5-figure rule.
    const edge = await r.send(
      'POST',
      '/v1/trade/orders',
      buildUnchecked([{ iid: ETH, buy: false, p: '3150', qty: '1', tif: 'gtc' }]),
    )
    expect(edge.body).toEqual([{ status: 'ok', oid: expect.any(Number) }])
    r.ex.setRegime('BTC', 'frozen')
    r.ex.setIndexPrice('BTC', '123456')
    const big = await r.send(
      'POST',
      '/v1/trade/orders',
      buildUnchecked([{ iid: 1, buy: true, p: '123400', qty: '0.001', tif: 'gtc' }]),
    )
    expect(big.body).toEqual([{ status: 'ok', oid: expect.any(Number) }])
  })
})

describe('matching', () => {
  it('rests a GTC below the market, fills it (partially, then fully) once the mark trades through', async () => {
    const r = await pinned()
    const res = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: SOL, buy: true, p: '149', qty: '2000', tif: 'gtc', coid: COID }] }),
    )
    expect(res.body).toEqual([{ status: 'ok', oid: expect.any(Number), coid: COID }])
    const oid = oidOf(res.body)
    const [resting] = await openOrders(r, { instrument_id: String(SOL) })
    expect(resting).toEqual({
      order_id: oid,
      instrument_id: SOL,
      buy: true,
      price: '149',
      quantity: '2000',
      tif: 'gtc',
      post_only: false,
      ro: false,
      status: 'open',
      resting_quantity: '2000',
      filled_quantity: '0',
      created_timestamp: r.clock.now(),
      updated_timestamp: r.clock.now(),
      client_order_id: COID,
    })
    // SOL trades ~$20k/s ≈ 134 SOL per step: a 2,000 SOL order fills over several steps.
    r.ex.setIndexPrice('SOL', '148.9')
    r.clock.advance(1_000)
    const partial = (await openOrders(r))[0] as OrderDataWire
    expect(partial.status).toBe('partial')
    const filled = Number(partial.filled_quantity)
    expect(filled).toBeGreaterThan(0)
    expect(filled).toBeLessThan(2000)
    expect(Number(partial.resting_quantity)).toBe(2000 - filled)
    r.clock.advance(60_000)
    expect(await openOrders(r)).toEqual([])
    const done = await order(r, oid)
    expect(done).toMatchObject({ status: 'filled', filled_quantity: '2000', resting_quantity: '0' })
    const pf = (await r.call('GET', '/v1/account/portfolio')).body as {
      positions: { instrument_id: number; size: string; entry_price: string }[]
    }
    expect(pf.positions).toEqual([
      expect.objectContaining({ instrument_id: SOL, size: '2000', entry_price: '149' }),
    ])
  })

  it('post-only that would cross is post_only_rejected; IOC/FOK without a fill end unfilled; market IOC takes the ask', async () => {
    const r = await pinned()
    const res = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({
        orders: [
          { iid: ETH, buy: true, p: '3001', qty: '1', tif: 'gtc', po: true },
          { iid: ETH, buy: true, p: '2999', qty: '1', tif: 'ioc' },
          { iid: ETH, buy: true, p: '2999', qty: '1', tif: 'fok' },
          { iid: ETH, buy: true, qty: '1', tif: 'ioc' },
          { iid: ETH, buy: false, p: '2990', qty: '0.5', tif: 'gtc' },
        ],
      }),
    )
    const acks = res.body as { status: string; oid: number }[]
    expect(acks.every((a) => a.status === 'ok')).toBe(true)
    const statuses = await Promise.all(acks.map((a) => order(r, a.oid)))
    expect(statuses.map((s) => s.status)).toEqual([
      'post_only_rejected',
      'ioc_no_fill',
      'fok_unfilled',
      'filled',
      'filled',
    ])
    // Ask = mark + 1 bp = 3000.3; bid = 2999.7. The crossing GTC sell takes the bid, not its limit.
    expect(statuses[3]).toMatchObject({ price: '3000.3', filled_quantity: '1' })
    expect(statuses[4]).toMatchObject({ price: '2990', filled_quantity: '0.5' })
    const pf = (await r.call('GET', '/v1/account/portfolio')).body as {
      positions: { size: string; entry_price: string }[]
    }
    expect(pf.positions[0]).toMatchObject({ size: '0.5', entry_price: '3000.3' })
  })

  it('reduce-only fills only down to flat', async () => {
    const r = await pinned()
    await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: ETH, buy: true, qty: '1', tif: 'ioc' }] }),
    )
    const res = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: ETH, buy: false, qty: '3', tif: 'ioc', ro: true }] }),
    )
    const o = await order(r, oidOf(res.body))
    expect(o).toMatchObject({ filled_quantity: '1', status: 'cancelled', ro: true })
    expect(
      ((await r.call('GET', '/v1/account/portfolio')).body as { positions: unknown[] }).positions,
    ).toEqual([])
  })
})

describe('modifyOrders', () => {
  it('changes price and total quantity and answers with the terse Order', async () => {
    const r = await pinned()
    const created = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: ETH, buy: true, p: '2950', qty: '1', tif: 'gtc', coid: COID }] }),
    )
    const oid = oidOf(created.body)
    r.clock.advance(500)
    const res = await r.send(
      'PATCH',
      '/v1/trade/orders',
      buildModifyOrders({
        orders: [
          { oid, p: '2960.5', qty: '2' },
          { oid: 1, p: '2960', qty: '1' },
        ],
      }),
    )
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      {
        status: 'ok',
        order: {
          oid,
          iid: ETH,
          buy: true,
          p: '2960.5',
          qty: '2',
          tif: 'gtc',
          po: false,
          ro: false,
          status: 'open',
          rest: '2',
          fill: '0',
          cts: r.clock.now() - 500,
          uts: r.clock.now(),
          coid: COID,
        },
      },
      { status: 'err', error: 'order_not_found', oid: 1 },
    ])
  })

  it('rejects bad decimals, bounds, and a total below the filled quantity; a crossing modify fills', async () => {
    const r = await pinned()
    const created = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: SOL, buy: true, p: '149', qty: '2000', tif: 'gtc' }] }),
    )
    const oid = oidOf(created.body)
    r.ex.setIndexPrice('SOL', '149')
    const filled = Number((await order(r, oid)).filled_quantity)
    expect(filled).toBeGreaterThan(0)
    r.ex.setIndexPrice('SOL', '150')
    const res = await r.send('PATCH', '/v1/trade/orders', {
      op: {
        type: 'modifyOrders',
        args: [
          { oid, p: '149.0001', qty: '2000' },
          { oid, p: '149.123', qty: '2000' },
          { oid, p: '149', qty: '1.001' },
          { oid, p: '170', qty: '2000' },
          { oid, p: '149', qty: String(filled) },
        ],
      },
      signedOp: [
        'modifyOrders',
        [
          [oid, '149.0001', '2000'],
          [oid, '149.123', '2000'],
          [oid, '149', '1.001'],
          [oid, '170', '2000'],
          [oid, '149', String(filled)],
        ],
      ],
    })
    expect((res.body as { error: string }[]).map((x) => x.error)).toEqual([
      'price exceeds allowed decimal places',
      'price exceeds allowed significant figures',
      'quantity exceeds allowed decimal places',
      'price_outside_bounds',
      'quantity must exceed filled quantity',
    ])
    const cross = await r.send(
      'PATCH',
      '/v1/trade/orders',
      buildModifyOrders({ orders: [{ oid, p: '151', qty: '2000' }] }),
    )
    expect(cross.body).toEqual([
      { status: 'ok', order: expect.objectContaining({ status: 'filled', fill: '2000', rest: '0' }) },
    ])
  })
})

describe('cancels', () => {
  it('cancels by id (echoing coid), reports unknown ids, and cancelAll by instrument or for all', async () => {
    const r = await pinned()
    const res = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({
        orders: [
          { iid: ETH, buy: true, p: '2950', qty: '1', tif: 'gtc', coid: COID },
          { iid: ETH, buy: true, p: '2940', qty: '1', tif: 'gtc' },
          { iid: SOL, buy: true, p: '145', qty: '1', tif: 'gtc' },
          { iid: SOL, buy: false, p: '155', qty: '1', tif: 'gtc' },
        ],
      }),
    )
    const [a, , c] = (res.body as { oid: number }[]).map((x) => x.oid)
    const cancel = await r.send('DELETE', '/v1/trade/orders', buildCancelOrders({ oids: [a as number, 7] }))
    expect(cancel.body).toEqual([
      { status: 'ok', oid: a, coid: COID },
      { status: 'err', error: 'order_not_found', oid: 7 },
    ])
    expect((await order(r, a as number)).status).toBe('cancelled')
    const again = await r.send('DELETE', '/v1/trade/orders', buildCancelOrders({ oids: [a as number] }))
    expect(again.body).toEqual([
      { status: 'err', error: expect.stringMatching(/^order_(not_found|not_in_orderbook|unknown)$/), oid: a },
    ])
    expect(await r.send('DELETE', '/v1/trade/orders/all', buildCancelAll({ iid: SOL }))).toMatchObject({
      status: 200,
      body: { status: 'ok' },
    })
    expect((await openOrders(r)).map((o) => o.instrument_id)).toEqual([ETH])
    expect((await order(r, c as number)).status).toBe('cancelled')
    await r.send('DELETE', '/v1/trade/orders/all', buildCancelAll({}))
    expect(await openOrders(r)).toEqual([])
  })
})

describe('limits', () => {
  it('refuses a batch over max_order_count with 429 open_orders_limit and no Retry-After', async () => {
    const small = DEFAULT_INSTRUMENTS.map((i) =>
      i.id === ETH ? defineInstrument({ ...i, maxOrderCount: 3 }) : i,
    )
    const r = await pinned({ instruments: small })
    const mk = (n: number) =>
      Array.from(
        { length: n },
        (_, i): CreateOrderInput => ({ iid: ETH, buy: true, p: String(2900 + i), qty: '1', tif: 'gtc' }),
      )
    expect((await r.send('POST', '/v1/trade/orders', buildCreateOrders({ orders: mk(2) }))).status).toBe(200)
    const over = await r.send('POST', '/v1/trade/orders', buildCreateOrders({ orders: mk(2) }))
    expect(over).toMatchObject({ status: 429, body: { status: 'err', error: 'open_orders_limit' } })
    expect(over.headers).toBeUndefined()
    // IOC orders never rest, so they do not count.
    const ioc = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: ETH, buy: true, p: '2900', qty: '1', tif: 'ioc' }, ...mk(1)] }),
    )
    expect(ioc.status).toBe(200)
  })

  it('meters action weight per account: 429 action_rate_limited with Retry-After; cancels are free', async () => {
    const r = await pinned({ actionBudgetPerMinute: 10 })
    const mk = (n: number) =>
      Array.from(
        { length: n },
        (_, i): CreateOrderInput => ({ iid: ETH, buy: true, p: String(2900 + i), qty: '1', tif: 'gtc' }),
      )
    const first = await r.send('POST', '/v1/trade/orders', buildCreateOrders({ orders: mk(8) }))
    expect(first.status).toBe(200)
    const limited = await r.send('POST', '/v1/trade/orders', buildCreateOrders({ orders: mk(5) }))
    // 3 missing tokens at 10/min refill in 18 s.
    expect(limited).toMatchObject({
      status: 429,
      body: { status: 'err', error: 'action_rate_limited' },
      headers: { 'retry-after': '18' },
    })
    const modLimited = await r.send(
      'PATCH',
      '/v1/trade/orders',
      buildModifyOrders({
        orders: [
          { oid: oidOf(first.body), p: '2800', qty: '1' },
          { oid: oidOf(first.body, 1), p: '2801', qty: '1' },
          { oid: oidOf(first.body, 2), p: '2802', qty: '1' },
        ],
      }),
    )
    expect(modLimited).toMatchObject({ status: 429, body: [{ status: 'err', error: 'action_rate_limited' }] })
    expect(modLimited.headers?.['retry-after']).toMatch(/^\d+$/)
    const cancel = await r.send(
      'DELETE',
      '/v1/trade/orders',
      buildCancelOrders({ oids: [oidOf(first.body)] }),
    )
    expect(cancel.status).toBe(200)
    expect((await r.send('DELETE', '/v1/trade/orders/all', buildCancelAll())).status).toBe(200)
    r.clock.advance(18_000)
    expect((await r.send('POST', '/v1/trade/orders', buildCreateOrders({ orders: mk(5) }))).status).toBe(200)
    expect(r.ex.accountOf(OWNER)?.openOrders).toHaveLength(5)
  })
})
