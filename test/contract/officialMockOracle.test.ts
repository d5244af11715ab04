/**
 * The official schemas as the oracle, the other way (issue 23, point 1b; issue 35, point 5): every
 * response, every push and every command answer the embedded mock serves, after a session with trades,
 * resting orders and funding, parses with the official schema of that endpoint or channel in both
 * `@polymarket/bindings` 0.2.0 and 0.10.0 (an export a version lacks is listed, not checked). Raw JSON
 * over loopback (127.0.0.1), so nothing of ours stands between the mock and the oracle. Runs on Node 20
 * and 24 (the bindings import on both).
 */

import { request, WebSocket } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { RunningMock } from '../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import {
  buildAutoCancel,
  buildCancelAll,
  buildCancelOrders,
  buildCreateOrders,
  buildUpdateLeverage,
} from '../../src/perps/signing/ops.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'
import { OWNER_PK } from '../mock/perps/helpers.ts'
import { advance, PROXY, PROXY_PK, SECRET, startStreamMock, until } from '../perps/stream/streamHarness.ts'

/** A second proxy the owner registers (an address only: nothing signs with it). */
const SECOND_PROXY = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

type Module = Record<string, unknown>

let mock: RunningMock
let rest: PerpsClient
const frames: unknown[] = []
let ws: WebSocket
/** Raw answers of signed commands, by the official export that reads them (`[]` = an array of it). */
const answers: { name: string; official: string; array: boolean; body: unknown }[] = []
const VERSIONS: { label: string; perps: Module; subs: Module }[] = []

const isSchema = (v: unknown): v is z.ZodType =>
  typeof v === 'object' && v !== null && 'safeParse' in v && typeof v.safeParse === 'function'

/** A signed command sent raw; its answer kept for the oracle. */
async function command(
  name: string,
  official: string,
  array: boolean,
  method: 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body: unknown,
): Promise<unknown> {
  const res = await request(`${mock.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = await res.body.json()
  expect(res.statusCode, `${name}: ${JSON.stringify(answer)}`).toBe(200)
  answers.push({ name, official, array, body: answer })
  return answer
}

async function get(path: string): Promise<unknown> {
  const res = await request(`${mock.url}${path}`, {
    headers: { 'POLYMARKET-PROXY': PROXY, 'POLYMARKET-SECRET': SECRET },
  })
  expect(res.statusCode, path).toBe(200)
  return res.body.json()
}

beforeAll(async () => {
  VERSIONS.push(
    {
      label: '0.2.0',
      perps: { ...(await import('@polymarket/bindings/perps')) },
      subs: { ...(await import('@polymarket/bindings/subscriptions')) },
    },
    {
      label: '0.10.0',
      perps: { ...(await import('@polymarket/bindings-0.10/perps')) },
      subs: { ...(await import('@polymarket/bindings-0.10/subscriptions')) },
    },
  )
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
  // Every signed command, sent raw so its answer reaches the oracle as the mock wrote it.
  const signer = new CommandSigner({
    privateKey: PROXY_PK,
    clock: mock.clock,
    salts: new SaltSource(seededRandom(21)),
  })
  const owner = new CommandSigner({
    privateKey: OWNER_PK,
    clock: mock.clock,
    salts: new SaltSource(seededRandom(22)),
  })
  const mark = Number((await rest.getTickers()).find((t) => t.instrument_id === 1)?.mark_price ?? '0')
  const placed = (await command(
    'POST /v1/trade/orders (acks)',
    'PerpsPostOrderAckSchema',
    true,
    'POST',
    '/v1/trade/orders',
    await signer.signCommand(
      buildCreateOrders({
        orders: [{ iid: 1, buy: true, qty: '0.01', tif: 'gtc', p: String(Math.floor(mark * 0.8)), po: true }],
      }),
    ),
  )) as { oid: number }[]
  const oid = placed[0]?.oid ?? 0
  await command(
    'DELETE /v1/trade/orders (results)',
    'PerpsCancelOrderResultSchema',
    true,
    'DELETE',
    '/v1/trade/orders',
    await signer.signCommand(buildCancelOrders({ oids: [oid, oid] })),
  )
  await command(
    'DELETE /v1/trade/orders/all',
    'PerpsCancelAllOrdersResponseSchema',
    false,
    'DELETE',
    '/v1/trade/orders/all',
    await signer.signCommand(buildCancelAll({ iid: 1 })),
  )
  await command(
    'PATCH /v1/trade/leverage',
    'PerpsUpdateLeverageResultSchema',
    false,
    'PATCH',
    '/v1/trade/leverage',
    await signer.signCommand(buildUpdateLeverage({ iid: 2, lev: 5, cross: true })),
  )
  await command(
    'PATCH /v1/trade/auto-cancel',
    'PerpsAutoCancelResponseSchema',
    false,
    'PATCH',
    '/v1/trade/auto-cancel',
    await signer.signCommand(buildAutoCancel({ time: mock.clock.now() + 60_000 })),
  )
  await command(
    'POST /v1/account/proxy',
    'PerpsCreateProxyResponseSchema',
    false,
    'POST',
    '/v1/account/proxy',
    await owner.signCreateProxy({ proxy: SECOND_PROXY, expiry: mock.clock.now() + 86_400_000 }),
  )
  await command(
    'DELETE /v1/account/proxy',
    'PerpsDeleteProxyResponseSchema',
    false,
    'DELETE',
    '/v1/account/proxy',
    await owner.signCommand({
      op: { type: 'deleteProxy', args: { proxy: SECOND_PROXY } },
      signedOp: ['deleteProxy', [SECOND_PROXY]],
    }),
  )
  await command(
    'POST /v1/account/withdraw',
    'PerpsWithdrawResponseSchema',
    false,
    'POST',
    '/v1/account/withdraw',
    await owner.signWithdraw({ amount: 5_000_000n }),
  )
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
    const cases: [string, string][] = [
      ['/v1/info/instruments', 'FetchPerpsInstrumentsResponseSchema'],
      ['/v1/info/tickers', 'FetchPerpsTickersResponseSchema'],
      ['/v1/info/statistics', 'FetchPerpsStatisticsResponseSchema'],
      ['/v1/info/fees', 'FetchPerpsFeesResponseSchema'],
      ['/v1/account/portfolio', 'FetchPerpsPortfolioResponseSchema'],
      ['/v1/account/open-orders', 'FetchPerpsOpenOrdersResponseSchema'],
      [`/v1/account/orders?${window}`, 'FetchPerpsOrdersResponseSchema'],
      [`/v1/account/fills?${window}`, 'ListPerpsFillsResponseSchema'],
      [`/v1/account/funding?${window}`, 'ListPerpsFundingPaymentsResponseSchema'],
      [`/v1/account/withdrawals?${window}`, 'ListPerpsWithdrawalsResponseSchema'],
      ['/v1/account/credentials', 'PerpsCredentialsResponseSchema'],
      ['/v1/info/book?instrument_id=1', 'PerpsBookSchema'],
      [
        `/v1/info/klines?instrument_id=1&interval=1m&start_timestamp=${t - 3_600_000}`,
        'FetchPerpsCandlesResponseSchema',
      ],
      [`/v1/info/trades?instrument_id=1&${window}`, 'FetchPerpsTradesResponseSchema'],
      [`/v1/info/funding?instrument_id=1&${window}`, 'FetchPerpsFundingHistoryResponseSchema'],
      ['/v1/account/balances', 'FetchPerpsBalancesResponseSchema'],
      [`/v1/account/deposits?${window}`, 'ListPerpsDepositsResponseSchema'],
      [
        `/v1/account/equity?interval=1h&start_timestamp=${t - 7_200_000}`,
        'ListPerpsEquityHistoryResponseSchema',
      ],
      [`/v1/account/pnl?interval=1h&start_timestamp=${t - 7_200_000}`, 'ListPerpsPnlHistoryResponseSchema'],
      ['/v1/account/config', 'FetchPerpsAccountConfigResponseSchema'],
      ['/v1/account/auto-cancel', 'FetchPerpsAutoCancelStatusResponseSchema'],
      ['/v1/account/stats', 'FetchPerpsAccountStatsResponseSchema'],
      ['/v1/account/notifications', 'ListPerpsNotificationsResponseSchema'],
    ]
    const bad: string[] = []
    const seen: string[] = []
    const missing: string[] = []
    for (const [path, exportName] of cases) {
      const body = await get(path)
      for (const v of VERSIONS) {
        const schema = v.perps[exportName]
        if (!isSchema(schema)) {
          missing.push(`${v.label}: ${path.split('?')[0]}`)
          continue
        }
        const issues = officialIssues(schema, body)
        if (issues.length > 0) bad.push(`${v.label} ${path}: ${issues.join('; ')}`)
      }
      seen.push(`${path.split('?')[0]}${Array.isArray(body) ? ` (${body.length} rows)` : ''}`)
    }
    console.log(`not in that version (not checked): ${missing.join(', ')}`)
    const fills = (await get(`/v1/account/fills?${window}`)) as { data: unknown[] }
    expect(fills.data.length).toBeGreaterThanOrEqual(2)
    console.log(`mock REST checked by the official schemas: ${seen.join(', ')}`)
    expect(bad).toEqual([])
  })

  it('command answers: every signed command the official client knows an answer schema for', () => {
    const bad: string[] = []
    const checked: string[] = []
    for (const a of answers)
      for (const v of VERSIONS) {
        const schema = v.perps[a.official]
        if (!isSchema(schema)) continue
        const issues = officialIssues(a.array ? z.array(schema) : schema, a.body)
        if (issues.length > 0) bad.push(`${v.label} ${a.name}: ${issues.join('; ')}`)
        else checked.push(`${v.label} ${a.name}`)
      }
    console.log(`mock command answers checked by the official schemas: ${checked.join(', ')}`)
    expect(answers.map((a) => a.name)).toHaveLength(8)
    expect(bad).toEqual([])
  })

  it('stream: every push of every channel the bindings read', async () => {
    const pushes = frames.filter((f): f is { ch: string } => typeof f === 'object' && f !== null && 'ch' in f)
    const bad: string[] = []
    const kinds = new Map<string, number>()
    for (const p of pushes) {
      const kind = p.ch.split('::')[0] ?? p.ch
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
      for (const v of VERSIONS) {
        const union = /::/.test(p.ch)
          ? v.subs.PerpsMarketDataEventSchema
          : v.subs.PerpsSessionUpdateEventSchema
        if (!isSchema(union)) throw new Error(`bindings ${v.label} without the event unions`)
        const issues = officialIssues(union, p)
        if (issues.length > 0) bad.push(`${v.label} ${p.ch}: ${issues[0]}`)
      }
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
