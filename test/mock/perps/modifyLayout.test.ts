/** The mock's switchable modifyOrders signed layout (issue 8 item 3): ours rejected, others verify. */
import { describe, expect, it } from 'vitest'
import type { MockRequest } from '../../../src/mock/mockHttp.ts'
import { createMockServerHandler } from '../../../src/mock/server.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { buildCancelOrders, buildCreateOrders, buildModifyOrders } from '../../../src/perps/signing/ops.ts'
import { seededRandom } from '../../../src/random.ts'
import { OWNER, PROXY, PROXY_PK, type Rig, rig, START } from './helpers.ts'

async function place(r: Rig): Promise<number> {
  r.ex.setRegime('ETH', 'frozen')
  r.ex.setIndexPrice('ETH', '3000')
  const res = await r.send(
    'POST',
    '/v1/trade/orders',
    buildCreateOrders({ orders: [{ iid: 2, buy: true, p: '2990', qty: '0.01', tif: 'gtc' }] }),
  )
  expect(res.status).toBe(200)
  return (res.body as { oid: number }[])[0]?.oid ?? -1
}

describe('modifyOrders layout switch', () => {
  it('verifies our layout by default', async () => {
    const r = await rig()
    const oid = await place(r)
    const res = await r.send(
      'PATCH',
      '/v1/trade/orders',
      buildModifyOrders({ orders: [{ oid, p: '2995', qty: '0.02' }] }),
    )
    expect(res).toMatchObject({ status: 200, body: [{ status: 'ok', order: { oid, p: '2995' } }] })
  })

  it('with the other layout, rejects our modify as a signature problem while other commands verify', async () => {
    const r = await rig({ modifyOrdersLayout: 'oid-qty-p' })
    const oid = await place(r)
    const ours = buildModifyOrders({ orders: [{ oid, p: '2995', qty: '0.02' }] })
    const rejected = await r.send('PATCH', '/v1/trade/orders', ours)
    expect(rejected).toMatchObject({
      status: 400,
      body: [{ status: 'err', error: 'account not found for proxy' }],
    })
    // The same body signed in the layout the mock now expects passes.
    const theirs = { op: ours.op, signedOp: ['modifyOrders', [[oid, '0.02', '2995']]] as const }
    expect(await r.send('PATCH', '/v1/trade/orders', theirs)).toMatchObject({
      status: 200,
      body: [{ status: 'ok' }],
    })
    expect((await r.send('DELETE', '/v1/trade/orders', buildCancelOrders({ oids: [oid] }))).body).toEqual([
      { status: 'ok', oid },
    ])
    // And back at runtime.
    r.ex.setModifyOrdersLayout('oid-p-qty')
    const second = await place(r)
    expect(
      (
        await r.send(
          'PATCH',
          '/v1/trade/orders',
          buildModifyOrders({ orders: [{ oid: second, p: '2991', qty: '0.01' }] }),
        )
      ).status,
    ).toBe(200)
    expect(() => r.ex.setModifyOrdersLayout('nope')).toThrow(/unknown modifyOrders layout/)
  })

  it('is switched through the /__mock/modify-layout control', async () => {
    const mock = createMockServerHandler({
      clock: 'stepped',
      startTime: START,
      controls: true,
      rateLimits: false,
      catalogue: { eventCount: 5 },
      exchange: {
        historyMinutes: 0,
        accounts: [{ owner: OWNER, proxies: [{ proxy: PROXY, secret: 's', expiry: START + 86_400_000 }] }],
      },
    })
    const req = (method: string, path: string, body?: unknown): MockRequest => ({
      method,
      path,
      query: new URLSearchParams(),
      headers: {},
      body,
      clientId: '127.0.0.1',
    })
    const signer = new CommandSigner({ privateKey: PROXY_PK, clock: mock.clock, salts: seededRandom(5) })
    const send = async (
      method: string,
      path: string,
      built: ReturnType<typeof buildModifyOrders> | ReturnType<typeof buildCreateOrders>,
    ) => {
      const stamp = signer.stamp()
      return mock.handler(
        req(method, path, { op: built.op, sig: await signer.signOp(built.signedOp, stamp), ...stamp }),
      )
    }
    mock.exchange.setRegime('ETH', 'frozen')
    mock.exchange.setIndexPrice('ETH', '3000')
    const created = await send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: 2, buy: true, p: '2990', qty: '0.01' }] }),
    )
    const oid = (created.body as { oid: number }[])[0]?.oid ?? -1
    expect(await mock.handler(req('POST', '/__mock/modify-layout', { layout: 'sideways' }))).toMatchObject({
      status: 400,
    })
    expect((await mock.handler(req('POST', '/__mock/modify-layout', { layout: 'oid-qty-p' }))).status).toBe(
      200,
    )
    expect(mock.exchange.modifyOrdersLayout).toBe('oid-qty-p')
    const modify = buildModifyOrders({ orders: [{ oid, p: '2995', qty: '0.01' }] })
    expect((await send('PATCH', '/v1/trade/orders', modify)).status).toBe(400)
    expect((await mock.handler(req('POST', '/__mock/modify-layout', { layout: 'oid-p-qty' }))).status).toBe(
      200,
    )
    expect((await send('PATCH', '/v1/trade/orders', modify)).status).toBe(200)
    mock.dispose()
  })
})
