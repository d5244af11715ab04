import { encode } from '@msgpack/msgpack'
import { keccak256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { createPerpsExchange } from '../../../src/mock/perps/exchange.ts'
import { createPerpsHandler } from '../../../src/mock/perps/handler.ts'
import { defineInstrument } from '../../../src/mock/perps/instruments.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { buildCancelOrders, buildCreateOrders } from '../../../src/perps/signing/ops.ts'
import { seededRandom } from '../../../src/random.ts'
import {
  call,
  manualClock,
  OTHER,
  OTHER_PK,
  OWNER,
  PROXY,
  rig,
  START,
  viemOwner,
  viemProxy,
} from './helpers.ts'

const DOMAIN = { name: 'Polymarket', version: '1', chainId: 137 } as const
const err = (error: string) => ({ status: 'err', error })

describe('signed commands', () => {
  it('accepts the protocol-notes test vectors (createProxy and createOrders) byte for byte', async () => {
    // Vectors of protocol-notes a.4: ts 1767000000000, salt 123456789.
    const clock = manualClock(1_767_000_000_000 + 1_000)
    const ex = createPerpsExchange({
      clock,
      historyMinutes: 0,
      instruments: [
        defineInstrument({
          id: 1,
          symbol: 'TEST-USDC',
          baseAsset: 'TEST',
          category: 'crypto',
          initialPrice: '100',
          priceDecimals: 2,
          quantityDecimals: 2,
        }),
      ],
    })
    ex.setRegime('TEST', 'frozen')
    ex.setIndexPrice('TEST', '100.4')
    const handler = createPerpsHandler(ex)
    const proxyRes = await call(handler, 'POST', '/v1/account/proxy', {
      body: {
        op: { type: 'createProxy', args: { owner: OWNER, proxy: PROXY, expiry: 1_767_225_600_000 } },
        sig: '0x765f06b06d2faa45bff4263d093ce5c4965842866afe934d5cfed263f10fabaf4fd99e968a9d0c0a67264f26af99de5457dc06af97737505f6beec9d22f2119c1b',
        salt: 123456789,
        ts: 1_767_000_000_000,
      },
    })
    expect(proxyRes.status).toBe(200)
    const orderRes = await call(handler, 'POST', '/v1/trade/orders', {
      body: {
        op: {
          type: 'createOrders',
          args: [{ iid: 1, buy: true, po: true, qty: '2', tif: 'gtc', p: '100.5' }],
        },
        sig: '0x7875f34de4f6dbd1bf23224bd7102b3e7480017dc51986528d6bfec8499c75ef26acfba8594cbf9b028391d21e9a1e1f0882fe5cc21e95a6308c3aa64697c8321b',
        salt: 123456789,
        ts: 1_767_000_000_000,
      },
    })
    expect(orderRes.status).toBe(200)
    // 100.5 is below the synthetic ask (100.42 + spread), so the post-only buy rests.
    expect(orderRes.body).toEqual([{ status: 'ok', oid: expect.any(Number) }])
    expect(ex.accountOf(OWNER)?.openOrders).toHaveLength(0)
  })

  it('accepts an independent viem signature built from the recipe (msgpack → keccak → EIP-712 Op)', async () => {
    const r = await rig()
    const ts = r.clock.now()
    const salt = 424242
    const positional = ['cancelOrders', [42]]
    const data = keccak256(encode(positional))
    const sig = await viemProxy.signTypedData({
      domain: DOMAIN,
      types: {
        Op: [
          { name: 'data', type: 'bytes32' },
          { name: 'salt', type: 'uint64' },
          { name: 'ts', type: 'uint64' },
        ],
      },
      primaryType: 'Op',
      message: { data, salt: BigInt(salt), ts: BigInt(ts) },
    })
    const res = await call(r.handler, 'DELETE', '/v1/trade/orders', {
      body: { op: { type: 'cancelOrders', args: [42] }, sig, salt, ts },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([{ status: 'err', error: 'order_not_found', oid: 42 }])
  })

  it('rejects a tampered body (recovers a stranger), a garbled signature and a reused salt', async () => {
    const r = await rig()
    const built = buildCreateOrders({ orders: [{ iid: 4, buy: true, p: '100', qty: '1', tif: 'gtc' }] })
    const cmd = await r.proxy.signCommand(built)
    const tampered = { ...cmd, op: { ...cmd.op, args: [{ ...cmd.op.args[0], qty: '2' }] } }
    expect(await call(r.handler, 'POST', '/v1/trade/orders', { body: tampered })).toMatchObject({
      status: 400,
      body: err('account not found for proxy'),
    })
    const garbled = { ...cmd, sig: `${cmd.sig.slice(0, 10)}zz${cmd.sig.slice(12)}` }
    expect(await call(r.handler, 'POST', '/v1/trade/orders', { body: garbled })).toMatchObject({
      status: 400,
      body: err('invalid signature'),
    })
    const zeroR = { ...cmd, sig: `0x${'0'.repeat(128)}1b` }
    expect(await call(r.handler, 'POST', '/v1/trade/orders', { body: zeroR })).toMatchObject({
      status: 400,
      body: err('invalid signature'),
    })
    // The original is still fresh: accepted once, then its salt is spent.
    expect((await call(r.handler, 'POST', '/v1/trade/orders', { body: cmd })).status).toBe(200)
    expect(await call(r.handler, 'POST', '/v1/trade/orders', { body: cmd })).toMatchObject({
      status: 400,
      body: err('invalid signature'),
    })
    // The same salt on a different op is a replay too.
    const other = buildCancelOrders({ oids: [1] })
    const sig = await r.proxy.signOp(other.signedOp, { salt: cmd.salt, ts: r.clock.now() })
    const reuse = { op: other.op, sig, salt: cmd.salt, ts: r.clock.now() }
    expect(await call(r.handler, 'DELETE', '/v1/trade/orders', { body: reuse })).toMatchObject({
      status: 400,
      body: err('invalid signature'),
    })
  })

  it('rejects a salt only while the earlier command is inside the 5-minute window', async () => {
    const r = await rig()
    const built = buildCancelOrders({ oids: [1] })
    const stamp = { salt: 99, ts: r.clock.now() }
    const first = { op: built.op, sig: await r.proxy.signOp(built.signedOp, stamp), ...stamp }
    expect((await call(r.handler, 'DELETE', '/v1/trade/orders', { body: first })).status).toBe(200)
    r.clock.advance(5 * 60_000 + 1)
    const later = { salt: 99, ts: r.clock.now() }
    const second = { op: built.op, sig: await r.proxy.signOp(built.signedOp, later), ...later }
    expect((await call(r.handler, 'DELETE', '/v1/trade/orders', { body: second })).status).toBe(200)
  })

  it('rejects stale and future timestamps with the documented texts', async () => {
    const r = await rig()
    const built = buildCancelOrders({ oids: [1] })
    const stale = await r.proxy.signCommand(built)
    r.clock.advance(5 * 60_000 + 1)
    expect(await call(r.handler, 'DELETE', '/v1/trade/orders', { body: stale })).toMatchObject({
      status: 400,
      body: err('signature expired'),
    })
    const future = { salt: 5, ts: r.clock.now() + 5 * 60_000 + 1 }
    const body = { op: built.op, sig: await r.proxy.signOp(built.signedOp, future), ...future }
    expect(await call(r.handler, 'DELETE', '/v1/trade/orders', { body })).toMatchObject({
      status: 400,
      body: err('invalid signature'),
    })
  })

  it('checks exp: past is `command expired`, more than 5 s ahead is too far, exactly 5 s is fine', async () => {
    const r = await rig()
    const built = buildCancelOrders({ oids: [1] })
    const now = r.clock.now()
    const cases: [number, number, unknown][] = [
      [now, 400, err('command expired')],
      [now - 1, 400, err('command expired')],
      [now + 5_001, 400, err('command expiry too far in future')],
      [now + 5_000, 200, [{ status: 'err', error: 'order_not_found', oid: 1 }]],
    ]
    for (const [exp, status, expected] of cases) {
      const cmd = await r.proxy.signCommand(built)
      const res = await call(r.handler, 'DELETE', '/v1/trade/orders', { body: { ...cmd, exp } })
      expect(res.status).toBe(status)
      expect(res.body).toEqual(expected)
    }
  })

  it('answers body and batch-shape errors: object for createOrders, one-item array for modifyOrders', async () => {
    const r = await rig()
    const bad = await call(r.handler, 'POST', '/v1/trade/orders', { body: { op: { type: 'createOrders' } } })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ status: 'err', error: expect.stringMatching(/^invalid request body: /) })
    const empty = await r.send('POST', '/v1/trade/orders', {
      op: { type: 'createOrders', args: [] },
      signedOp: ['createOrders', []],
    })
    expect(empty).toMatchObject({ status: 400, body: err('no orders provided') })
    const modStale = await r.send(
      'PATCH',
      '/v1/trade/orders',
      {
        op: { type: 'modifyOrders', args: [{ oid: 1, p: '1', qty: '1' }] },
        signedOp: ['modifyOrders', [[1, '1', '1']]],
      },
      { exp: r.clock.now() - 1 },
    )
    expect(modStale).toMatchObject({ status: 400, body: [err('command expired')] })
    const wrongType = await r.send(
      'DELETE',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: 1, buy: true, qty: '1', tif: 'ioc' }] }),
    )
    expect(wrongType.status).toBe(400)
  })

  it('maps an expired proxy to `account not found for proxy` on commands and 401 on reads', async () => {
    const r = await rig()
    const shortLived = new CommandSigner({ privateKey: OTHER_PK, clock: r.clock, salts: seededRandom(3) })
    const body = await r.owner.signCreateProxy({ proxy: OTHER, expiry: r.clock.now() + 60_000 })
    const created = await call(r.handler, 'POST', '/v1/account/proxy', { body })
    expect(created.status).toBe(200)
    const secret = (created.body as { secret: string }).secret
    const headers = { 'polymarket-proxy': OTHER, 'polymarket-secret': secret }
    expect((await call(r.handler, 'GET', '/v1/account/portfolio', { headers })).status).toBe(200)
    const ok = await shortLived.signCommand(buildCancelOrders({ oids: [1] }))
    expect((await call(r.handler, 'DELETE', '/v1/trade/orders', { body: ok })).status).toBe(200)
    r.clock.advance(60_001)
    const late = await shortLived.signCommand(buildCancelOrders({ oids: [1] }))
    expect(await call(r.handler, 'DELETE', '/v1/trade/orders', { body: late })).toMatchObject({
      status: 400,
      body: err('account not found for proxy'),
    })
    expect(await call(r.handler, 'GET', '/v1/account/portfolio', { headers })).toMatchObject({
      status: 401,
      body: err('unauthorized'),
    })
    // Both keys belong to the same owner account.
    expect(r.ex.accountOf(OTHER)?.owner).toBe(OWNER)
  })
})

describe('createProxy', () => {
  it('verifies the owner signature, refuses a live duplicate with 422 and a wrong signer with 400', async () => {
    const r = await rig()
    const again = await r.owner.signCreateProxy({ proxy: PROXY, expiry: START + 86_400_000 })
    expect(await call(r.handler, 'POST', '/v1/account/proxy', { body: again })).toMatchObject({
      status: 422,
      body: err('proxy already exists'),
    })
    // Signed by the proxy key but claiming the owner: invalid.
    const impostor = new CommandSigner({
      privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
      clock: r.clock,
      salts: seededRandom(9),
    })
    const forged = await impostor.signCreateProxy({ proxy: OTHER, expiry: START + 86_400_000 })
    forged.op.args.owner = OWNER
    expect(await call(r.handler, 'POST', '/v1/account/proxy', { body: forged })).toMatchObject({
      status: 400,
      body: err('invalid signature'),
    })
    const past = await r.owner.signCreateProxy({ proxy: OTHER, expiry: r.clock.now() + 1 })
    r.clock.advance(2)
    expect((await call(r.handler, 'POST', '/v1/account/proxy', { body: past })).status).toBe(400)
  })

  it('accepts an independent viem CreateProxy signature and returns a usable secret', async () => {
    const clock = manualClock()
    const ex = createPerpsExchange({ clock, historyMinutes: 0 })
    const handler = createPerpsHandler(ex)
    const ts = clock.now()
    const expiry = ts + 3_600_000
    const sig = await viemOwner.signTypedData({
      domain: DOMAIN,
      types: {
        CreateProxy: [
          { name: 'addr', type: 'address' },
          { name: 'exp', type: 'uint64' },
          { name: 'salt', type: 'uint64' },
          { name: 'ts', type: 'uint64' },
        ],
      },
      primaryType: 'CreateProxy',
      message: { addr: PROXY, exp: BigInt(expiry), salt: 7n, ts: BigInt(ts) },
    })
    const res = await call(handler, 'POST', '/v1/account/proxy', {
      body: {
        op: { type: 'createProxy', args: { owner: OWNER, proxy: PROXY, expiry } },
        sig,
        salt: 7,
        ts,
        label: 'x',
      },
    })
    expect(res.status).toBe(200)
    const { secret } = res.body as { secret: string }
    expect(secret).toMatch(/^[A-Za-z0-9+/]{40}$/)
    const creds = await call(handler, 'GET', '/v1/account/credentials', {
      headers: { 'service-proxy': PROXY, 'service-secret': secret },
    })
    expect(creds).toMatchObject({
      status: 200,
      body: { address: OWNER, keys: [{ proxy: PROXY, expiry, label: 'x' }] },
    })
  })
})

describe('header auth and referral', () => {
  it('accepts both header pairs and refuses missing or wrong credentials with 401', async () => {
    const r = await rig()
    const svc = { 'SERVICE-PROXY': PROXY, 'SERVICE-SECRET': r.secret }
    expect((await call(r.handler, 'GET', '/v1/account/portfolio', { headers: svc })).status).toBe(200)
    expect((await call(r.handler, 'GET', '/v1/account/portfolio', { headers: r.headers })).status).toBe(200)
    for (const headers of [
      {},
      { 'POLYMARKET-PROXY': PROXY },
      { 'POLYMARKET-PROXY': PROXY, 'POLYMARKET-SECRET': `${r.secret}x` },
      { 'POLYMARKET-PROXY': OTHER, 'POLYMARKET-SECRET': r.secret },
    ]) {
      const res = await call(r.handler, 'GET', '/v1/account/withdrawals', { headers })
      expect(res).toMatchObject({ status: 401, body: err('unauthorized') })
    }
  })

  it('applies a referral code once; the second time is 422', async () => {
    const r = await rig()
    const before = await r.call('GET', '/v1/account/referral')
    expect(before.body).toMatchObject({ code: expect.stringMatching(/^[A-Z0-9]{8}$/), children_count: 0 })
    expect((before.body as { parent?: string }).parent).toBeUndefined()
    expect(await r.call('POST', '/v1/account/referral', { body: { code: 'ABC123' } })).toMatchObject({
      status: 200,
      body: { status: 'ok' },
    })
    expect(await r.call('POST', '/v1/account/referral', { body: { code: 'XYZ' } })).toMatchObject({
      status: 422,
      body: err('referral_already_applied'),
    })
    expect((await r.call('GET', '/v1/account/referral')).body).toMatchObject({ parent: 'ABC123' })
    expect((await r.call('POST', '/v1/account/referral', { body: {} })).status).toBe(400)
  })
})

describe('routing', () => {
  it('answers unknown routes and methods with 404 not_found', async () => {
    const r = await rig()
    for (const [method, path] of [
      ['GET', '/v1/nope'],
      ['POST', '/v1/info/time'],
      ['GET', '/v1/trade/orders'],
    ] as const) {
      expect(await r.call(method, path)).toMatchObject({ status: 404, body: err('not_found') })
    }
  })
})

describe('concurrency', () => {
  it('lets only one of two concurrent copies of a signed body through', async () => {
    const r = await rig()
    const cmd = await r.proxy.signCommand(
      buildCreateOrders({ orders: [{ iid: 4, buy: true, p: '100', qty: '1', tif: 'gtc' }] }),
    )
    const [a, b] = await Promise.all([
      call(r.handler, 'POST', '/v1/trade/orders', { body: cmd }),
      call(r.handler, 'POST', '/v1/trade/orders', { body: cmd }),
    ])
    expect([a?.status, b?.status].sort()).toEqual([200, 400])
  })
})
