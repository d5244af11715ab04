import { afterEach, describe, expect, it } from 'vitest'
import {
  ConfigError,
  InputValidationError,
  RequestRejectedError,
  UnknownOutcomeError,
} from '../../../src/errors.ts'
import {
  CREDENTIALS_BODY,
  createHarness,
  funding,
  type Harness,
  type HarnessOptions,
  ORDER_DATA,
  PORTFOLIO_BODY,
  PROXY_ADDRESS,
  SECRET,
  withdrawal,
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

function expectAuthGet(path: string): void {
  const req = h.only()
  expect(req.method).toBe('GET')
  expect(req.path).toBe(path)
  expect(req.body).toBeUndefined()
  expect(req.headers['polymarket-proxy']).toBe(PROXY_ADDRESS)
  expect(req.headers['polymarket-secret']).toBe(SECRET)
}

describe('auth headers', () => {
  it('default to POLYMARKET-PROXY / POLYMARKET-SECRET', async () => {
    setup()
    h.reply({ body: PORTFOLIO_BODY })
    await h.client.getPortfolio()
    expectAuthGet('/v1/account/portfolio')
    expect(h.only().headers['service-proxy']).toBeUndefined()
  })

  it('use the spec names SERVICE-PROXY / SERVICE-SECRET when configured', async () => {
    setup({ authHeaderNames: { proxy: 'SERVICE-PROXY', secret: 'SERVICE-SECRET' } })
    h.reply({ body: PORTFOLIO_BODY })
    await h.client.getPortfolio()
    const req = h.only()
    expect(req.headers['service-proxy']).toBe(PROXY_ADDRESS)
    expect(req.headers['service-secret']).toBe(SECRET)
    expect(req.headers['polymarket-proxy']).toBeUndefined()
    expect(req.headers['polymarket-secret']).toBeUndefined()
  })

  it('a missing credential is a ConfigError before any request or charge', async () => {
    setup({ credentials: undefined })
    await expect(h.client.getPortfolio()).rejects.toBeInstanceOf(ConfigError)
    await expect(h.client.applyReferral('ABC123')).rejects.toBeInstanceOf(ConfigError)
    expect(h.requests).toHaveLength(0)
    expect(h.charges).toHaveLength(0)
  })
})

describe('getPortfolio', () => {
  it('parses positions and the margin summary', async () => {
    setup()
    h.reply({ body: PORTFOLIO_BODY })
    const p = await h.client.getPortfolio()
    expect(p).toEqual(PORTFOLIO_BODY)
    expect(h.charges).toEqual([{ endpoint: 'getPortfolio', requestWeight: 2, actionWeight: 0 }])
  })

  it('accepts the spec-only margin.available_order_margin', async () => {
    setup()
    h.reply({
      body: { ...PORTFOLIO_BODY, margin: { ...PORTFOLIO_BODY.margin, available_order_margin: '5' } },
    })
    expect((await h.client.getPortfolio()).margin.available_order_margin).toBe('5')
  })
})

describe('getCredentials', () => {
  it('sends the header pair and parses keys', async () => {
    setup()
    h.reply({ body: CREDENTIALS_BODY })
    const c = await h.client.getCredentials()
    expectAuthGet('/v1/account/credentials')
    expect(c.keys[0]).toEqual({ proxy: PROXY_ADDRESS, expiry: 1767225600000, label: 'trading-bot' })
    expect(h.charges[0]?.requestWeight).toBe(2)
  })
})

describe('getOrders', () => {
  it('sends every filter by its wire name; weight 1 with an order id, 10 without', async () => {
    setup()
    h.reply({ body: [{ ...ORDER_DATA, status: 'filled', resting_quantity: '0', filled_quantity: '10.00' }] })
    const orders = await h.client.getOrders({
      orderId: 42,
      clientOrderId: '0123456789abcdef0123456789abcdef',
      instrumentId: 1,
      startTimestamp: 1,
      endTimestamp: 2,
    })
    expectAuthGet(
      '/v1/account/orders?order_id=42&client_order_id=0123456789abcdef0123456789abcdef&instrument_id=1&start_timestamp=1&end_timestamp=2',
    )
    expect(orders[0]).toMatchObject({ oid: 42, status: 'filled', rest: '0', fill: '10.00' })
    expect(h.charges[0]?.requestWeight).toBe(1)
    setup()
    h.reply({ body: [] })
    await h.client.getOrders()
    expect(h.charges[0]?.requestWeight).toBe(10)
  })

  it('rejects an all-zero client order id before any request', async () => {
    setup()
    await expect(h.client.getOrders({ clientOrderId: '0'.repeat(32) })).rejects.toBeInstanceOf(
      InputValidationError,
    )
    expect(h.requests).toHaveLength(0)
  })
})

describe('getOpenOrders', () => {
  it('without a filter: weight 20, OrderData transformed to the terse Order', async () => {
    setup()
    h.reply({ body: [ORDER_DATA, { ...ORDER_DATA, order_id: 43, client_order_id: undefined, tpsl: null }] })
    const orders = await h.client.getOpenOrders()
    expectAuthGet('/v1/account/open-orders')
    expect(orders[0]).toEqual({
      oid: 42,
      iid: 1,
      buy: true,
      p: '100.5',
      qty: '10.00',
      tif: 'gtc',
      po: true,
      ro: false,
      rest: '9.00',
      fill: '1.00',
      cts: ORDER_DATA.created_timestamp,
      uts: ORDER_DATA.updated_timestamp,
      status: 'open',
      coid: '0123456789abcdef0123456789abcdef',
    })
    expect(orders[1]?.coid).toBeUndefined()
    expect(h.charges).toEqual([{ endpoint: 'getOpenOrders', requestWeight: 20, actionWeight: 0 }])
  })

  it('with instrument_id: weight 1', async () => {
    setup()
    h.reply({ body: [] })
    expect(await h.client.getOpenOrders({ instrumentId: 7 })).toEqual([])
    expectAuthGet('/v1/account/open-orders?instrument_id=7')
    expect(h.charges[0]?.requestWeight).toBe(1)
  })

  it('rejects an out-of-range instrument id before any request', async () => {
    setup()
    await expect(h.client.getOpenOrders({ instrumentId: 2 ** 32 })).rejects.toBeInstanceOf(
      InputValidationError,
    )
    expect(h.requests).toHaveLength(0)
  })
})

describe('getWithdrawals', () => {
  it('maps every filter to its wire name', async () => {
    setup()
    const hash = `0x${'ab'.repeat(32)}`
    h.reply({ body: { data: [withdrawal(7, 1000)], more: false } })
    const page = await h.client.getWithdrawals({
      status: 'confirmed',
      hash,
      startTimestamp: 1000,
      endTimestamp: 2000,
    })
    expectAuthGet(
      `/v1/account/withdrawals?withdrawal_status=confirmed&hash=${hash}&start_timestamp=1000&end_timestamp=2000`,
    )
    expect(page.more).toBe(false)
    expect(page.data[0]).toMatchObject({
      withdraw_id: 7,
      amount: '100000000',
      fee: '5.00',
      status: 'confirmed',
    })
    expect(h.charges).toEqual([{ endpoint: 'getWithdrawals', requestWeight: 10, actionWeight: 0 }])
  })

  it('sends no query without filters; a pending row has hash 0x and no confirmed_timestamp', async () => {
    setup()
    h.reply({ body: { data: [withdrawal(8, 1000, 'pending')], more: true } })
    const page = await h.client.getWithdrawals()
    expectAuthGet('/v1/account/withdrawals')
    expect(page).toMatchObject({ more: true, data: [{ hash: '0x', status: 'pending' }] })
    expect(page.data[0]?.confirmed_timestamp).toBeUndefined()
  })

  it('rejects bad filters before any request', async () => {
    setup()
    const bad = [
      { status: 'lost' },
      { hash: 'abc' },
      { startTimestamp: 2000, endTimestamp: 1000 },
      { startTimestamp: -1 },
      { startTimestamp: 1.5 },
    ]
    for (const params of bad) {
      await expect(
        h.client.getWithdrawals(params as Parameters<typeof h.client.getWithdrawals>[0]),
      ).rejects.toBeInstanceOf(InputValidationError)
    }
    expect(h.requests).toHaveLength(0)
  })
})

describe('getFunding', () => {
  it('maps instrument_id and the window', async () => {
    setup()
    h.reply({ body: { data: [funding(5000, 3, 11), funding(4000, 3)], more: false } })
    const page = await h.client.getFunding({ instrumentId: 3, startTimestamp: 0, endTimestamp: 5000 })
    expectAuthGet('/v1/account/funding?instrument_id=3&start_timestamp=0&end_timestamp=5000')
    expect(page.data).toHaveLength(2)
    expect(page.data[0]).toMatchObject({ id: 11, instrument_id: 3, funding: '0.032', timestamp: 5000 })
    expect(page.data[1]?.id).toBeUndefined()
    expect(h.charges).toEqual([{ endpoint: 'getFunding', requestWeight: 10, actionWeight: 0 }])
  })

  it('rejects start after end before any request', async () => {
    setup()
    await expect(h.client.getFunding({ startTimestamp: 2, endTimestamp: 1 })).rejects.toBeInstanceOf(
      InputValidationError,
    )
    expect(h.requests).toHaveLength(0)
  })
})

describe('applyReferral', () => {
  it('POSTs {code} with the header pair and returns the ack', async () => {
    setup()
    h.reply({ body: { status: 'ok' } })
    expect(await h.client.applyReferral('ABC123')).toEqual({ status: 'ok' })
    const req = h.only()
    expect(req.method).toBe('POST')
    expect(req.path).toBe('/v1/account/referral')
    expect(req.headers['content-type']).toBe('application/json')
    expect(req.headers['polymarket-proxy']).toBe(PROXY_ADDRESS)
    expect(req.headers['polymarket-secret']).toBe(SECRET)
    expect(req.body).toBe('{"code":"ABC123"}')
    expect(h.charges).toEqual([{ endpoint: 'applyReferral', requestWeight: 1, actionWeight: 0 }])
  })

  it('a second code is the venue rejection, not a retry', async () => {
    setup()
    h.reply({ status: 422, body: { status: 'err', error: 'referral_already_set' } })
    const err = await h.client.applyReferral('ABC123').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RequestRejectedError)
    expect(err).toMatchObject({ status: 422, code: 'referral_already_set' })
    expect(h.requests).toHaveLength(1)
  })

  it('is never retried (even with a retrying read policy): a 503 is an unknown outcome after one request', async () => {
    setup({ readRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 } })
    h.reply({ status: 503, body: { status: 'err', error: 'internal_error' } })
    await expect(h.client.applyReferral('ABC123')).rejects.toBeInstanceOf(UnknownOutcomeError)
    expect(h.requests).toHaveLength(1)
  })

  it('rejects an empty code before any request', async () => {
    setup()
    await expect(h.client.applyReferral('')).rejects.toBeInstanceOf(InputValidationError)
    expect(h.requests).toHaveLength(0)
  })
})
