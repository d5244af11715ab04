/**
 * Error paths of EVERY endpoint (table-driven): 400, 401, 422, 429 with and without Retry-After,
 * 500, malformed JSON, schema mismatch naming the field, network failure; each with exactly one
 * request. Reads use NO_RETRY here; retries are covered in transport.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  RateLimitError,
  RequestRejectedError,
  TransportError,
  UnexpectedResponseError,
  UnknownOutcomeError,
} from '../../../src/errors.ts'
import type { PerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import type { PerpsEndpoint } from '../../../src/perps/weights.ts'
import {
  ASSETS_BODY,
  CREDENTIALS_BODY,
  createHarness,
  EXCHANGE_BODY,
  FakeClock,
  FEES_BODY,
  fixedRandom,
  type Harness,
  INDEX_BODY,
  INSTRUMENT,
  ORDER_DATA,
  OWNER_PK,
  PORTFOLIO_BODY,
  PROXY_ADDRESS,
  PUBLIC_PORTFOLIO_BODY,
  STATISTICS_BODY,
  T0,
  TICKERS_BODY,
  withdrawal,
} from './harness.ts'

interface EndpointCase {
  endpoint: PerpsEndpoint
  method: string
  path: string
  call: (c: PerpsClient) => Promise<unknown>
  command: boolean
  /** Batch endpoints answer errors as a one-item array. */
  batch: boolean
  /** A 200 body that breaks the schema, and the field the error must name. */
  mismatch: { body: unknown; field: string }
}

const mod = [{ oid: 1, p: '1', qty: '1' }]

/** The owner's signer, for the owner-signed commands (deleteProxy, withdraw). */
const ownerSigner = () =>
  new CommandSigner({ privateKey: OWNER_PK, clock: new FakeClock(), salts: fixedRandom(3) })

const CASES: EndpointCase[] = [
  {
    endpoint: 'getIndex',
    method: 'GET',
    path: '/v1/info/index?asset=NVDA',
    call: (c) => c.getIndex('NVDA'),
    command: false,
    batch: false,
    mismatch: { body: { ...INDEX_BODY, index_price: 160 }, field: 'index_price' },
  },
  {
    endpoint: 'getPublicPortfolio',
    method: 'GET',
    path: `/v1/info/portfolio?address=${PROXY_ADDRESS}`,
    call: (c) => c.getPublicPortfolio(PROXY_ADDRESS),
    command: false,
    batch: false,
    mismatch: { body: { ...PUBLIC_PORTFOLIO_BODY, equity: undefined }, field: 'equity' },
  },
  {
    endpoint: 'getStatistics',
    method: 'GET',
    path: '/v1/info/statistics',
    call: (c) => c.getStatistics(),
    command: false,
    batch: false,
    // A bad row is dropped (tolerantArray); only a list that is no list fails the read.
    mismatch: { body: { rows: STATISTICS_BODY }, field: '(root)' },
  },
  {
    endpoint: 'getTickers',
    method: 'GET',
    path: '/v1/info/tickers',
    call: (c) => c.getTickers(),
    command: false,
    batch: false,
    mismatch: { body: { rows: TICKERS_BODY }, field: '(root)' },
  },
  {
    endpoint: 'getFees',
    method: 'GET',
    path: '/v1/info/fees',
    call: (c) => c.getFees(),
    command: false,
    batch: false,
    // An entry we cannot read is dropped (tolerantArray); a schedule that is no list fails the read.
    mismatch: { body: { fee_schedule: FEES_BODY.fee_schedule[0] }, field: 'fee_schedule' },
  },
  {
    endpoint: 'getAssets',
    method: 'GET',
    path: '/v1/info/assets',
    call: (c) => c.getAssets(),
    command: false,
    batch: false,
    mismatch: { body: [{ ...ASSETS_BODY[0], decimals: '6' }], field: '0.decimals' },
  },
  {
    endpoint: 'getExchange',
    method: 'GET',
    path: '/v1/info/exchange',
    call: (c) => c.getExchange(),
    command: false,
    batch: false,
    mismatch: { body: { ...EXCHANGE_BODY, chain_id: '137' }, field: 'chain_id' },
  },
  {
    endpoint: 'getTime',
    method: 'GET',
    path: '/v1/info/time',
    call: (c) => c.getTime(),
    command: false,
    batch: false,
    mismatch: { body: { now: 1 }, field: 'time' },
  },
  {
    endpoint: 'getInstruments',
    method: 'GET',
    path: '/v1/info/instruments',
    call: (c) => c.getInstruments(),
    command: false,
    batch: false,
    mismatch: { body: { rows: [INSTRUMENT] }, field: '(root)' },
  },
  {
    endpoint: 'getWithdrawals',
    method: 'GET',
    path: '/v1/account/withdrawals',
    call: (c) => c.getWithdrawals(),
    command: false,
    batch: false,
    mismatch: { body: { data: [withdrawal(1, 1)] }, field: 'more' },
  },
  {
    endpoint: 'getFills',
    method: 'GET',
    path: '/v1/account/fills',
    call: (c) => c.getFills(),
    command: false,
    batch: false,
    mismatch: { body: { data: { trade_id: 1 }, more: false }, field: 'data' },
  },
  {
    endpoint: 'getFunding',
    method: 'GET',
    path: '/v1/account/funding',
    call: (c) => c.getFunding(),
    command: false,
    batch: false,
    mismatch: { body: { data: { instrument_id: 1 }, more: false }, field: 'data' },
  },
  {
    endpoint: 'getPortfolio',
    method: 'GET',
    path: '/v1/account/portfolio',
    call: (c) => c.getPortfolio(),
    command: false,
    batch: false,
    mismatch: { body: { ...PORTFOLIO_BODY, in_liquidation: 'no' }, field: 'in_liquidation' },
  },
  {
    endpoint: 'getCredentials',
    method: 'GET',
    path: '/v1/account/credentials',
    call: (c) => c.getCredentials(),
    command: false,
    batch: false,
    mismatch: { body: { ...CREDENTIALS_BODY, keys: [{ proxy: PROXY_ADDRESS }] }, field: 'keys.0.expiry' },
  },
  {
    endpoint: 'getOpenOrders',
    method: 'GET',
    path: '/v1/account/open-orders',
    call: (c) => c.getOpenOrders(),
    command: false,
    batch: false,
    mismatch: { body: { rows: [ORDER_DATA] }, field: '(root)' },
  },
  {
    endpoint: 'getOrders',
    method: 'GET',
    path: '/v1/account/orders',
    call: (c) => c.getOrders(),
    command: false,
    batch: false,
    mismatch: { body: { rows: [ORDER_DATA] }, field: '(root)' },
  },
  {
    endpoint: 'applyReferral',
    method: 'POST',
    path: '/v1/account/referral',
    call: (c) => c.applyReferral('ABC123'),
    command: true,
    batch: false,
    mismatch: { body: { status: 'done' }, field: 'status' },
  },
  {
    endpoint: 'createProxy',
    method: 'POST',
    path: '/v1/account/proxy',
    call: (c) => c.createProxy({ proxy: PROXY_ADDRESS, expiry: T0 + 86_400_000 }),
    command: true,
    batch: false,
    mismatch: { body: { status: 'ok', secret: 7 }, field: 'secret' },
  },
  {
    endpoint: 'createOrders',
    method: 'POST',
    path: '/v1/trade/orders',
    call: (c) => c.createOrders([{ iid: 1, buy: true, p: '1', qty: '1', tif: 'gtc' }]),
    command: true,
    batch: true,
    mismatch: { body: [{ status: 'ok' }], field: '0.oid' },
  },
  {
    endpoint: 'modifyOrders',
    method: 'PATCH',
    path: '/v1/trade/orders',
    call: (c) => c.modifyOrders(mod),
    command: true,
    batch: true,
    mismatch: { body: [{ status: 'ok', order: { oid: 1 } }], field: '0.order.iid' },
  },
  {
    endpoint: 'cancelOrders',
    method: 'DELETE',
    path: '/v1/trade/orders',
    call: (c) => c.cancelOrders([1]),
    command: true,
    batch: true,
    mismatch: { body: [{ status: 'maybe', oid: 1 }], field: '0.status' },
  },
  {
    endpoint: 'cancelAll',
    method: 'DELETE',
    path: '/v1/trade/orders/all',
    call: (c) => c.cancelAll(),
    command: true,
    batch: false,
    mismatch: { body: { status: 'err' }, field: 'status' },
  },
  {
    endpoint: 'setAutoCancel',
    method: 'PATCH',
    path: '/v1/trade/auto-cancel',
    call: (c) => c.setAutoCancel({ time: 0 }),
    command: true,
    batch: false,
    mismatch: { body: { status: 'ok', deadline: 'soon' }, field: 'deadline' },
  },
  {
    endpoint: 'getAccountStats',
    method: 'GET',
    path: '/v1/account/stats',
    call: (c) => c.getAccountStats(),
    command: false,
    batch: false,
    mismatch: { body: { volume_7d: 7 }, field: 'volume_7d' },
  },
  {
    endpoint: 'getNotifications',
    method: 'GET',
    path: '/v1/account/notifications',
    call: (c) => c.getNotifications(),
    command: false,
    batch: false,
    mismatch: { body: { items: [], unread: 'none', has_more: false }, field: 'unread' },
  },
  {
    endpoint: 'deleteProxy',
    method: 'DELETE',
    path: '/v1/account/proxy',
    call: (c) => c.deleteProxy({ proxy: PROXY_ADDRESS }, { owner: ownerSigner() }),
    command: true,
    batch: false,
    mismatch: { body: { status: 'maybe' }, field: 'status' },
  },
  {
    endpoint: 'withdraw',
    method: 'POST',
    path: '/v1/account/withdraw',
    call: (c) => c.withdraw({ amount: 1_000_000n }, { owner: ownerSigner() }),
    command: true,
    batch: false,
    mismatch: { body: { status: 'maybe' }, field: 'status' },
  },
  {
    endpoint: 'getAutoCancel',
    method: 'GET',
    path: '/v1/account/auto-cancel',
    call: (c) => c.getAutoCancel(),
    command: false,
    batch: false,
    mismatch: { body: { deadline: 0, triggered: 'one', daily_limit: 10, next_reset: 1 }, field: 'triggered' },
  },
  {
    endpoint: 'cancelOrdersCoid',
    method: 'DELETE',
    path: '/v1/trade/orders-coid',
    call: (c) => c.cancelOrdersCoid(['0123456789abcdef0123456789abcdef']),
    command: true,
    batch: true,
    mismatch: { body: [{ status: 'maybe' }], field: '0.status' },
  },
  {
    endpoint: 'updateLeverage',
    method: 'PATCH',
    path: '/v1/trade/leverage',
    call: (c) => c.updateLeverage({ instrumentId: 1, leverage: 3, cross: true }),
    command: true,
    batch: false,
    mismatch: { body: { status: 'ok', instrument_id: 1, leverage: 0, cross: true }, field: 'leverage' },
  },
  {
    endpoint: 'updateMargin',
    method: 'PATCH',
    path: '/v1/trade/margin',
    call: (c) => c.updateMargin({ instrumentId: 1, amount: '-5' }),
    command: true,
    batch: false,
    mismatch: { body: { status: 'done' }, field: 'status' },
  },
  {
    endpoint: 'getAccountConfig',
    method: 'GET',
    path: '/v1/account/config',
    call: (c) => c.getAccountConfig(),
    command: false,
    batch: false,
    mismatch: { body: { rows: [] }, field: '(root)' },
  },
  {
    endpoint: 'getBook',
    method: 'GET',
    path: '/v1/info/book?instrument_id=1&depth=10',
    call: (c) => c.getBook({ instrumentId: 1, depth: 10 }),
    command: false,
    batch: false,
    mismatch: { body: { instrument_id: 1, bids: [], asks: [], timestamp: 1 }, field: 'sequence' },
  },
  {
    endpoint: 'getKlines',
    method: 'GET',
    path: '/v1/info/klines?instrument_id=1&interval=1m&start_timestamp=5',
    call: (c) => c.getKlines({ instrumentId: 1, interval: '1m', startTimestamp: 5 }),
    command: false,
    batch: false,
    mismatch: { body: { data: [] }, field: 'more' },
  },
  {
    endpoint: 'getTrades',
    method: 'GET',
    path: '/v1/info/trades?instrument_id=1',
    call: (c) => c.getTrades({ instrumentId: 1 }),
    command: false,
    batch: false,
    mismatch: { body: { data: {}, more: false }, field: 'data' },
  },
  {
    endpoint: 'getFundingHistory',
    method: 'GET',
    path: '/v1/info/funding?instrument_id=1',
    call: (c) => c.getFundingHistory({ instrumentId: 1 }),
    command: false,
    batch: false,
    mismatch: { body: { data: [], more: 'no' }, field: 'more' },
  },
  {
    endpoint: 'getBalances',
    method: 'GET',
    path: '/v1/account/balances',
    call: (c) => c.getBalances(),
    command: false,
    batch: false,
    mismatch: { body: { asset: 'pUSD' }, field: '(root)' },
  },
  {
    endpoint: 'getDeposits',
    method: 'GET',
    path: '/v1/account/deposits',
    call: (c) => c.getDeposits(),
    command: false,
    batch: false,
    mismatch: { body: { data: [] }, field: 'more' },
  },
  {
    endpoint: 'getEquityHistory',
    method: 'GET',
    path: '/v1/account/equity?interval=1h&start_timestamp=5',
    call: (c) => c.getEquityHistory({ interval: '1h', startTimestamp: 5 }),
    command: false,
    batch: false,
    mismatch: { body: { data: 7, more: false }, field: 'data' },
  },
  {
    endpoint: 'getPnlHistory',
    method: 'GET',
    path: '/v1/account/pnl?interval=1d&start_timestamp=5',
    call: (c) => c.getPnlHistory({ interval: '1d', startTimestamp: 5 }),
    command: false,
    batch: false,
    mismatch: { body: { data: [], more: 1 }, field: 'more' },
  },
]

let h: Harness
afterEach(async () => {
  h.agent.assertNoPendingInterceptors()
  await h.close()
})

function errBody(c: EndpointCase, error: string): unknown {
  const body = { status: 'err', error, ref: 'g-1', ts: T0 }
  return c.batch ? [body] : body
}

async function failure(c: EndpointCase): Promise<unknown> {
  const e = await c.call(h.client).then(
    () => undefined,
    (err: unknown) => err,
  )
  expect(e, 'the call should have failed').toBeDefined()
  expect(h.requests).toHaveLength(1)
  expect(h.requests[0]?.method).toBe(c.method)
  expect(h.requests[0]?.path).toBe(c.path)
  return e
}

it('the table covers every endpoint of the weight table', async () => {
  const { PERPS_WEIGHTS } = await import('../../../src/perps/weights.ts')
  expect(CASES.map((c) => c.endpoint).sort()).toEqual(Object.keys(PERPS_WEIGHTS).sort())
  h = createHarness()
})

describe.each(CASES)('$endpoint error paths', (c) => {
  it('400 → RequestRejectedError carrying the venue text', async () => {
    h = createHarness()
    const text = 'invalid query parameters: missing field `instrument_id`'
    h.reply({ status: 400, body: errBody(c, text) })
    const e = await failure(c)
    expect(e).toBeInstanceOf(RequestRejectedError)
    expect(e).toMatchObject({ status: 400, code: text, path: c.path.split('?')[0] })
  })

  it('401 unauthorized → RequestRejectedError', async () => {
    h = createHarness()
    h.reply({ status: 401, body: errBody(c, 'unauthorized') })
    const e = await failure(c)
    expect(e).toBeInstanceOf(RequestRejectedError)
    expect(e).not.toBeInstanceOf(RateLimitError)
    expect(e).toMatchObject({ status: 401, code: 'unauthorized' })
  })

  it('422 → RequestRejectedError with the engine id', async () => {
    h = createHarness()
    h.reply({ status: 422, body: errBody(c, 'insufficient_margin') })
    const e = await failure(c)
    expect(e).toMatchObject({ status: 422, code: 'insufficient_margin' })
  })

  it('429 with Retry-After → RateLimitError.retryAfterMs and the onRateLimited hook', async () => {
    h = createHarness()
    h.reply({ status: 429, body: errBody(c, 'ip_rate_limited'), headers: { 'Retry-After': '3' } })
    const e = await failure(c)
    expect(e).toBeInstanceOf(RateLimitError)
    expect(e).toMatchObject({ status: 429, code: 'ip_rate_limited', retryAfterMs: 3000 })
    expect(h.rateLimited).toEqual([{ endpoint: c.endpoint, error: e }])
  })

  it('429 open_orders_limit without Retry-After → retryAfterMs undefined', async () => {
    h = createHarness()
    h.reply({ status: 429, body: errBody(c, 'open_orders_limit') })
    const e = await failure(c)
    expect(e).toBeInstanceOf(RateLimitError)
    expect((e as RateLimitError).retryAfterMs).toBeUndefined()
  })

  it(`500 → ${c.command ? 'UnknownOutcomeError (a command may have applied)' : 'RequestRejectedError'}`, async () => {
    h = createHarness()
    h.reply({ status: 500, body: errBody(c, 'internal_error') })
    const e = await failure(c)
    if (c.command) {
      expect(e).toBeInstanceOf(UnknownOutcomeError)
      expect((e as UnknownOutcomeError).cause).toMatchObject({ status: 500, code: 'internal_error' })
    } else {
      expect(e).toBeInstanceOf(RequestRejectedError)
      expect(e).toMatchObject({ status: 500, code: 'internal_error' })
    }
  })

  it('an error body of another shape still maps by status (code http_<status>)', async () => {
    h = createHarness()
    h.reply({ status: 403, raw: '<html>forbidden</html>' })
    const e = await failure(c)
    expect(e).toMatchObject({ status: 403, code: 'http_403' })
  })

  it('malformed JSON on 200 → UnexpectedResponseError', async () => {
    h = createHarness()
    h.reply({ raw: '{"status":"ok",' })
    const e = await failure(c)
    expect(e).toBeInstanceOf(UnexpectedResponseError)
    expect((e as Error).message).toMatch(/not valid JSON/)
  })

  it('schema mismatch → UnexpectedResponseError naming the field', async () => {
    h = createHarness()
    h.reply({ body: c.mismatch.body })
    const e = await failure(c)
    expect(e).toBeInstanceOf(UnexpectedResponseError)
    const issues = (e as UnexpectedResponseError).issues
    expect(
      issues.some((i) => i.startsWith(`${c.mismatch.field}:`)),
      issues.join('; '),
    ).toBe(true)
  })

  it('connection refused → TransportError (never delivered, so not an unknown outcome)', async () => {
    h = createHarness()
    h.fail(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))
    const e = await c.call(h.client).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(TransportError)
    expect(e).toMatchObject({ maybeDelivered: false })
  })

  it(`connection reset after send → ${c.command ? 'UnknownOutcomeError' : 'TransportError'}`, async () => {
    h = createHarness()
    h.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
    const e = await c.call(h.client).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(c.command ? UnknownOutcomeError : TransportError)
  })
})
