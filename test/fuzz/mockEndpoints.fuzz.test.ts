/**
 * Fuzz: every mock endpoint (the perps route table and the catalogue routes) against generated invalid
 * query strings, bodies and auth headers. Each answer is a success or a documented 4xx with the route's
 * error body; never a 5xx, never a throw. In process over the composed handler (limiter off, so the
 * parsers are what answers), plus a smaller sample of raw requests over real loopback HTTP.
 */
import { request as httpRequest } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CatalogueEndpoint } from '../../src/mock/catalogue/catalogueHandler.ts'
import { type RunningMockServer, startMockHttpServer } from '../../src/mock/httpServer.ts'
import type { MockResponse } from '../../src/mock/mockHttp.ts'
import { PERPS_ROUTE_KEYS } from '../../src/mock/perps/handler.ts'
import { brief, fuzzParams, hostileJson, hostileScalar, mutated, NASTY_KEYS } from './fuzzKit.ts'
import { type RecordedExchange, recordVenueSession, type VenueSession } from './venueSession.ts'

/** Perps statuses a client error may get (400 parse/validation, 401 auth, 404 unknown, 422 rule, 429 budget). */
const PERPS_4XX = new Set([400, 401, 404, 422, 429])
/** Catalogue statuses a client error may get (spec: 422; unknown event 404; wrong method 405). */
const CATALOGUE_4XX = new Set([404, 405, 422])

/** Query names any endpoint reads, plus some it does not. */
const PERPS_PARAMS = [
  'instrument_id',
  'depth',
  'interval',
  'instrument_type',
  'category',
  'asset',
  'address',
  'withdrawal_status',
  'hash',
  'start_timestamp',
  'end_timestamp',
  'order_id',
  'client_order_id',
  'limit',
  ...NASTY_KEYS,
]
/** The spec's listEventsKeyset parameters. */
const CATALOGUE_PARAMS = [
  'limit',
  'order',
  'ascending',
  'after_cursor',
  'offset',
  'id',
  'slug',
  'closed',
  'live',
  'featured',
  'cyom',
  'title_search',
  'liquidity_min',
  'liquidity_max',
  'volume_min',
  'volume_max',
  'start_date_min',
  'start_date_max',
  'end_date_min',
  'end_date_max',
  'start_time_min',
  'start_time_max',
  'tag_id',
  'tag_slug',
  'exclude_tag_id',
  'related_tags',
  'tag_match',
  'series_id',
  'game_id',
  'event_date',
  'event_week',
  'featured_order',
  'recurrence',
  'created_by',
  'parent_event_id',
  'include_children',
  'partner_slug',
  'include_chat',
  'include_template',
  'include_best_lines',
  'locale',
  ...NASTY_KEYS,
]

/** Query values: hostile scalars as text, numbers at the edges, wrong-length hex, dates that are not. */
const queryValue = fc.oneof(
  hostileScalar.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
  fc.constantFrom(
    '-1',
    '1.5',
    '1e3',
    '99999999999999999999',
    '0x',
    '2026-13-45',
    'true',
    'yes',
    ' 1',
    '1,2,x',
  ),
  fc.string({ maxLength: 12 }),
)
const queryOf = (names: readonly string[]) =>
  fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })), queryValue), {
    minLength: 1,
    maxLength: 5,
  })

let session: VenueSession
let seq = 0

beforeAll(async () => {
  session = await recordVenueSession()
}, 30_000)
afterAll(() => session?.mock.dispose())

function example(key: string): RecordedExchange {
  const ex = session.exchanges.get(key)
  if (ex === undefined) throw new Error(`no valid example of ${key}: add a call to test/fuzz/venueSession.ts`)
  return ex
}

async function send(
  method: string,
  path: string,
  init: { query?: URLSearchParams; headers?: Record<string, string>; body?: unknown },
): Promise<MockResponse> {
  try {
    return await session.mock.handler({
      method,
      path,
      query: init.query ?? new URLSearchParams(),
      headers: init.headers ?? {},
      body: init.body,
      // A client of its own per request, so no limit or replay memory keyed by client interferes.
      clientId: `fuzz-${seq++}`,
    })
  } catch (e) {
    throw new Error(`${method} ${path} threw ${brief(e)}`)
  }
}

/** A perps answer: 2xx, or a documented 4xx with `{status:"err", error}` (one-item array on the batch route). */
function expectPerpsAnswer(key: string, res: MockResponse): boolean {
  if (res.status >= 200 && res.status < 300) return false
  expect(PERPS_4XX.has(res.status), `${key} answered ${res.status} ${JSON.stringify(res.body)}`).toBe(true)
  const body = key === 'PATCH /v1/trade/orders' && Array.isArray(res.body) ? res.body[0] : res.body
  expect(body, key).toMatchObject({ status: 'err', error: expect.stringMatching(/\S/) })
  if (res.status === 429) expect(res.headers?.['retry-after'], key).toMatch(/^\d+$/)
  return true
}

function expectCatalogueAnswer(path: string, res: MockResponse): boolean {
  if (res.status === 200) return false
  expect(CATALOGUE_4XX.has(res.status), `${path} answered ${res.status} ${JSON.stringify(res.body)}`).toBe(
    true,
  )
  expect(res.body, path).toMatchObject({ type: expect.any(String), error: expect.any(String) })
  return true
}

describe('mock perps endpoints fuzz (in process)', () => {
  it('every route of the table has a recorded valid example', () => {
    expect(PERPS_ROUTE_KEYS.length).toBeGreaterThan(20)
    for (const key of PERPS_ROUTE_KEYS) expect(example(key).status, key).toBe(200)
  })

  it('generated query strings get a success or a documented 4xx on every GET route', async () => {
    const gets = PERPS_ROUTE_KEYS.filter((k) => k.startsWith('GET '))
    const rejected = new Set<string>()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...gets),
        queryOf(PERPS_PARAMS),
        fc.boolean(),
        async (key, pairs, keep) => {
          const ex = example(key)
          // Half the cases keep the valid parameters and add to them, so parsing gets past the first field.
          const query = new URLSearchParams(keep ? ex.query : undefined)
          for (const [k, v] of pairs) query.append(k, v)
          if (expectPerpsAnswer(key, await send(ex.method, ex.path, { query, headers: ex.headers })))
            rejected.add(key)
        },
      ),
      fuzzParams(150),
    )
    expect(rejected.size).toBeGreaterThan(5)
  })

  it('generated bodies (mutations of a valid one, or anything) get a success or a documented 4xx', async () => {
    const writes = PERPS_ROUTE_KEYS.filter((k) => !k.startsWith('GET '))
    let rejected = 0
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...writes)
          .chain((key) =>
            fc.tuple(
              fc.constant(key),
              fc.oneof(mutated(example(key).body), hostileJson, fc.constant(undefined)),
            ),
          ),
        async ([key, body]) => {
          const ex = example(key)
          if (expectPerpsAnswer(key, await send(ex.method, ex.path, { headers: ex.headers, body })))
            rejected++
        },
      ),
      fuzzParams(120),
    )
    expect(rejected).toBeGreaterThan(0)
  })

  it('generated auth headers on account routes get 400/401, never more', async () => {
    const account = PERPS_ROUTE_KEYS.filter(
      (k) => k.includes('/v1/account/') && k !== 'POST /v1/account/proxy',
    )
    const value = fc.oneof(queryValue, fc.constantFrom(session.authHeaders['polymarket-proxy'] ?? ''))
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...account),
        fc.constantFrom('polymarket', 'service'),
        value,
        queryValue,
        async (key, pair, proxy, secret) => {
          const ex = example(key)
          const headers = { [`${pair}-proxy`]: proxy, [`${pair}-secret`]: secret }
          const res = await send(ex.method, ex.path, { headers, query: ex.query, body: ex.body })
          expect(expectPerpsAnswer(key, res), `${key} accepted a bad secret`).toBe(true)
        },
      ),
      fuzzParams(40),
    )
  })

  it('unknown paths and methods get 404 in the perps shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'get', 'X'),
        fc.string({ maxLength: 16 }),
        async (method, tail) => {
          const path = `/v1/${tail}`
          if (PERPS_ROUTE_KEYS.includes(`${method.toUpperCase()} ${path}`)) return
          const res = await send(method, path, {})
          expect(res.status, path).toBe(404)
          expect(res.body).toEqual({ status: 'err', error: 'not_found' })
        },
      ),
      fuzzParams(30),
    )
  })
})

/** Every catalogue endpoint with a path for given inputs (a new endpoint fails the typecheck here). */
const CATALOGUE_ROUTES: Record<CatalogueEndpoint, (slug: string, id: string) => string> = {
  listEventsKeyset: () => '/events/keyset',
  getEventBySlug: (slug) => `/events/slug/${slug}`,
  getEventTags: (_slug, id) => `/events/${id}/tags`,
}

describe('mock catalogue endpoints fuzz (in process)', () => {
  const pathPart = fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '-1', '1e3', '99999999999999999999999', '0x10', '%00'),
  )

  it('generated paths and query strings get 200 or a documented 4xx with {type, error}', async () => {
    let rejected = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(CATALOGUE_ROUTES) as CatalogueEndpoint[])),
        pathPart,
        pathPart,
        queryOf(CATALOGUE_PARAMS),
        async (endpoint, slug, id, pairs) => {
          const path = CATALOGUE_ROUTES[endpoint](slug, id)
          const query = new URLSearchParams()
          for (const [k, v] of pairs) query.append(k, v)
          if (expectCatalogueAnswer(path, await send('GET', path, { query }))) rejected++
        },
      ),
      fuzzParams(100),
    )
    expect(rejected).toBeGreaterThan(0)
  })

  it('other methods get 405 with {type, error}', async () => {
    const ex = example('GET /events/keyset')
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await send(method, ex.path, { body: { a: 1 } })
      expect(res.status).toBe(405)
      expectCatalogueAnswer(ex.path, res)
    }
  })
})

describe('mock endpoints fuzz over loopback HTTP (a smaller sample)', () => {
  let server: RunningMockServer
  beforeAll(async () => {
    server = await startMockHttpServer({ handler: session.mock.handler })
  })
  afterAll(async () => {
    await server?.close()
  })

  /** One raw request: the path is sent as is (no client-side normalisation). */
  function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer) {
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: server.port, method, path, headers })
      req.on('response', (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        )
      })
      req.on('error', reject)
      req.end(body)
    })
  }

  it('raw bodies (invalid JSON, invalid UTF-8, hostile JSON) and raw query strings never get a 5xx', async () => {
    const bodyBytes = fc.oneof(
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
      hostileJson.map((v) => Buffer.from(JSON.stringify(v) ?? '')),
      fc
        .constantFrom('{', '[1,', '{"op":', '\ufeff{}', 'null', '1e999', '"\\ud800"')
        .map((s) => Buffer.from(s)),
    )
    const rawQuery = fc.oneof(
      fc.constant(''),
      fc.constantFrom('?%', '?a=%zz', '?instrument_id=%E0%A4%A', '?&&=&', '?limit=1&limit=2', '?__proto__=1'),
      fc.string({ maxLength: 20 }).map((s) => `?${encodeURIComponent(s)}=${encodeURIComponent(s)}`),
    )
    const routes = [...PERPS_ROUTE_KEYS, 'GET /events/keyset']
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), rawQuery, bodyBytes, async (key, query, body) => {
        const ex = example(key)
        const withBody = ex.method !== 'GET'
        const res = await raw(
          ex.method,
          `${ex.path}${query}`,
          { ...ex.headers, 'content-type': 'application/json' },
          withBody ? body : undefined,
        )
        expect(res.status, `${key}${query} → ${res.status} ${res.text.slice(0, 200)}`).toBeLessThan(500)
        expect(() => JSON.parse(res.text), res.text.slice(0, 100)).not.toThrow()
      }),
      fuzzParams(40),
    )
  })
})
