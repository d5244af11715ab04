/**
 * Typed commands at the mock (`MockRequest.vouched`, from the in-process venue): the exchange core
 * executes the stamped op for the signer the link vouches for, with the same answers as the signed
 * body, and the same refusals for a stale stamp, an expired command, a reused salt and an unknown
 * signer; leverage is set typed too, and the owner-signed createProxy is not opened by vouching.
 */
import { describe, expect, it } from 'vitest'
import type { MockRequest, MockResponse } from '../../../src/mock/mockHttp.ts'
import { SIGNATURE_WINDOW_MS } from '../../../src/mock/perps/options.ts'
import type { StampedCommand } from '../../../src/perps/signing/commandSigner.ts'
import {
  buildCancelAll,
  buildCreateOrders,
  buildUpdateLeverage,
  type PerpsOp,
} from '../../../src/perps/signing/ops.ts'
import { OTHER, PROXY, type Rig, rig } from './helpers.ts'

const ETH = 2

async function pinned(): Promise<Rig> {
  const r = await rig()
  r.ex.setRegime('ETH', 'frozen')
  r.ex.setIndexPrice('ETH', '3000')
  return r
}

function vouched(
  r: Rig,
  method: string,
  path: string,
  stamped: StampedCommand<PerpsOp>,
  signer = PROXY,
): Promise<MockResponse> {
  const req: MockRequest = {
    method,
    path,
    query: new URLSearchParams(),
    headers: {},
    body: stamped,
    clientId: '127.0.0.1',
    vouched: { signer, stamped },
  }
  return Promise.resolve(r.handler(req))
}

const orders = buildCreateOrders({
  orders: [
    { iid: ETH, buy: true, p: '2990', qty: '0.5', tif: 'gtc', po: true },
    { iid: ETH, buy: false, p: '3010', qty: '0.5', tif: 'gtc', po: true },
  ],
})

describe('typed (vouched) commands at the mock', () => {
  it('answer as the signed body does, and rest the same orders', async () => {
    const signed = await pinned()
    const typed = await pinned()
    const a = await signed.send('POST', '/v1/trade/orders', orders)
    const b = await vouched(typed, 'POST', '/v1/trade/orders', typed.proxy.stampCommand(orders))
    expect(b.status).toBe(200)
    expect(b).toEqual(a)
    const open = async (r: Rig) => (await r.call('GET', '/v1/account/open-orders')).body
    expect(await open(typed)).toEqual(await open(signed))
    expect((await open(typed)) as unknown[]).toHaveLength(2)
  })

  it('refuse a stale stamp, an expired command, a reused salt and an unknown signer', async () => {
    const r = await pinned()
    const stale = r.proxy.stampCommand(orders)
    r.clock.advance(SIGNATURE_WINDOW_MS + 1)
    expect((await vouched(r, 'POST', '/v1/trade/orders', stale)).body).toEqual({
      status: 'err',
      error: 'signature expired',
    })
    const expiring = r.proxy.stampCommand(orders, { expAfterMs: 1_000 })
    r.clock.advance(1_001)
    expect((await vouched(r, 'POST', '/v1/trade/orders', expiring)).body).toEqual({
      status: 'err',
      error: 'command expired',
    })
    const once = r.proxy.stampCommand(orders)
    expect((await vouched(r, 'POST', '/v1/trade/orders', once)).status).toBe(200)
    expect((await vouched(r, 'POST', '/v1/trade/orders', { ...once })).body).toEqual({
      status: 'err',
      error: 'invalid signature',
    })
    expect((await vouched(r, 'POST', '/v1/trade/orders', r.proxy.stampCommand(orders), OTHER)).body).toEqual({
      status: 'err',
      error: 'account not found for proxy',
    })
  })

  it('set leverage typed, and do not open the owner-signed createProxy', async () => {
    const r = await pinned()
    const leverage = r.proxy.stampCommand(buildUpdateLeverage({ iid: ETH, lev: 5, cross: true }))
    const set = await vouched(r, 'PATCH', '/v1/trade/leverage', leverage)
    expect(set.body).toEqual({ status: 'ok', instrument_id: ETH, leverage: 5, cross: true })
    const proxy = r.proxy.stampCommand(buildCancelAll({}))
    const res = await vouched(r, 'POST', '/v1/account/proxy', proxy)
    expect(res.status).toBe(400)
  })
})
