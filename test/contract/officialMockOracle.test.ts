/**
 * The official schemas as the oracle, the other way (issue 23, point 1b): every response and every
 * push the embedded mock serves, after a session with trades, resting orders and funding, parses with
 * the official `@polymarket/bindings` 0.2.0 schema of that endpoint or channel. Raw JSON over
 * loopback (127.0.0.1), so nothing of ours stands between the mock and the oracle. Runs on Node 20 and
 * 24 (the bindings import on both).
 */
import { request, WebSocket } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { RunningMock } from '../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'
import { advance, PROXY, PROXY_PK, SECRET, startStreamMock, until } from '../perps/stream/streamHarness.ts'

type Bindings = typeof import('@polymarket/bindings/perps')
type Subs = typeof import('@polymarket/bindings/subscriptions')

let mock: RunningMock
let rest: PerpsClient
let b: Bindings
let s: Subs
const frames: unknown[] = []
let ws: WebSocket

async function get(path: string): Promise<unknown> {
  const res = await request(`${mock.url}${path}`, {
    headers: { 'POLYMARKET-PROXY': PROXY, 'POLYMARKET-SECRET': SECRET },
  })
  expect(res.statusCode, path).toBe(200)
  return res.body.json()
}

beforeAll(async () => {
  b = await import('@polymarket/bindings/perps')
  s = await import('@polymarket/bindings/subscriptions')
  mock = await startStreamMock()
  rest = createPerpsClient({
    baseUrl: mock.url,
    clock: mock.clock,
    random: seededRandom(3),
    credentials: { proxy: PROXY, secret: SECRET },
    signer: new CommandSigner({
      privateKey: PROXY_PK,
      clock: mock.clock,
      salts: new SaltSource(seededRandom(9)),
    }),
  })
  ws = new WebSocket(mock.wsUrl)
  ws.addEventListener('message', (e) => frames.push(JSON.parse(String(e.data))))
  await new Promise<void>((resolve) => ws.addEventListener('open', () => resolve()))
  ws.send(
    JSON.stringify({ id: 1, req: 'post', op: { type: 'auth', args: { proxy: PROXY, secret: SECRET } } }),
  )
  const chs = ['balances', 'portfolio', 'orders', 'fills', 'funding', 'deposits', 'withdrawals']
  ws.send(
    JSON.stringify({
      id: 2,
      req: 'sub',
      chs: [...chs, 'tickers::all', 'statistics::all', 'bbo::1', 'book::1', 'trades::1', 'klines::1::1m'],
    }),
  )
  await until(() => frames.some((f) => (f as { id?: number }).id === 2), 'sub ack')
  // A session: takers both ways, a resting order, an hour for funding.
  await rest.createOrders([{ iid: 1, buy: true, qty: '0.02', tif: 'ioc' }])
  await rest.createOrders([{ iid: 1, buy: false, qty: '0.01', tif: 'ioc' }])
  const idx = (await rest.getTickers()).find((t) => t.instrument_id === 1)
  if (idx === undefined) throw new Error('instrument 1 not listed')
  await rest.createOrders([
    {
      iid: 1,
      buy: true,
      qty: '0.01',
      tif: 'gtc',
      p: String(Math.floor(Number(idx.mark_price) * 0.9)),
      po: true,
    },
  ])
  // A deposit confirmed at once and one that waits three blocks: REST rows and `deposits` pushes.
  mock.exchange.deposit(PROXY, '100')
  mock.exchange.deposit(PROXY, '250', { requiredConfirmations: 3, blockMs: 2_000 })
  await advance(mock, 3_700_000, 60_000)
}, 60_000)

afterAll(async () => {
  ws.close()
  await rest.close()
  await mock.close()
})

/** Issues of the official schema (their transforms may throw on a refused value: that is a failure too). */
function officialIssues(schema: z.ZodType, body: unknown): string[] {
  try {
    const r = schema.safeParse(body)
    return r.success ? [] : r.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`)
  } catch (e) {
    return [`threw: ${e instanceof Error ? e.message : String(e)}`]
  }
}

describe('every mock response and push parses with the official schema', () => {
  it('REST: each endpoint both know', async () => {
    const t = mock.clock.now()
    const window = `start_timestamp=0&end_timestamp=${t}`
    const cases: [string, z.ZodType][] = [
      ['/v1/info/instruments', b.FetchPerpsInstrumentsResponseSchema],
      ['/v1/info/tickers', b.FetchPerpsTickersResponseSchema],
      ['/v1/info/statistics', b.FetchPerpsStatisticsResponseSchema],
      ['/v1/info/fees', b.FetchPerpsFeesResponseSchema],
      ['/v1/account/portfolio', b.FetchPerpsPortfolioResponseSchema],
      ['/v1/account/open-orders', b.FetchPerpsOpenOrdersResponseSchema],
      [`/v1/account/orders?${window}`, b.FetchPerpsOrdersResponseSchema],
      [`/v1/account/fills?${window}`, b.ListPerpsFillsResponseSchema],
      [`/v1/account/funding?${window}`, b.ListPerpsFundingPaymentsResponseSchema],
      [`/v1/account/withdrawals?${window}`, b.ListPerpsWithdrawalsResponseSchema],
      ['/v1/account/credentials', b.PerpsCredentialsResponseSchema],
      ['/v1/info/book?instrument_id=1', b.PerpsBookSchema],
      [
        `/v1/info/klines?instrument_id=1&interval=1m&start_timestamp=${t - 3_600_000}`,
        b.FetchPerpsCandlesResponseSchema,
      ],
      [`/v1/info/trades?instrument_id=1&${window}`, b.FetchPerpsTradesResponseSchema],
      [`/v1/info/funding?instrument_id=1&${window}`, b.FetchPerpsFundingHistoryResponseSchema],
      ['/v1/account/balances', b.FetchPerpsBalancesResponseSchema],
      [`/v1/account/deposits?${window}`, b.ListPerpsDepositsResponseSchema],
      [
        `/v1/account/equity?interval=1h&start_timestamp=${t - 7_200_000}`,
        b.ListPerpsEquityHistoryResponseSchema,
      ],
      [`/v1/account/pnl?interval=1h&start_timestamp=${t - 7_200_000}`, b.ListPerpsPnlHistoryResponseSchema],
      ['/v1/account/config', b.FetchPerpsAccountConfigResponseSchema],
    ]
    const bad: string[] = []
    const seen: string[] = []
    for (const [path, schema] of cases) {
      const body = await get(path)
      const issues = officialIssues(schema, body)
      if (issues.length > 0) bad.push(`${path}: ${issues.join('; ')}`)
      seen.push(`${path.split('?')[0]}${Array.isArray(body) ? ` (${body.length} rows)` : ''}`)
    }
    const fills = (await get(`/v1/account/fills?${window}`)) as { data: unknown[] }
    expect(fills.data.length).toBeGreaterThanOrEqual(2)
    console.log(`mock REST checked by the official schemas: ${seen.join(', ')}`)
    expect(bad).toEqual([])
  })

  it('stream: every push of every channel the bindings read', async () => {
    const pushes = frames.filter((f): f is { ch: string } => typeof f === 'object' && f !== null && 'ch' in f)
    const union = (ch: string) =>
      /::/.test(ch) ? s.PerpsMarketDataEventSchema : s.PerpsSessionUpdateEventSchema
    const bad: string[] = []
    const kinds = new Map<string, number>()
    for (const p of pushes) {
      const kind = p.ch.split('::')[0] ?? p.ch
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
      const issues = officialIssues(union(p.ch), p)
      if (issues.length > 0) bad.push(`${p.ch}: ${issues[0]}`)
    }
    console.log(
      `mock pushes checked by the official schemas: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`,
    )
    // Every channel the session produced is checked above; these must have produced something.
    for (const k of [
      'tickers',
      'statistics',
      'bbo',
      'book',
      'klines',
      'portfolio',
      'balances',
      'orders',
      'fills',
      'deposits',
      // The hour crossed: the charge is pushed (the session is no longer closed as idle on mock time).
      'funding',
    ])
      expect(kinds.get(k) ?? 0, k).toBeGreaterThan(0)
    expect([...new Set(bad)].slice(0, 10)).toEqual([])
  })
})
