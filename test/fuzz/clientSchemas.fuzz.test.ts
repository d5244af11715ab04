/**
 * Fuzz: every client call (perps and catalogue) against generated venue bodies, derived from the valid
 * answers of a recorded session by mutation (drop a field, change a type, add an unknown field, null,
 * wrap in an array). Each call resolves, or rejects with one of our typed errors; never a TypeError,
 * never an unhandled rejection, never a runaway of requests. Unknown fields alone are always accepted
 * (tolerant reads, as the official client). The same for the stream's push and frame parsing.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CatalogueClient,
  createCatalogueClient,
} from '../../src/catalogue/client/createCatalogueClient.ts'
import { BotError, InvariantError, UnexpectedResponseError } from '../../src/errors.ts'
import { NO_RETRY } from '../../src/http/callJson.ts'
import type { HttpRequest, HttpResponse } from '../../src/http/transport.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import type { PUSH_DATA_SCHEMAS } from '../../src/perps/stream/pushSchemas.ts'
import { classifyFrame, parsePush } from '../../src/perps/stream/schemas.ts'
import { seededRandom } from '../../src/random.ts'
import { brief, fuzzParams, hostileJson, mutated, NASTY_KEYS, withUnknownField } from './fuzzKit.ts'
import { memoryTransport, OWNER_PK, PROXY_PK, recordVenueSession, type VenueSession } from './venueSession.ts'

/** Requests one call may send before it counts as a runaway (pagination that never ends). */
const MAX_REQUESTS_PER_CALL = 50

let session: VenueSession
let perps: PerpsClient
let catalogue: CatalogueClient
let owner: CommandSigner
/** What the venue answers to every request of the call under test. */
let reply: (req: HttpRequest) => HttpResponse = () => ({ status: 500, headers: {}, text: '' })
let requests = 0

beforeAll(async () => {
  session = await recordVenueSession()
  const transport = memoryTransport(async (req) => {
    if (++requests > MAX_REQUESTS_PER_CALL) throw new Error(`runaway: over ${MAX_REQUESTS_PER_CALL} requests`)
    return reply(req)
  })
  const clock = session.mock.clock
  const salts = new SaltSource(seededRandom(9))
  owner = new CommandSigner({ privateKey: OWNER_PK, clock, salts })
  perps = createPerpsClient({
    transport,
    clock,
    random: seededRandom(2),
    credentials: {
      proxy: session.authHeaders['polymarket-proxy'] ?? '',
      secret: session.authHeaders['polymarket-secret'] ?? '',
    },
    signer: new CommandSigner({ privateKey: PROXY_PK, clock, salts }),
    ownerSigner: owner,
    readRetry: NO_RETRY,
  })
  catalogue = createCatalogueClient({ transport, clock, random: seededRandom(3) })
}, 30_000)
afterAll(() => session?.mock.dispose())

/** Drains an async generator (paging) so every page is parsed. */
async function drain(gen: AsyncGenerator<unknown, void, undefined>): Promise<void> {
  for await (const _ of gen) {
    // parsing is the point
  }
}

interface ClientCall {
  /** The route whose recorded answer is mutated. */
  route: string
  run: () => Promise<unknown>
}

type PerpsMethod = Exclude<keyof PerpsClient, 'context' | 'close' | 'admitted' | 'throttle'>

/** Every perps client method (a new one fails the typecheck until it is listed here). */
function perpsCalls(): Record<PerpsMethod, ClientCall> {
  const iid = session.iid
  const p = session.restingPrice
  const future = () => session.mock.clock.now() + 86_400_000
  return {
    getIndex: { route: 'GET /v1/info/index', run: () => perps.getIndex('BTC') },
    getPublicPortfolio: {
      route: 'GET /v1/info/portfolio',
      run: () => perps.getPublicPortfolio(session.ownerAddress),
    },
    getStatistics: {
      route: 'GET /v1/info/statistics',
      run: () => perps.getStatistics({ instrumentId: iid }),
    },
    getTickers: { route: 'GET /v1/info/tickers', run: () => perps.getTickers() },
    getFees: { route: 'GET /v1/info/fees', run: () => perps.getFees() },
    getAssets: { route: 'GET /v1/info/assets', run: () => perps.getAssets() },
    getExchange: { route: 'GET /v1/info/exchange', run: () => perps.getExchange() },
    getTime: { route: 'GET /v1/info/time', run: () => perps.getTime() },
    getInstruments: { route: 'GET /v1/info/instruments', run: () => perps.getInstruments() },
    getWithdrawals: { route: 'GET /v1/account/withdrawals', run: () => perps.getWithdrawals() },
    paginateWithdrawals: {
      route: 'GET /v1/account/withdrawals',
      run: () => drain(perps.paginateWithdrawals()),
    },
    iterateWithdrawals: {
      route: 'GET /v1/account/withdrawals',
      run: () => drain(perps.iterateWithdrawals()),
    },
    getFills: { route: 'GET /v1/account/fills', run: () => perps.getFills() },
    paginateFills: { route: 'GET /v1/account/fills', run: () => drain(perps.paginateFills()) },
    iterateFills: { route: 'GET /v1/account/fills', run: () => drain(perps.iterateFills()) },
    getFunding: { route: 'GET /v1/account/funding', run: () => perps.getFunding() },
    paginateFunding: { route: 'GET /v1/account/funding', run: () => drain(perps.paginateFunding()) },
    iterateFunding: { route: 'GET /v1/account/funding', run: () => drain(perps.iterateFunding()) },
    getPortfolio: { route: 'GET /v1/account/portfolio', run: () => perps.getPortfolio() },
    getCredentials: { route: 'GET /v1/account/credentials', run: () => perps.getCredentials() },
    getOpenOrders: { route: 'GET /v1/account/open-orders', run: () => perps.getOpenOrders() },
    getOrders: { route: 'GET /v1/account/orders', run: () => perps.getOrders() },
    applyReferral: { route: 'POST /v1/account/referral', run: () => perps.applyReferral('FUZZ02') },
    createProxy: {
      route: 'POST /v1/account/proxy',
      run: () =>
        perps.createProxy(
          { proxy: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', expiry: future() },
          { owner },
        ),
    },
    createOrders: {
      route: 'POST /v1/trade/orders',
      // Two orders, as in the recorded session (the answer has one ack per order).
      run: () =>
        perps.createOrders([
          { iid, buy: true, p, qty: '0.01', tif: 'gtc', po: true },
          { iid, buy: true, p, qty: '0.01', tif: 'ioc' },
        ]),
    },
    modifyOrders: {
      route: 'PATCH /v1/trade/orders',
      run: () => perps.modifyOrders([{ oid: 1, p, qty: '0.01' }]),
    },
    cancelOrders: { route: 'DELETE /v1/trade/orders', run: () => perps.cancelOrders([1]) },
    cancelAll: { route: 'DELETE /v1/trade/orders/all', run: () => perps.cancelAll({ iid }) },
    setAutoCancel: {
      route: 'PATCH /v1/trade/auto-cancel',
      run: () => perps.setAutoCancel({ time: future() }),
    },
    getAutoCancel: { route: 'GET /v1/account/auto-cancel', run: () => perps.getAutoCancel() },
    getAccountStats: { route: 'GET /v1/account/stats', run: () => perps.getAccountStats() },
    getNotifications: { route: 'GET /v1/account/notifications', run: () => perps.getNotifications() },
    withdraw: {
      route: 'POST /v1/account/withdraw',
      run: () => perps.withdraw({ amount: 1_000_000n }, { owner }),
    },
    deleteProxy: {
      route: 'DELETE /v1/account/proxy',
      run: () => perps.deleteProxy({ proxy: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' }, { owner }),
    },
    cancelOrdersCoid: {
      route: 'DELETE /v1/trade/orders-coid',
      run: () => perps.cancelOrdersCoid(['00000000000000000000000000f0220f']),
    },
    updateLeverage: {
      route: 'PATCH /v1/trade/leverage',
      run: () => perps.updateLeverage({ instrumentId: iid, leverage: 5, cross: false }),
    },
    updateMargin: {
      route: 'PATCH /v1/trade/margin',
      run: () => perps.updateMargin({ instrumentId: iid, amount: '1' }),
    },
    getAccountConfig: { route: 'GET /v1/account/config', run: () => perps.getAccountConfig() },
    getBalances: { route: 'GET /v1/account/balances', run: () => perps.getBalances() },
    getDeposits: { route: 'GET /v1/account/deposits', run: () => perps.getDeposits() },
    paginateDeposits: {
      route: 'GET /v1/account/deposits',
      run: () => drain(perps.paginateDeposits()),
    },
    iterateDeposits: {
      route: 'GET /v1/account/deposits',
      run: () => drain(perps.iterateDeposits()),
    },
    getEquityHistory: {
      route: 'GET /v1/account/equity',
      run: () => perps.getEquityHistory({ interval: '1h', startTimestamp: 0 }),
    },
    getPnlHistory: {
      route: 'GET /v1/account/pnl',
      run: () => perps.getPnlHistory({ interval: '1h', startTimestamp: 0 }),
    },
    getBook: { route: 'GET /v1/info/book', run: () => perps.getBook({ instrumentId: iid }) },
    getKlines: {
      route: 'GET /v1/info/klines',
      run: () => perps.getKlines({ instrumentId: iid, interval: '1m', startTimestamp: 0 }),
    },
    getTrades: { route: 'GET /v1/info/trades', run: () => perps.getTrades({ instrumentId: iid }) },
    getFundingHistory: {
      route: 'GET /v1/info/funding',
      run: () => perps.getFundingHistory({ instrumentId: iid }),
    },
  }
}

type CatalogueMethod = keyof CatalogueClient

function catalogueCalls(): Record<CatalogueMethod, ClientCall> {
  const slug = [...session.exchanges.keys()].find((k) => k.startsWith('GET /events/slug/')) ?? ''
  const tags = [...session.exchanges.keys()].find((k) => /^GET \/events\/[^/]+\/tags$/.test(k)) ?? ''
  const id = tags.split('/')[2] ?? ''
  return {
    listEventsKeyset: { route: 'GET /events/keyset', run: () => catalogue.listEventsKeyset({ limit: 3 }) },
    paginateEvents: { route: 'GET /events/keyset', run: () => drain(catalogue.paginateEvents({ limit: 3 })) },
    iterateEvents: { route: 'GET /events/keyset', run: () => drain(catalogue.iterateEvents({ limit: 3 })) },
    getEventBySlug: {
      route: slug,
      run: () => catalogue.getEventBySlug(decodeURIComponent(slug.split('/')[3] ?? '')),
    },
    getEventTags: { route: tags, run: () => catalogue.getEventTags(id) },
  }
}

function validBody(route: string): unknown {
  const ex = session.exchanges.get(route)
  if (ex === undefined) throw new Error(`no recorded answer of ${route}: add it to test/fuzz/venueSession.ts`)
  return JSON.parse(ex.text)
}

type Outcome = 'accepted' | 'typed-error'

/**
 * Runs a call against `body` (the venue's answer to the first request, and to every later one unless
 * `later` is given); anything untyped fails.
 */
async function outcomeOf(call: ClientCall, body: unknown, later: unknown = body): Promise<Outcome> {
  const first = JSON.stringify(body) ?? ''
  const rest = JSON.stringify(later) ?? ''
  reply = () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    text: requests > 1 ? rest : first,
  })
  requests = 0
  try {
    await call.run()
    return 'accepted'
  } catch (e) {
    if (e instanceof BotError && !(e instanceof InvariantError)) return 'typed-error'
    throw new Error(`${call.route} threw an untyped ${brief(e)}`)
  }
}

/** The same answer as the last page of a listing (no cursor, no `more`), so paging ends. */
function lastPage(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body
  const { next_cursor: _cursor, ...rest } = body as Record<string, unknown>
  return 'more' in rest ? { ...rest, more: false } : rest
}

/** A `{data, more}` page claiming more rows; other bodies unchanged. */
function withMore(body: unknown): unknown {
  return typeof body === 'object' && body !== null && 'more' in body ? { ...body, more: true } : body
}

/** Calls with their names, for `fc.constantFrom`. */
function entries(calls: Record<string, ClientCall>): [string, ClientCall][] {
  return Object.entries(calls)
}

/** An unknown field for some object of a body: where (modulo the objects), its name, its value. */
const unknownField = fc.tuple(
  fc.nat(),
  fc.oneof(fc.constantFrom(...NASTY_KEYS), fc.string({ minLength: 1, maxLength: 10 })),
  hostileJson,
)

describe('client schemas fuzz', () => {
  it('every recorded answer is accepted as is (the examples are valid)', async () => {
    for (const [name, call] of [...entries(perpsCalls()), ...entries(catalogueCalls())]) {
      const valid = validBody(call.route)
      expect(await outcomeOf(call, valid, lastPage(valid)), name).toBe('accepted')
    }
  })

  it('mutated perps answers are accepted or a typed error, never a crash or a runaway', async () => {
    const calls = entries(perpsCalls())
    let typed = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...calls).chain(([name, call]) => {
          const valid = validBody(call.route)
          // History pages also as a `more: true` copy, so paging over a repeated answer is tried.
          const body = fc.oneof(mutated(valid), mutated(withMore(valid)), fc.constant(withMore(valid)))
          return fc.tuple(fc.constant(name), fc.constant(call), body)
        }),
        async ([, call, body]) => {
          if ((await outcomeOf(call, body)) === 'typed-error') typed++
        },
      ),
      fuzzParams(150),
    )
    expect(typed).toBeGreaterThan(0)
  })

  it('mutated catalogue answers are accepted or a typed error, never a crash or a runaway', async () => {
    const calls = entries(catalogueCalls())
    let typed = 0
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...calls)
          .chain(([name, call]) =>
            fc.tuple(fc.constant(name), fc.constant(call), mutated(validBody(call.route))),
          ),
        async ([, call, body]) => {
          if ((await outcomeOf(call, body)) === 'typed-error') typed++
        },
      ),
      fuzzParams(40),
    )
    expect(typed).toBeGreaterThan(0)
  })

  it('unknown fields anywhere are accepted by every read (tolerant reads)', async () => {
    // Every call gets its share (the root object is the first candidate, nested ones follow).
    for (const [name, call] of [...entries(perpsCalls()), ...entries(catalogueCalls())]) {
      const valid = validBody(call.route)
      await fc.assert(
        fc.asyncProperty(unknownField, async ([at, key, value]) => {
          const body = withUnknownField(valid, at, key, value)
          expect(
            await outcomeOf(call, body, lastPage(body)),
            `${name} refused ${JSON.stringify(body).slice(0, 300)}`,
          ).toBe('accepted')
        }),
        fuzzParams(3),
      )
    }
  })

  it('answers that are not JSON, or any JSON at all, are accepted or a typed error', async () => {
    const calls = [...entries(perpsCalls()), ...entries(catalogueCalls())]
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...calls), hostileJson, async ([, call], body) => {
        await outcomeOf(call, body)
      }),
      fuzzParams(40),
    )
    for (const text of ['', '{', 'nul', '\ufeff{}', '[1,']) {
      reply = () => ({ status: 200, headers: {}, text })
      requests = 0
      await expect(perps.getTime()).rejects.toBeInstanceOf(UnexpectedResponseError)
    }
  })
})

/** One valid `data` per push kind (a new kind fails the typecheck until it has one). */
function pushExamples(): Record<keyof typeof PUSH_DATA_SCHEMAS, { ch: string; data: unknown }> {
  const order = (validBody('PATCH /v1/trade/orders') as { order: unknown }[])[0]?.order
  // The channel's terse keys (REST fills use the long ones).
  const fills = [
    { tid: 1, oid: 2, iid: 1, side: 'long', p: '100', qty: '1', taker: true, fee: '0.01', fea: 'pUSD' },
  ].map((f) => ({ ...f, psz: '0', pep: '0', pnl: '0', liq: false, ts: 5 }))
  const kline = (validBody('GET /v1/info/statistics') as { klines: unknown[] }[])[0]?.klines[0]
  const d = { bp: '99', bq: '1', ap: '101', aq: '2' }
  return {
    tickers: {
      ch: 'tickers::all',
      data: { iid: 1, idx: '100', mark: '100.1', last: '100', mid: '100.05', oi: '3', fr: '0.0001', nxf: 99 },
    },
    statistics: { ch: 'statistics::1', data: { iid: 1, vol: '10', open: '99', klines: [kline] } },
    bbo: { ch: 'bbo::1', data: { iid: 1, ...d } },
    book: { ch: 'book::1', data: { b: [['99', '1']], a: [['101', '2']] } },
    klines: { ch: 'klines::1::1m', data: [kline] },
    trades: { ch: 'trades::1', data: [{ tid: 1, iid: 1, side: 'long', p: '100', qty: '1', ts: 5 }] },
    portfolio: { ch: 'portfolio', data: validBody('GET /v1/account/portfolio') },
    orders: { ch: 'orders', data: { ...(order as object), tpsl: null } },
    fills: { ch: 'fills', data: fills },
    funding: { ch: 'funding', data: { iid: 1, sz: '1', fr: '0.0001', fund: '-0.01', fua: 'pUSD', ts: 5 } },
    withdrawals: {
      ch: 'withdrawals',
      data: { withdraw_id: 1, asset: 'pUSD', amount: '100000000', fee: '1', status: 'pending', to: '0x1' },
    },
    balances: { ch: 'balances', data: { asset: 'pUSD', balance: '100', value: '100' } },
    deposits: { ch: 'deposits', data: { asset: 'pUSD', amount: '100000000', status: 'pending' } },
    notifications: { ch: 'notifications', data: { type: 'margin', level: 'warning', message: 'margin low' } },
    tpsl: { ch: 'tpsl::7', data: { oid: 12, st: 'armed' } },
  }
}

describe('stream push parsing fuzz', () => {
  it('every example push parses', () => {
    for (const [kind, ex] of Object.entries(pushExamples()))
      expect(parsePush({ ch: ex.ch, ts: 1, sq: 0, data: ex.data }), kind).toMatchObject({ ok: true })
  })

  it('mutated pushes parse or are refused with a reason; frames of any shape are classified', () => {
    const examples = Object.values(pushExamples())
    let refused = 0
    fc.assert(
      fc.property(
        fc.constantFrom(...examples).chain((ex) => mutated({ ch: ex.ch, ts: 1, sq: 0, data: ex.data })),
        hostileJson,
        (frame, other) => {
          let r: ReturnType<typeof parsePush>
          try {
            r = parsePush(frame)
            classifyFrame(frame)
            classifyFrame(other)
            parsePush(other)
          } catch (e) {
            throw new Error(`push parsing threw ${brief(e)}`)
          }
          if (!r.ok) {
            refused++
            expect(['not_a_push', 'unknown_channel', 'invalid_data']).toContain(r.reason)
          }
        },
      ),
      fuzzParams(200),
    )
    expect(refused).toBeGreaterThan(0)
  })

  it('unknown fields in any push object are accepted', () => {
    const examples = Object.values(pushExamples())
    fc.assert(
      fc.property(fc.constantFrom(...examples), unknownField, (ex, [at, key, value]) => {
        const data = withUnknownField(ex.data, at, key, value)
        const r = parsePush({ ch: ex.ch, ts: 1, sq: 0, data })
        expect(r.ok, `${ex.ch} refused ${JSON.stringify(data).slice(0, 200)}`).toBe(true)
      }),
      fuzzParams(60),
    )
  })
})
