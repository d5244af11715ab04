/**
 * HTTP routing of the mock Perps venue onto the exchange core: `/v1/info/*` (public), `/v1/account/*`
 * (header-authenticated, both `POLYMARKET-*` and `SERVICE-*` pairs), the signed `/v1/trade/orders*`
 * commands and `POST /v1/account/proxy`. Error bodies are `{status:"err", error}`, a one-item array
 * for modifyOrders (a batch endpoint); token-bucket 429s carry `Retry-After`.
 */
import type { TypedRead } from '../../perps/typedReads.ts'
import { json, type MockHandler, type MockRequest, type MockResponse } from '../mockHttp.ts'
import { cancelByCoidCommand, updateLeverageCommand, updateMarginCommand } from './account/accountSettings.ts'
import { authedAccount } from './account/accounts.ts'
import { badRequest, MockRejection } from './errors.ts'
import type { PerpsExchange } from './exchange.ts'
import {
  accountConfigWire,
  balancesWire,
  bookWire,
  fundingRatesWire,
  klinesWire,
  pnlPoints,
  tradesWire,
} from './venueReads.ts'

/** Header pairs accepted for private reads, in order of preference (decision: both pairs work). */
export const AUTH_HEADER_PAIRS = [
  { proxy: 'polymarket-proxy', secret: 'polymarket-secret' },
  { proxy: 'service-proxy', secret: 'service-secret' },
] as const

const WITHDRAWAL_STATUSES = ['pending', 'confirmed', 'removed', 'failed']
const DEPOSIT_STATUSES = ['pending', 'confirmed', 'removed']
const INSTRUMENT_TYPES = ['perpetual']
const CATEGORIES = ['equity', 'commodity', 'index', 'crypto']

type Route = (req: MockRequest, ex: PerpsExchange) => unknown

const ok = (body: unknown): MockResponse => json(200, body)

const tickersRead = (r: MockRequest, ex: PerpsExchange): TypedRead => ({
  kind: 'getTickers',
  value: ex.tickers(intParam(r.query, 'instrument_id')),
})
const portfolioRead = (r: MockRequest, ex: PerpsExchange): TypedRead => ({
  kind: 'getPortfolio',
  value: ex.portfolio(auth(r, ex)),
})

/**
 * Reads whose answer also goes to a venue in this process as its typed value (perps/typedReads.ts):
 * the core builds them with the schemas' output types, canonical decimals and no row a schema drops.
 */
const TYPED_READS: Readonly<Record<string, (req: MockRequest, ex: PerpsExchange) => TypedRead>> = {
  'GET /v1/info/tickers': tickersRead,
  'GET /v1/account/portfolio': portfolioRead,
}

/** The route table: `METHOD /path` → the exchange call. */
const ROUTES: Readonly<Record<string, Route>> = {
  'GET /v1/info/time': (_r, ex) => ex.time(),
  'GET /v1/info/exchange': (_r, ex) => ex.exchangeInfo(),
  'GET /v1/info/instruments': (r, ex) =>
    ex.instruments({
      instrumentId: intParam(r.query, 'instrument_id'),
      instrumentType: enumParam(r.query, 'instrument_type', INSTRUMENT_TYPES),
      category: enumParam(r.query, 'category', CATEGORIES),
    }),
  'GET /v1/info/index': (r, ex) => ex.index(requiredParam(r.query, 'asset')),
  'GET /v1/info/statistics': (r, ex) => ex.statistics(intParam(r.query, 'instrument_id')),
  'GET /v1/info/tickers': (r, ex) => tickersRead(r, ex).value,
  'GET /v1/info/fees': (_r, ex) => ex.fees(),
  'GET /v1/info/assets': (_r, ex) => ex.assets(),
  'GET /v1/info/portfolio': (r, ex) => {
    const address = requiredParam(r.query, 'address')
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw badRequest('invalid query parameters: invalid address')
    return ex.publicPortfolio(address)
  },
  'GET /v1/account/credentials': (r, ex) => ex.credentials(auth(r, ex)),
  'GET /v1/account/stats': (r, ex) => ex.accountStats(auth(r, ex)),
  'GET /v1/account/notifications': (r, ex) => ex.notifications(auth(r, ex)),
  'DELETE /v1/account/proxy': (r, ex) => ex.deleteProxy(r.body),
  'POST /v1/account/withdraw': (r, ex) => ex.withdraw(r.body),
  'GET /v1/account/portfolio': (r, ex) => portfolioRead(r, ex).value,
  'GET /v1/account/withdrawals': (r, ex) => {
    const owner = auth(r, ex)
    return ex.withdrawals(owner, {
      status: enumParam(r.query, 'withdrawal_status', WITHDRAWAL_STATUSES),
      hash: r.query.get('hash') ?? undefined,
      ...windowParams(r.query),
    })
  },
  'GET /v1/account/fills': (r, ex) => ex.fills(auth(r, ex), windowParams(r.query)),
  'GET /v1/account/funding': (r, ex) => {
    const owner = auth(r, ex)
    return ex.funding(owner, { instrumentId: intParam(r.query, 'instrument_id'), ...windowParams(r.query) })
  },
  'GET /v1/account/open-orders': (r, ex) => ex.openOrders(auth(r, ex), intParam(r.query, 'instrument_id')),
  'GET /v1/account/orders': (r, ex) => {
    const owner = auth(r, ex)
    return ex.orders(owner, {
      orderId: intParam(r.query, 'order_id'),
      clientOrderId: r.query.get('client_order_id') ?? undefined,
      instrumentId: intParam(r.query, 'instrument_id'),
      ...windowParams(r.query),
    })
  },
  'GET /v1/account/referral': (r, ex) => ex.referral(auth(r, ex)),
  'GET /v1/account/auto-cancel': (r, ex) => ex.autoCancelStatus(auth(r, ex)),
  'POST /v1/account/referral': (r, ex) => ex.applyReferral(auth(r, ex), r.body),
  'POST /v1/account/proxy': (r, ex) => ex.createProxy(r.body),
  'POST /v1/trade/orders': (r, ex) => ex.createOrders(r.body, r.vouched),
  'PATCH /v1/trade/orders': (r, ex) => ex.modifyOrders(r.body, r.vouched),
  'DELETE /v1/trade/orders': (r, ex) => ex.cancelOrders(r.body, r.vouched),
  'DELETE /v1/trade/orders/all': (r, ex) => ex.cancelAll(r.body, r.vouched),
  'PATCH /v1/trade/auto-cancel': (r, ex) => ex.setAutoCancel(r.body, r.vouched),
  'PATCH /v1/trade/leverage': (r, ex) => updateLeverageCommand(ex.synced(), r.body, r.vouched),
  'PATCH /v1/trade/margin': (r, ex) => updateMarginCommand(ex.synced(), r.body, r.vouched),
  'DELETE /v1/trade/orders-coid': (r, ex) => cancelByCoidCommand(ex.synced(), r.body, r.vouched),
  'GET /v1/account/config': (r, ex) =>
    accountConfigWire(
      ex.synced(),
      authedAccount(ex.synced(), auth(r, ex)),
      intParam(r.query, 'instrument_id'),
    ),
  'GET /v1/account/balances': (r, ex) => balancesWire(ex.synced(), authedAccount(ex.synced(), auth(r, ex))),
  // Deposits land through `exchange.deposit` (scenarios, tests, the soak's operator): deposits.ts.
  'GET /v1/account/deposits': (r, ex) => {
    const owner = auth(r, ex)
    return ex.deposits(owner, {
      status: enumParam(r.query, 'deposit_status', DEPOSIT_STATUSES),
      hash: r.query.get('hash') ?? undefined,
      ...windowParams(r.query),
    })
  },
  'GET /v1/account/equity': (r, ex) => historyPoints(r, ex, 'equity'),
  'GET /v1/account/pnl': (r, ex) => historyPoints(r, ex, 'pnl'),
  'GET /v1/info/book': (r, ex) =>
    bookWire(ex.synced(), requiredInt(r.query, 'instrument_id'), depthParam(r.query)),
  'GET /v1/info/klines': (r, ex) => {
    const w = windowParams(r.query)
    return klinesWire(
      ex.synced(),
      requiredInt(r.query, 'instrument_id'),
      requiredParam(r.query, 'interval'),
      requiredInt(r.query, 'start_timestamp'),
      w.endTimestamp ?? ex.synced().clock.now(),
    )
  },
  'GET /v1/info/trades': (r, ex) =>
    tradesWire(ex.synced(), requiredInt(r.query, 'instrument_id'), windowParams(r.query)),
  'GET /v1/info/funding': (r, ex) =>
    fundingRatesWire(ex.synced(), requiredInt(r.query, 'instrument_id'), windowParams(r.query)),
}

function historyPoints(r: MockRequest, ex: PerpsExchange, kind: 'equity' | 'pnl') {
  const account = authedAccount(ex.synced(), auth(r, ex))
  const w = windowParams(r.query)
  const start = requiredInt(r.query, 'start_timestamp')
  return pnlPoints(
    ex.synced(),
    account,
    kind,
    requiredParam(r.query, 'interval'),
    start,
    w.endTimestamp ?? Number.MAX_SAFE_INTEGER,
  )
}

function requiredInt(q: URLSearchParams, name: string): number {
  requiredParam(q, name)
  return intParam(q, name) ?? 0
}

function depthParam(q: URLSearchParams): number {
  const d = intParam(q, 'depth') ?? 100
  if (![10, 100, 500, 1000].includes(d))
    throw badRequest('invalid query parameters: `depth` must be 10, 100, 500 or 1000')
  return d
}

/** Every `METHOD /path` the mock perps venue serves (the fuzz tests enumerate them). */
export const PERPS_ROUTE_KEYS: readonly string[] = Object.keys(ROUTES)

export function createPerpsHandler(exchange: PerpsExchange): MockHandler {
  return async (req) => {
    const key = `${req.method.toUpperCase()} ${req.path}`
    const route = Object.hasOwn(ROUTES, key) ? ROUTES[key] : undefined
    // Decision: a wrong method on a known path is also 404 `not_found` (the venue documents no 405).
    if (route === undefined) return json(404, { status: 'err', error: 'not_found' })
    // A signed command's answer, success or refusal, carries its signer's rate-limit state.
    const signerHeaders = () =>
      req.path.startsWith('/v1/trade/') ? exchange.signerRateLimitHeaders(req.body) : undefined
    try {
      const typedRead = Object.hasOwn(TYPED_READS, key) ? TYPED_READS[key] : undefined
      if (typedRead !== undefined) {
        const typed = await typedRead(req, exchange)
        return { ...ok(typed.value), typed }
      }
      const body = await route(req, exchange)
      const h = signerHeaders()
      return h === undefined ? ok(body) : json(200, body, h)
    } catch (e) {
      if (!(e instanceof MockRejection)) throw e
      const body = { status: 'err', error: e.code }
      const headers = {
        ...(e.retryAfterSeconds === undefined ? {} : { 'retry-after': String(e.retryAfterSeconds) }),
        ...signerHeaders(),
      }
      // Batch endpoints answer errors as a one-item array (perps-openapi-shapes §3, modifyOrders).
      const shaped = key === 'PATCH /v1/trade/orders' ? [body] : body
      return Object.keys(headers).length === 0 ? json(e.status, shaped) : json(e.status, shaped, headers)
    }
  }
}

/** The owner behind the request's header pair (the first complete pair wins). */
function auth(req: MockRequest, ex: PerpsExchange): string {
  for (const pair of AUTH_HEADER_PAIRS) {
    const proxy = req.headers[pair.proxy]
    const secret = req.headers[pair.secret]
    if (proxy !== undefined && secret !== undefined) return ex.authenticate(proxy, secret)
  }
  return ex.authenticate(undefined, undefined)
}

function requiredParam(q: URLSearchParams, name: string): string {
  const v = q.get(name)
  if (v === null || v === '') throw badRequest(`invalid query parameters: missing field \`${name}\``)
  return v
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name)
  if (v === null) return undefined
  if (!/^\d{1,15}$/.test(v))
    throw badRequest(`invalid query parameters: \`${name}\` must be a non-negative integer`)
  return Number(v)
}

function enumParam(q: URLSearchParams, name: string, allowed: readonly string[]): string | undefined {
  const v = q.get(name)
  if (v === null) return undefined
  if (!allowed.includes(v))
    throw badRequest(`invalid query parameters: \`${name}\` must be one of ${allowed.join(', ')}`)
  return v
}

function windowParams(q: URLSearchParams): {
  startTimestamp?: number | undefined
  endTimestamp?: number | undefined
} {
  const startTimestamp = intParam(q, 'start_timestamp')
  const endTimestamp = intParam(q, 'end_timestamp')
  if (startTimestamp !== undefined && endTimestamp !== undefined && startTimestamp > endTimestamp)
    throw badRequest('invalid query parameters: start_timestamp is after end_timestamp')
  return { startTimestamp, endTimestamp }
}
