/**
 * Every frame the mock's WebSocket pushes parses under the official bindings' event schemas (the
 * reads `@polymarket/client` accepts), and `GET /v1/info/tickers` under its REST schema, agreeing
 * with the `tickers::all` push of the same tick.
 */
import { request, WebSocket } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../../src/mock/server.ts'
import { createPerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../../src/perps/signing/salt.ts'
import { seededRandom } from '../../../src/random.ts'
import { OWNER, PROXY, PROXY_PK, SECRET, startStreamMock, until } from '../../perps/stream/streamHarness.ts'

let mock: RunningMock
let ws: WebSocket
const frames: { ch?: string; id?: number; data?: unknown }[] = []

const send = (v: unknown): void => ws.send(JSON.stringify(v))
const step = async (ms: number): Promise<void> => {
  mock.clock.advance(ms)
  await new Promise((resolve) => setTimeout(resolve, 5))
}

beforeAll(async () => {
  mock = await startStreamMock()
  ws = new WebSocket(mock.wsUrl)
  ws.addEventListener('message', (ev) => frames.push(JSON.parse(String(ev.data))))
  await new Promise((resolve) => ws.addEventListener('open', resolve, { once: true }))
  send({ id: 1, req: 'post', op: { type: 'auth', args: { proxy: PROXY, secret: SECRET } } })
  await until(() => frames.some((f) => f.id === 1), 'auth ack')
  const chs = [
    'tickers::all',
    'tickers::2',
    'statistics::all',
    'bbo::1',
    'book::1',
    'klines::1::1m',
    'trades::1',
  ]
  const own = ['portfolio', 'orders', 'fills', 'balances', 'withdrawals', 'funding', 'deposits']
  send({ id: 2, req: 'sub', chs: [...chs, ...own] })
  await until(() => frames.some((f) => f.id === 2), 'sub ack')
  const rest = createPerpsClient({
    baseUrl: mock.url,
    clock: mock.clock,
    random: seededRandom(3),
    credentials: { proxy: PROXY, secret: SECRET },
    signer: new CommandSigner({
      privateKey: PROXY_PK,
      clock: mock.clock,
      salts: new SaltSource(seededRandom(4)),
    }),
  })
  await rest.createOrders([{ iid: 1, buy: true, qty: '0.01', tif: 'ioc' }])
  await rest.close()
  mock.exchange.requestWithdrawal(OWNER, { amount: '100' })
  // Pending for two blocks of 1 s, then confirmed: two pushes on `deposits`.
  mock.exchange.deposit(OWNER, '250', { requiredConfirmations: 2, blockMs: 1_000 })
  for (let i = 0; i < 3; i++) await step(1_000)
  await until(() => frames.some((f) => f.ch === 'withdrawals'), 'pushes')
  await until(() => frames.filter((f) => f.ch === 'deposits').length >= 2, 'deposit pushes')
})
afterAll(async () => {
  ws.close()
  await mock.close()
})

describe('mock WebSocket vs the official schemas', () => {
  it('acks auth and subscriptions in the shapes the official session accepts', () => {
    expect(frames.find((f) => f.id === 1)).toEqual({ id: 1, data: { status: 'ok' } })
    const sub = frames.find((f) => f.id === 2)
    expect(sub?.data).toHaveLength(14)
    expect(sub?.data).toEqual(Array.from({ length: 14 }, () => ({ status: 'ok' })))
  })

  it('every push parses under PerpsMarketDataEventSchema or PerpsSessionUpdateEventSchema', async () => {
    const { PerpsMarketDataEventSchema, PerpsSessionUpdateEventSchema } = await import(
      '@polymarket/bindings/subscriptions'
    )
    const pushes = frames.filter((f) => f.ch !== undefined)
    const kinds = new Set(pushes.map((p) => (p.ch ?? '').split('::')[0]))
    expect([...kinds].sort()).toEqual(
      [
        'balances',
        'bbo',
        'book',
        'deposits',
        'fills',
        'klines',
        'orders',
        'portfolio',
        'statistics',
        'tickers',
        'trades',
        'withdrawals',
      ].sort(),
    )
    for (const p of pushes) {
      const market = PerpsMarketDataEventSchema.safeParse(p)
      const session = PerpsSessionUpdateEventSchema.safeParse(p)
      expect(
        market.success || session.success,
        `${p.ch}: ${JSON.stringify(session.error?.issues ?? market.error?.issues)}`,
      ).toBe(true)
    }
  })

  it('GET /v1/account/deposits parses under the official schema and agrees with the pushes', async () => {
    const { ListPerpsDepositsResponseSchema } = await import('@polymarket/bindings/perps')
    const res = await request(`${mock.url}/v1/account/deposits`, {
      headers: { 'POLYMARKET-PROXY': PROXY, 'POLYMARKET-SECRET': SECRET },
    })
    const parsed = ListPerpsDepositsResponseSchema.safeParse(await res.body.json())
    expect(parsed.error?.issues ?? []).toEqual([])
    const [d] = parsed.data?.data ?? []
    expect(d).toMatchObject({ status: 'confirmed', amount: '250000000', confirmations: 2 })
    const pushed = frames.filter((f) => f.ch === 'deposits').map((f) => f.data)
    expect(pushed).toEqual([
      { hash: d?.hash, asset: 'pUSD', amount: '250000000', status: 'pending' },
      { hash: d?.hash, asset: 'pUSD', amount: '250000000', status: 'confirmed' },
    ])
  })

  it('GET /v1/info/tickers parses under the official schema and matches the push of the tick', async () => {
    const { FetchPerpsTickersResponseSchema } = await import('@polymarket/bindings/perps')
    const res = await request(`${mock.url}/v1/info/tickers`)
    const body = await res.body.json()
    const parsed = FetchPerpsTickersResponseSchema.safeParse(body)
    expect(parsed.error?.issues ?? []).toEqual([])
    const pushed = frames.filter((f) => f.ch === 'tickers::all').slice(-(parsed.data?.length ?? 0))
    expect(pushed.map((p) => p.data)).toEqual(
      (parsed.data ?? []).map((t) => ({
        iid: t.instrumentId,
        idx: t.indexPrice,
        mark: t.markPrice,
        last: t.lastPrice,
        mid: t.midPrice,
        oi: t.openInterest,
        fr: t.fundingRate,
        nxf: t.nextFunding,
      })),
    )
    const one = await request(`${mock.url}/v1/info/tickers?instrument_id=2`)
    expect(((await one.body.json()) as { instrument_id: number }[]).map((t) => t.instrument_id)).toEqual([2])
  })

  it('trades::1 carries our fill (taker side) at once, then each closed minute of flow once, as REST serves them', async () => {
    type Item = { tid: number; iid: number; side: string; p: string; qty: string; ts: number }
    const items = (): Item[] => frames.filter((f) => f.ch === 'trades::1').flatMap((f) => f.data as Item[])
    const fill = items()[0]
    expect(fill).toMatchObject({ iid: 1, side: 'long', qty: '0.01' })
    const before = items().length
    // Past the next minute's close: its flow comes as one print, once.
    for (let i = 0; i < 65; i++) {
      // A ping now and then: the mock closes a socket silent for 60 s.
      if (i % 20 === 0) send({ id: 0, req: 'post', op: { type: 'ping' } })
      await step(1_000)
    }
    await until(() => items().length > before, 'a minute print')
    const pushed = items()
    expect(new Set(pushed.map((t) => t.tid)).size).toBe(pushed.length)
    const res = await request(`${mock.url}/v1/info/trades?instrument_id=1&start_timestamp=${pushed[0]?.ts}`)
    const rest = (
      (await res.body.json()) as {
        data: { trade_id: number; side: string; price: string; timestamp: number }[]
      }
    ).data
    for (const t of pushed)
      expect(rest.find((r) => r.trade_id === t.tid)).toEqual(
        expect.objectContaining({ side: t.side, price: t.p, timestamp: t.ts }),
      )
  })

  it('a change push carries only the moved instrument, in sequence, and leaves the tick alone', async () => {
    const from = frames.length
    const sqOf = (ch: string): number =>
      (frames.filter((f) => f.ch === ch).at(-1) as { sq?: number } | undefined)?.sq ?? -1
    const before = {
      all: sqOf('tickers::all'),
      bbo: sqOf('bbo::1'),
      book: sqOf('book::1'),
      two: sqOf('tickers::2'),
    }
    mock.stream?.publishNow([1])
    await until(() => frames.slice(from).some((f) => f.ch === 'book::1'), 'change push')
    await new Promise((resolve) => setTimeout(resolve, 20))
    const got = frames.slice(from) as { ch: string; sq: number; data: { iid?: number } }[]
    expect(got.map((f) => f.ch)).toEqual(['tickers::all', 'bbo::1', 'book::1'])
    expect(got[0]?.data.iid).toBe(1)
    expect(got.map((f) => f.sq)).toEqual([before.all + 1, before.bbo + 1, before.book + 1])
    expect(sqOf('tickers::2')).toBe(before.two)
  })
})
