/**
 * A recorded session of our clients against the in-process mock: every perps and catalogue endpoint is
 * called once through an in-memory transport that hands requests to the mock's handler (no sockets).
 * The fuzz tests take their valid examples from it: the requests (to mutate against the mock) and the
 * answers (to mutate against the clients).
 */

import { createCatalogueClient } from '../../src/catalogue/client/createCatalogueClient.ts'
import { NO_RETRY } from '../../src/http/callJson.ts'
import type { HttpRequest, HttpResponse, HttpTransport } from '../../src/http/transport.ts'
import type { MockHandler } from '../../src/mock/mockHttp.ts'
import { createMockServerHandler, type MockServer } from '../../src/mock/server.ts'
import { createPerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'

/** Public Hardhat/Anvil dev keys (protocol-notes a.4). Never fund them. */
export const OWNER_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
export const PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'

/** `METHOD /path` of a request. */
export const routeKey = (method: string, path: string): string => `${method.toUpperCase()} ${path}`

export interface RecordedExchange {
  method: string
  path: string
  query: URLSearchParams
  /** Lower-cased names. */
  headers: Record<string, string>
  /** The JSON body as sent (after a JSON round trip), or undefined. */
  body: unknown
  status: number
  /** The answer's text as the HTTP adapter would send it. */
  text: string
}

/** Serializes a mock answer as the HTTP adapter does. */
export async function answer(
  handler: MockHandler,
  req: HttpRequest,
  clientId = '127.0.0.1',
): Promise<HttpResponse> {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v
  const out = await handler({
    method: req.method,
    path: req.path,
    query: req.query ?? new URLSearchParams(),
    headers,
    body: req.body === undefined ? undefined : JSON.parse(JSON.stringify(req.body)),
    clientId,
  })
  return {
    status: out.status,
    headers: { 'content-type': 'application/json', ...out.headers },
    text: out.raw ?? (out.body === undefined ? '' : JSON.stringify(out.body)),
  }
}

/** An in-memory transport: each request goes to `respond`. */
export function memoryTransport(respond: (req: HttpRequest) => Promise<HttpResponse>): HttpTransport {
  return { origin: 'http://127.0.0.1', request: respond, close: async () => undefined }
}

export interface VenueSession {
  mock: MockServer
  /** The first successful exchange of each route, by `METHOD /path`. */
  exchanges: Map<string, RecordedExchange>
  /** Header pair of the registered proxy (lower-cased names). */
  authHeaders: Record<string, string>
  ownerAddress: string
  /** A BTC-USDC instrument id and price that rests (for commands). */
  iid: number
  restingPrice: string
}

const COID = '00000000000000000000000000f0220f'

/** Runs one call of every endpoint against a fresh mock and records the exchanges. */
export async function recordVenueSession(): Promise<VenueSession> {
  const mock = createMockServerHandler({
    seed: 5,
    clock: 'stepped',
    rateLimits: false,
    catalogue: { eventCount: 12 },
  })
  const exchanges = new Map<string, RecordedExchange>()
  const transport = memoryTransport(async (req) => {
    const res = await answer(mock.handler, req)
    const key = routeKey(req.method, req.path)
    if (res.status === 200 && !exchanges.has(key)) {
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v
      exchanges.set(key, {
        method: req.method,
        path: req.path,
        query: new URLSearchParams(req.query),
        headers,
        body: req.body === undefined ? undefined : JSON.parse(JSON.stringify(req.body)),
        status: res.status,
        text: res.text,
      })
    }
    return res
  })
  const clock = mock.clock
  const salts = new SaltSource(seededRandom(5))
  const owner = new CommandSigner({ privateKey: OWNER_PK, clock, salts })
  const proxySigner = new CommandSigner({ privateKey: PROXY_PK, clock, salts })
  const pub = createPerpsClient({ transport, clock, random: seededRandom(1), readRetry: NO_RETRY })
  const created = await pub.createProxy(
    { proxy: proxySigner.address, expiry: clock.now() + 86_400_000, label: 'fuzz' },
    { owner },
  )
  const client = createPerpsClient({
    transport,
    clock,
    random: seededRandom(2),
    credentials: created.credentials,
    signer: proxySigner,
    readRetry: NO_RETRY,
  })

  await pub.getTime()
  await pub.getExchange()
  const instruments = await pub.getInstruments()
  const btc = instruments.find((i) => i.symbol === 'BTC-USDC') ?? instruments[0]
  if (btc === undefined) throw new Error('the mock lists no instrument')
  const index = Number((await pub.getIndex(btc.base_asset)).index_price)
  await pub.getPublicPortfolio(owner.address)
  await pub.getStatistics({ instrumentId: btc.instrument_id })
  await pub.getTickers()
  await pub.getFees()
  await pub.getAssets()
  await client.getCredentials()
  await client.applyReferral('FUZZ01')
  const restingPrice = String(Math.floor(index * 0.99))
  const acks = await client.createOrders([
    { iid: btc.instrument_id, buy: true, p: restingPrice, qty: '0.01', tif: 'gtc', po: true },
    { iid: btc.instrument_id, buy: true, p: String(Math.floor(index * 1.01)), qty: '0.01', tif: 'ioc' },
  ])
  const oid = acks[0]?.status === 'ok' ? acks[0].oid : 1
  await client.getOpenOrders()
  await client.getOrders()
  await client.getFills()
  await client.getFunding()
  await client.getWithdrawals()
  await client.getPortfolio()
  await client.modifyOrders([{ oid, p: String(Math.floor(index * 0.985)), qty: '0.02' }])
  await client.cancelOrders([oid])
  const iid = btc.instrument_id
  await client.createOrders([
    { iid, buy: true, p: restingPrice, qty: '0.01', tif: 'gtc', po: true, coid: COID },
  ])
  await pub.getBook({ instrumentId: iid })
  await client.cancelOrdersCoid([COID])
  await client.updateLeverage({ instrumentId: iid, leverage: 5, cross: false })
  await client.updateMargin({ instrumentId: iid, amount: '1' })
  await client.getAccountConfig()
  await client.getAutoCancel()
  await client.getBalances()
  await client.getDeposits()
  const dayAgo = clock.now() - 86_400_000
  await client.getEquityHistory({ interval: '1h', startTimestamp: dayAgo })
  await client.getPnlHistory({ interval: '1h', startTimestamp: dayAgo })
  await pub.getKlines({ instrumentId: iid, interval: '1m', startTimestamp: clock.now() - 600_000 })
  await pub.getTrades({ instrumentId: iid })
  await pub.getFundingHistory({ instrumentId: iid })
  await client.cancelAll({ iid: btc.instrument_id })
  await client.setAutoCancel({ time: clock.now() + 60_000 })
  await client.setAutoCancel({ time: 0 })
  await client.getAccountStats()
  await client.getNotifications()
  await client.withdraw({ amount: 1_000_000n }, { owner })
  // A second proxy, then revoked by the owner (the session's own proxy stays).
  const spare = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
  await pub.createProxy({ proxy: spare, expiry: clock.now() + 86_400_000, label: 'spare' }, { owner })
  await pub.deleteProxy({ proxy: spare }, { owner })
  // Reads of the mock our client has no method for.
  const auth = {
    'POLYMARKET-PROXY': created.credentials.proxy,
    'POLYMARKET-SECRET': created.credentials.secret,
  }
  for (const path of ['/v1/account/referral']) await transport.request({ method: 'GET', path, headers: auth })

  const catalogue = createCatalogueClient({ transport, clock, random: seededRandom(3) })
  const page = await catalogue.listEventsKeyset({ limit: 3 }, { retry: NO_RETRY })
  const event = page.events[0]
  if (event?.slug === undefined || event.slug === null) throw new Error('the mock catalogue has no event')
  await catalogue.getEventBySlug(event.slug, { retry: NO_RETRY })
  await catalogue.getEventTags(event.id, { retry: NO_RETRY })

  return {
    mock,
    exchanges,
    authHeaders: {
      'polymarket-proxy': created.credentials.proxy,
      'polymarket-secret': created.credentials.secret,
    },
    ownerAddress: owner.address,
    iid: btc.instrument_id,
    restingPrice,
  }
}
