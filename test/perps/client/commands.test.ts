/**
 * Signed commands: exact bodies (golden vectors from protocol-notes a.4 where they exist), signer
 * recovery, per-order results as data, request-level errors as typed errors, input validation.
 */

import { inspect } from 'node:util'
import { recoverTypedDataAddress } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ConfigError,
  InputValidationError,
  RateLimitError,
  RequestRejectedError,
  UnexpectedResponseError,
  UnknownOutcomeError,
} from '../../../src/errors.ts'
import { ProxyCredentials } from '../../../src/perps/client/context.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { DEFAULT_PERPS_DOMAIN } from '../../../src/perps/signing/domain.ts'
import { opTypedData } from '../../../src/perps/signing/typedData.ts'
import { recoverCreateProxySigner, recoverOpSigner } from '../../../src/perps/signing/verify.ts'
import { FREE_ADMISSION } from '../../../src/perps/throttle/requestGate.ts'
import {
  createHarness,
  fixedRandom,
  type Harness,
  type HarnessOptions,
  OWNER_ADDRESS,
  OWNER_PK,
  PROXY_ADDRESS,
  SECRET,
  T0,
  TERSE_ORDER,
} from './harness.ts'

let h: Harness
function setup(options: HarnessOptions = {}): Harness {
  h = createHarness(options)
  return h
}
afterEach(async () => {
  h.agent.assertNoPendingInterceptors()
  await h.close()
})

/** Trade ops are body-signed: the header pair must not travel with them. */
function expectNoAuthHeaders(): void {
  const req = h.only()
  expect(req.headers['polymarket-proxy']).toBeUndefined()
  expect(req.headers['polymarket-secret']).toBeUndefined()
  expect(req.headers['content-type']).toBe('application/json')
}

describe('createProxy', () => {
  it('sends the owner-signed body of the a.4 vector byte for byte', async () => {
    setup()
    h.reply({ body: { status: 'ok', secret: SECRET } })
    const res = await h.client.createProxy({ proxy: PROXY_ADDRESS, expiry: 1767225600000 })
    const req = h.only()
    expect(req.method).toBe('POST')
    expect(req.path).toBe('/v1/account/proxy')
    expect(req.body).toBe(
      JSON.stringify({
        op: {
          type: 'createProxy',
          args: { owner: OWNER_ADDRESS, proxy: PROXY_ADDRESS, expiry: 1767225600000 },
        },
        sig: '0x765f06b06d2faa45bff4263d093ce5c4965842866afe934d5cfed263f10fabaf4fd99e968a9d0c0a67264f26af99de5457dc06af97737505f6beec9d22f2119c1b',
        salt: 123456789,
        ts: 1767000000000,
      }),
    )
    expect(await recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, req.json)).toBe(OWNER_ADDRESS)
    expectNoAuthHeaders()
    expect(res.status).toBe('ok')
    expect(res.credentials).toBeInstanceOf(ProxyCredentials)
    expect(res.credentials.proxy).toBe(PROXY_ADDRESS)
    expect(res.credentials.secret).toBe(SECRET)
    expect(h.charges).toEqual([{ endpoint: 'createProxy', requestWeight: 1, actionWeight: 0 }])
  })

  it('the returned secret does not show in JSON, String or inspect', async () => {
    setup()
    h.reply({ body: { status: 'ok', secret: SECRET } })
    const res = await h.client.createProxy({ proxy: PROXY_ADDRESS, expiry: 1767225600000 })
    for (const text of [JSON.stringify(res), String(res.credentials), inspect(res, { depth: 5 })]) {
      expect(text).not.toContain(SECRET)
      expect(text).toContain(PROXY_ADDRESS)
    }
  })

  it('puts label and code at the top level, unsigned (same sig as without them)', async () => {
    setup()
    h.reply({ body: { status: 'ok', secret: SECRET } })
    await h.client.createProxy({
      proxy: PROXY_ADDRESS,
      expiry: 1767225600000,
      label: 'trading-bot',
      code: 'ABC123',
    })
    const body = h.only().json as Record<string, unknown>
    expect(body.label).toBe('trading-bot')
    expect(body.code).toBe('ABC123')
    expect(body.sig).toMatch(/^0x765f06b0/)
    expect(Object.keys(body)).toEqual(['op', 'sig', 'salt', 'ts', 'label', 'code'])
  })

  it('422 proxy already exists is a RequestRejectedError', async () => {
    setup()
    h.reply({ status: 422, body: { status: 'err', error: 'proxy already exists' } })
    const err = await h.client
      .createProxy({ proxy: PROXY_ADDRESS, expiry: 1767225600000 })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RequestRejectedError)
    expect(err).toMatchObject({ status: 422, code: 'proxy already exists', path: '/v1/account/proxy' })
  })

  it('a response without a secret is an UnexpectedResponseError naming the field', async () => {
    setup()
    h.reply({ body: { status: 'ok' } })
    const err = await h.client
      .createProxy({ proxy: PROXY_ADDRESS, expiry: 1767225600000 })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UnexpectedResponseError)
    expect((err as UnexpectedResponseError).issues[0]).toMatch(/^secret:/)
  })

  it('a per-call owner overrides the configured one; none at all is a ConfigError before any request', async () => {
    setup({ ownerSigner: undefined })
    await expect(
      h.client.createProxy({ proxy: PROXY_ADDRESS, expiry: 1767225600000 }),
    ).rejects.toBeInstanceOf(ConfigError)
    expect(h.requests).toHaveLength(0)
    h.reply({ body: { status: 'ok', secret: SECRET } })
    const owner = new CommandSigner({ privateKey: OWNER_PK, clock: h.clock, salts: fixedRandom(5) })
    await h.client.createProxy({ proxy: PROXY_ADDRESS, expiry: 1767225600000 }, { owner })
    expect(await recoverCreateProxySigner(DEFAULT_PERPS_DOMAIN, h.only().json)).toBe(OWNER_ADDRESS)
  })

  it('rejects a past expiry and a malformed proxy before any request', async () => {
    setup()
    await expect(h.client.createProxy({ proxy: PROXY_ADDRESS, expiry: T0 })).rejects.toBeInstanceOf(
      InputValidationError,
    )
    await expect(h.client.createProxy({ proxy: '0x1234', expiry: T0 + 1 })).rejects.toBeInstanceOf(
      InputValidationError,
    )
    expect(h.requests).toHaveLength(0)
    expect(h.charges).toHaveLength(0)
  })
})

describe('createOrders', () => {
  it('sends the a.4 createOrders vector byte for byte', async () => {
    setup()
    h.reply({ body: [{ status: 'ok', oid: 1001 }] })
    const acks = await h.client.createOrders([
      { iid: 1, buy: true, p: '100.5', qty: '2', tif: 'gtc', po: true },
    ])
    const req = h.only()
    expect(req.method).toBe('POST')
    expect(req.path).toBe('/v1/trade/orders')
    expect(req.body).toBe(
      '{"op":{"type":"createOrders","args":[{"iid":1,"buy":true,"po":true,"qty":"2","tif":"gtc","p":"100.5"}]},' +
        '"sig":"0x7875f34de4f6dbd1bf23224bd7102b3e7480017dc51986528d6bfec8499c75ef26acfba8594cbf9b028391d21e9a1e1f0882fe5cc21e95a6308c3aa64697c8321b",' +
        '"salt":123456789,"ts":1767000000000}',
    )
    expectNoAuthHeaders()
    expect(acks).toEqual([{ status: 'ok', oid: 1001 }])
  })

  it('returns per-order rejections as data, in request order, and charges 1 + floor(n/20) / n', async () => {
    setup()
    const orders = Array.from({ length: 45 }, (_, i) => ({
      iid: 1,
      buy: i % 2 === 0,
      p: '100',
      qty: '1',
      tif: 'gtc' as const,
      coid: (i + 1).toString(16).padStart(32, '0'),
    }))
    h.respond(() => ({
      body: orders.map((o, i) =>
        i === 3
          ? { status: 'err', error: 'insufficient_margin', coid: o.coid }
          : { status: 'ok', oid: 5000 + i, coid: o.coid },
      ),
    }))
    const acks = await h.client.createOrders(orders, { grp: 'order', expAfterMs: 2000 })
    expect(acks).toHaveLength(45)
    expect(acks[3]).toEqual({ status: 'err', error: 'insufficient_margin', coid: orders[3]?.coid })
    expect(acks[4]).toMatchObject({ status: 'ok', oid: 5004 })
    expect(h.charges).toEqual([{ endpoint: 'createOrders', requestWeight: 3, actionWeight: 45 }])
    const body = h.only().json as { op: { grp: string; args: { c: string }[] }; exp: number; ts: number }
    expect(body.op.grp).toBe('order')
    expect(body.op.args[0]?.c).toBe(orders[0]?.coid)
    expect(body.exp).toBe(body.ts + 2000)
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, body)).toBe(PROXY_ADDRESS)
  })

  it('sends triggers and reduce-only as the builder shapes them', async () => {
    setup()
    h.reply({ body: [{ status: 'ok', oid: 1 }] })
    await h.client.createOrders([
      {
        iid: 2,
        buy: false,
        qty: '3',
        tif: 'ioc',
        ro: true,
        trigger: { trp: '95', tpsl: 'sl', market: true },
      },
    ])
    const body = h.only().json as { op: { args: unknown[] } }
    expect(body.op.args[0]).toEqual({
      iid: 2,
      buy: false,
      po: false,
      qty: '3',
      tif: 'ioc',
      ro: true,
      tr: { tpsl: 'sl', trp: '95', market: true },
    })
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, body)).toBe(PROXY_ADDRESS)
  })

  it('rejects invalid orders before any request', async () => {
    setup()
    const bad: unknown[] = [
      [],
      [{ iid: 1, buy: true, qty: '0', p: '1', tif: 'gtc' }],
      [{ iid: 1, buy: true, qty: '1', p: '1e3', tif: 'gtc' }],
      [{ iid: 1, buy: true, qty: '1', tif: 'gtc' }],
      [{ iid: 1, buy: true, qty: '1', tif: 'fok', po: true }],
      [{ iid: 2 ** 32, buy: true, qty: '1', p: '1' }],
      [{ iid: 1, buy: true, qty: '1', p: '1', coid: '0'.repeat(32) }],
      [{ iid: 1, buy: true, qty: '1', p: '1', coid: 'ABCDEF'.padEnd(32, '0') }],
    ]
    for (const orders of bad) {
      await expect(
        h.client.createOrders(orders as Parameters<typeof h.client.createOrders>[0]),
      ).rejects.toBeInstanceOf(InputValidationError)
    }
    expect(h.requests).toHaveLength(0)
    expect(h.charges).toHaveLength(0)
  })
})

describe('modifyOrders', () => {
  const mods = [
    { oid: 42, p: '101', qty: '12' },
    { oid: 43, p: '99.5', qty: '1.25' },
  ]

  it('PATCHes the signed envelope, recovers to the proxy, returns per-order results as data', async () => {
    setup()
    h.reply({
      body: [
        { status: 'ok', order: TERSE_ORDER },
        { status: 'err', error: 'order_not_found', oid: 43 },
      ],
    })
    const results = await h.client.modifyOrders(mods)
    const req = h.only()
    expect(req.method).toBe('PATCH')
    expect(req.path).toBe('/v1/trade/orders')
    expectNoAuthHeaders()
    const body = req.json as Record<string, unknown>
    expect(Object.keys(body)).toEqual(['op', 'sig', 'salt', 'ts'])
    expect(body).toMatchObject({
      op: { type: 'modifyOrders', args: mods },
      salt: 123456789,
      ts: T0,
    })
    expect(body.sig).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/)
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, body)).toBe(PROXY_ADDRESS)
    // Independently of the verifier's parsing: viem over the positional op [oid, p, qty].
    const recovered = await recoverTypedDataAddress({
      ...opTypedData(
        DEFAULT_PERPS_DOMAIN,
        [
          'modifyOrders',
          [
            [42, '101', '12'],
            [43, '99.5', '1.25'],
          ],
        ],
        { salt: 123456789, ts: T0 },
      ),
      signature: body.sig as `0x${string}`,
    })
    expect(recovered).toBe(PROXY_ADDRESS)
    expect(results).toEqual([
      { status: 'ok', order: TERSE_ORDER },
      { status: 'err', error: 'order_not_found', oid: 43 },
    ])
    expect(h.charges).toEqual([{ endpoint: 'modifyOrders', requestWeight: 1, actionWeight: 2 }])
  })

  it('a signature by another key does not recover to the proxy', async () => {
    setup({ salt: 99 })
    h.reply({
      body: [
        { status: 'ok', order: TERSE_ORDER },
        { status: 'ok', order: { ...TERSE_ORDER, oid: 43 } },
      ],
    })
    await h.client.modifyOrders(mods)
    const body = h.only().json as { op: { args: { p: string }[] } }
    const tampered = structuredClone(body)
    if (tampered.op.args[0]) tampered.op.args[0].p = '102'
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, tampered)).not.toBe(PROXY_ADDRESS)
    expect(await recoverOpSigner({ ...DEFAULT_PERPS_DOMAIN, chainId: 1 }, body)).not.toBe(PROXY_ADDRESS)
  })

  it('signs after the limiter admits the request, so ts is fresh', async () => {
    const clockDelay = 1500
    let clock: Harness['clock'] | undefined
    setup({
      gate: {
        admit: async () => {
          if (clock) clock.t += clockDelay
          return FREE_ADMISSION
        },
      },
    })
    clock = h.clock
    h.reply({ body: [{ status: 'ok', order: TERSE_ORDER }] })
    await h.client.modifyOrders([mods[0] as (typeof mods)[0]], { expAfterMs: 5000 })
    const body = h.only().json as { ts: number; exp: number }
    expect(body.ts).toBe(T0 + clockDelay)
    expect(body.exp).toBe(T0 + clockDelay + 5000)
  })

  it('exp: absolute within 5 s is sent; the config default applies when none is given', async () => {
    setup({ defaultExpAfterMs: 3000 })
    h.reply({ body: [{ status: 'ok', order: TERSE_ORDER }] })
    h.reply({ body: [{ status: 'ok', order: TERSE_ORDER }] })
    await h.client.modifyOrders([mods[0] as (typeof mods)[0]], { exp: T0 + 5000 })
    await h.client.modifyOrders([mods[0] as (typeof mods)[0]])
    expect(h.requests.map((r) => (r.json as { exp: number }).exp)).toEqual([T0 + 5000, T0 + 3000])
  })

  it('rejects bad input before any request or charge', async () => {
    setup()
    const cases: [unknown, object][] = [
      [[], {}],
      [[{ oid: 1, p: 'abc', qty: '1' }], {}],
      [[{ oid: 1, p: '-1', qty: '1' }], {}],
      [[{ oid: 1, p: '0', qty: '1' }], {}],
      [[{ oid: 1, p: '1', qty: '0.000' }], {}],
      [[{ oid: -1, p: '1', qty: '1' }], {}],
      [[{ oid: 1, p: '1', qty: '1', extra: true }], {}],
      [[{ oid: 1, p: '1', qty: '1' }], { exp: T0 + 5001 }],
      [[{ oid: 1, p: '1', qty: '1' }], { exp: T0 }],
      [[{ oid: 1, p: '1', qty: '1' }], { exp: T0 + 1000, expAfterMs: 1000 }],
      [[{ oid: 1, p: '1', qty: '1' }], { expAfterMs: 0 }],
    ]
    for (const [input, opts] of cases) {
      await expect(
        h.client.modifyOrders(input as Parameters<typeof h.client.modifyOrders>[0], opts),
      ).rejects.toBeInstanceOf(InputValidationError)
    }
    const err = await h.client.modifyOrders(mods, { exp: T0 + 6000 }).catch((e: unknown) => e)
    expect((err as Error).message).toMatch(/more than 5000 ms ahead/)
    expect(h.requests).toHaveLength(0)
    expect(h.charges).toHaveLength(0)
  })

  it('no signer is a ConfigError before any request', async () => {
    setup({ signer: undefined })
    await expect(h.client.modifyOrders(mods)).rejects.toBeInstanceOf(ConfigError)
    expect(h.requests).toHaveLength(0)
  })

  it('request-level errors arrive as a one-item array with 4xx and are typed', async () => {
    setup()
    h.reply({ status: 400, body: [{ status: 'err', error: 'invalid signature' }] })
    h.reply({ status: 404, body: [{ status: 'err', error: 'not_found' }] })
    h.reply({
      status: 429,
      body: [{ status: 'err', error: 'action_rate_limited' }],
      headers: { 'retry-after': '2' },
    })
    h.reply({ status: 500, body: [{ status: 'err', error: 'internal_error' }] })
    const e400 = await h.client.modifyOrders(mods).catch((e: unknown) => e)
    expect(e400).toBeInstanceOf(RequestRejectedError)
    expect(e400).toMatchObject({ status: 400, code: 'invalid signature' })
    const e404 = await h.client.modifyOrders(mods).catch((e: unknown) => e)
    expect(e404).toMatchObject({ status: 404, code: 'not_found' })
    const e429 = await h.client.modifyOrders(mods).catch((e: unknown) => e)
    expect(e429).toBeInstanceOf(RateLimitError)
    expect(e429).toMatchObject({ code: 'action_rate_limited', retryAfterMs: 2000 })
    expect(h.rateLimited).toEqual([{ endpoint: 'modifyOrders', error: e429 }])
    const e500 = await h.client.modifyOrders(mods).catch((e: unknown) => e)
    expect(e500).toBeInstanceOf(UnknownOutcomeError)
    expect((e500 as UnknownOutcomeError).cause).toMatchObject({ status: 500, code: 'internal_error' })
    expect(h.requests).toHaveLength(4)
  })

  it('a lone err item with 200 for a larger batch is a request-level rejection', async () => {
    setup()
    h.reply({ body: [{ status: 'err', error: 'no orders provided' }] })
    const err = await h.client.modifyOrders(mods).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RequestRejectedError)
    expect(err).toMatchObject({ status: 200, code: 'no orders provided' })
  })

  it('a result count mismatch is an UnexpectedResponseError', async () => {
    setup()
    h.reply({ body: [{ status: 'ok', order: TERSE_ORDER }] })
    await expect(h.client.modifyOrders(mods)).rejects.toBeInstanceOf(UnexpectedResponseError)
  })
})

describe('cancelOrders', () => {
  it('sends the a.4 cancelOrders vector as a DELETE body', async () => {
    setup({ salt: 7 })
    h.clock.t = 1767000002000
    h.reply({
      body: [
        { status: 'ok', oid: 1234567890 },
        { status: 'err', error: 'order_not_found', oid: 1234567891 },
      ],
    })
    const results = await h.client.cancelOrders([1234567890, 1234567891])
    const req = h.only()
    expect(req.method).toBe('DELETE')
    expect(req.path).toBe('/v1/trade/orders')
    expect(req.body).toBe(
      '{"op":{"type":"cancelOrders","args":[1234567890,1234567891]},' +
        '"sig":"0xa01acf4684e4629f5f8bf8ace3fac1dfe85b7c6a6ad5ffc9cf0231a814f192580877a2949588f5898ab30316280f10853e53704ee817c7bd1cefc2df8d2724711c",' +
        '"salt":7,"ts":1767000002000}',
    )
    expectNoAuthHeaders()
    expect(results[1]).toEqual({ status: 'err', error: 'order_not_found', oid: 1234567891 })
    expect(h.charges).toEqual([{ endpoint: 'cancelOrders', requestWeight: 1, actionWeight: 0 }])
  })

  it('rejects an empty list and bad ids before any request', async () => {
    setup()
    await expect(h.client.cancelOrders([])).rejects.toBeInstanceOf(InputValidationError)
    await expect(h.client.cancelOrders([1.5])).rejects.toBeInstanceOf(InputValidationError)
    expect(h.requests).toHaveLength(0)
  })
})

describe('cancelAll', () => {
  it('DELETE /v1/trade/orders/all with args {} for every instrument', async () => {
    setup()
    h.reply({ body: { status: 'ok' } })
    expect(await h.client.cancelAll()).toEqual({ status: 'ok' })
    const req = h.only()
    expect(req.method).toBe('DELETE')
    expect(req.path).toBe('/v1/trade/orders/all')
    expect(req.json).toMatchObject({ op: { type: 'cancelAll', args: {} }, salt: 123456789, ts: T0 })
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, req.json)).toBe(PROXY_ADDRESS)
    expectNoAuthHeaders()
    expect(h.charges).toEqual([{ endpoint: 'cancelAll', requestWeight: 1, actionWeight: 0 }])
  })

  it('args {iid} for one instrument, with exp', async () => {
    setup()
    h.reply({ body: { status: 'ok' } })
    await h.client.cancelAll({ iid: 3 }, { expAfterMs: 1000 })
    const body = h.only().json as Record<string, unknown>
    expect(body).toMatchObject({ op: { type: 'cancelAll', args: { iid: 3 } }, exp: T0 + 1000 })
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, body)).toBe(PROXY_ADDRESS)
  })

  it('rejects an out-of-range iid before any request', async () => {
    setup()
    await expect(h.client.cancelAll({ iid: -1 })).rejects.toBeInstanceOf(InputValidationError)
    expect(h.requests).toHaveLength(0)
  })
})
