/**
 * Fidelity of the embedded mock, judged by the official client: @polymarket/client 0.2.0 (a
 * devDependency; it needs Node >= 24, so the suite skips on older Node) reads the mock on 127.0.0.1
 * through its public API. The client validates every response with its zod schemas and throws
 * `UnexpectedResponseError` on a mismatch, so each read that returns is a schema check; the tests then
 * compare what it parsed with the mock's store or raw JSON.
 *
 * What the client reads here: Gamma keyset listing (+ cursor), event by slug, event tags; perps
 * instruments and fees; and, through an official perps session (createProxy against the mock, then
 * credentials, portfolio, open orders, orders, withdrawals, funding payments). Statistics are read by
 * the client only together with `/v1/info/tickers`, which the mock does not serve, so the raw mock
 * response is parsed with the client's own bindings schema instead. Index, assets, exchange info and
 * time have no reader and no schema in client 0.2.0 / bindings 0.2.0: nothing official to check them by.
 */
import type { Event as OfficialEvent } from '@polymarket/bindings/gamma'
import { http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventDetail } from '../../src/catalogue/schemas/event.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { createCommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { buildCreateOrders, type CreateOrdersInput } from '../../src/perps/signing/ops.ts'
import { seededRandom } from '../../src/random.ts'
import { STUB_CLOB_API_KEY, startVenueStub, type VenueStub } from './officialClientStub.ts'

const NODE_MAJOR = Number(process.versions.node.split('.')[0])

// Public Hardhat/Anvil dev key (protocol-notes a.4); never funded.
const OWNER_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const OWNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const HOUR_MS = 3_600_000
const RESTING_COID = '0123456789abcdef0123456789abcdef'

type Official = typeof import('@polymarket/client')
type PublicClient = ReturnType<Official['createPublicClient']>
type SecureClient = Awaited<ReturnType<Official['createSecureClient']>>
type Session = Awaited<ReturnType<SecureClient['openPerpsSession']>>
type Json = Record<string, unknown>
type StoredMarket = NonNullable<EventDetail['markets']>[number]

describe.runIf(NODE_MAJOR >= 24)('official @polymarket/client reads the embedded mock (Node >= 24)', () => {
  let official: Official
  let mock: RunningMock
  let stub: VenueStub
  let client: PublicClient
  let startMs: number

  beforeAll(async () => {
    official = await import('@polymarket/client')
    startMs = Date.now()
    // Stepped clock: the venue's time moves only when a test advances it (funding needs an hour).
    mock = await startMockServer({
      port: 0,
      seed: 1,
      clock: 'stepped',
      startTime: startMs,
      catalogue: { eventCount: 300 },
      exchange: { accounts: [{ owner: OWNER }] },
    })
    stub = await startVenueStub()
    client = official.createPublicClient({ environment: environmentFor(official, mock, stub) })
  })

  afterAll(async () => {
    await client?.closeSubscriptions().catch(() => undefined)
    await stub?.close()
    await mock?.close()
  })

  async function raw<T = Json>(path: string, headers: Record<string, string> = {}): Promise<T> {
    const res = await fetch(`${mock.url}${path}`, { headers })
    expect(res.status, path).toBe(200)
    return (await res.json()) as T
  }

  function stored(id: string): EventDetail {
    const s = mock.catalogue.getEvent(id)
    if (s === undefined) throw new Error(`event ${id} is not in the mock's store`)
    return s.event
  }

  /** The client keeps binary markets only (its Market model is yes/no). */
  function binaryMarkets(e: EventDetail): StoredMarket[] {
    return (e.markets ?? []).filter((m) => (JSON.parse(m.outcomes ?? '[]') as unknown[]).length === 2)
  }

  function expectSameEvent(got: OfficialEvent, want: EventDetail): void {
    expect(got.slug).toBe(want.slug)
    expect(got.title).toBe(want.title)
    expect(got.state.closed ?? null).toBe(want.closed ?? null)
    expect(got.markets.map((m) => [m.id, m.conditionId])).toEqual(
      binaryMarkets(want).map((m) => [m.id, m.conditionId]),
    )
    expect(got.tags.map((t) => [t.id, t.slug])).toEqual((want.tags ?? []).map((t) => [t.id, t.slug]))
    expect(got.series.map((s) => s.id)).toEqual((want.series ?? []).map((s) => s.id))
  }

  describe('Gamma catalogue', () => {
    it('reads a keyset page of events and follows its next_cursor', async () => {
      const pager = client.listEvents({ pageSize: 20 })
      const first = await pager.firstPage()
      const rawFirst = await raw<{ events: { id: string }[]; next_cursor?: string }>(
        '/events/keyset?closed=false&limit=20',
      )
      expect(first.items.map((e) => e.id)).toEqual(rawFirst.events.map((e) => e.id))
      expect(first.items).toHaveLength(20)
      for (const e of first.items) expectSameEvent(e, stored(e.id))
      expect(first.items.some((e) => e.markets.length > 0 && e.tags.length > 0)).toBe(true)

      expect(first.hasMore).toBe(true)
      const cursor = first.nextCursor
      expect(cursor).toBe(rawFirst.next_cursor)
      let second: OfficialEvent[] | undefined
      for await (const page of pager.from(cursor)) {
        second = page.items
        break
      }
      const rawSecond = await raw<{ events: { id: string }[] }>(
        `/events/keyset?closed=false&limit=20&after_cursor=${encodeURIComponent(String(cursor))}`,
      )
      expect(second?.map((e) => e.id)).toEqual(rawSecond.events.map((e) => e.id))
      expect(second?.length).toBeGreaterThan(0)
      const firstIds = new Set(first.items.map((e) => e.id))
      for (const e of second ?? []) {
        expect(firstIds.has(e.id)).toBe(false)
        expectSameEvent(e, stored(e.id))
      }
    })

    it('walks every open and every closed event to the last page (all 300 parse)', async () => {
      const seen: string[] = []
      for (const closed of [false, true]) {
        let pages = 0
        for await (const page of client.listEvents({ pageSize: 100, closed })) {
          pages++
          for (const e of page.items) {
            expect(e.state.closed === true).toBe(closed)
            seen.push(e.id)
          }
        }
        expect(pages).toBeGreaterThan(0)
      }
      expect(new Set(seen).size).toBe(seen.length)
      expect([...seen].sort()).toEqual(
        mock.catalogue
          .events()
          .map((s) => s.event.id)
          .sort(),
      )
    })

    it('reads an event by a slug taken from the listing, then its tags', async () => {
      const listed = (await client.listEvents({ pageSize: 50 }).firstPage()).items
      const pick = listed.find((e) => e.markets.length > 1 && e.tags.length > 1 && e.series.length > 0)
      expect(pick, 'an event with markets, tags and series').toBeDefined()
      const slug = String(pick?.slug)

      const event = await client.fetchEvent({ slug })
      const want = stored(event.id)
      expect(event.id).toBe(pick?.id)
      expectSameEvent(event, want)
      expect(event.description).toBe(want.description)
      // The single-event form carries liquidityAmm (a JSON number; the client keeps decimals as strings).
      expect(event.metrics.liquidityAmm).toBe(String(want.liquidityAmm))
      for (const [i, m] of event.markets.entries()) {
        const w = binaryMarkets(want)[i]
        expect(m.question).toBe(w?.question)
        expect([m.outcomes.yes.label, m.outcomes.no.label]).toEqual(JSON.parse(w?.outcomes ?? '[]'))
        expect([m.outcomes.yes.tokenId, m.outcomes.no.tokenId]).toEqual(JSON.parse(w?.clobTokenIds ?? '[]'))
      }

      // Also by its polymarket.com URL form: the client extracts the slug and asks the same endpoint.
      const byUrl = await client.fetchEvent({ url: `https://polymarket.com/event/${slug}` })
      expect(byUrl.id).toBe(event.id)

      const tags = await client.fetchEventTags({ id: event.id })
      expect(tags.map((t) => [t.id, t.label, t.slug])).toEqual(
        (want.tags ?? []).map((t) => [t.id, t.label, t.slug]),
      )
      expect(tags.length).toBeGreaterThan(1)
    })

    it('sees the relations under its own keys: partners (partner_slug), best lines, CLOB rewards', async () => {
      const game = mock.catalogue
        .events()
        .find((s) => !s.event.closed && (s.bestLines ?? []).length > 0 && (s.partners.espn ?? []).length > 0)
      expect(game, 'an open game with best lines and an ESPN link').toBeDefined()
      const id = String(game?.event.id)
      const links = game?.partners.espn ?? []
      const lines = game?.bestLines ?? []

      const plain = (await client.listEvents({ ids: [Number(id)] }).firstPage()).items[0]
      expect(plain?.id).toBe(id)
      expect(plain?.partners).toEqual([])
      expect(plain?.sports.bestLines).toEqual([])

      const page = await client
        .listEvents({ ids: [Number(id)], partnerSlug: 'espn', includeBestLines: true })
        .firstPage()
      const e = page.items[0]
      expect(e?.id).toBe(id)
      expect(e?.partners.length).toBeGreaterThan(0)
      expect(e?.partners).toEqual(
        links.map((l) => ({
          id: l.id,
          externalId: l.externalId,
          partner: l.partner ? { id: l.partner.id, slug: l.partner.slug, name: l.partner.name } : null,
          createdAt: l.createdAt,
          updatedAt: l.updatedAt,
        })),
      )
      expect(e?.sports.bestLines.length).toBeGreaterThan(0)
      expect(e?.sports.bestLines).toEqual(
        lines.map((b) => ({ id: b.id, lineType: b.lineType, line: b.line })),
      )

      // Listing markets carry their reward programmes; the client keeps decimals as strings.
      const want = binaryMarkets(stored(id))
      expect(want.some((m) => (m.clobRewards ?? []).length > 0)).toBe(true)
      for (const [i, m] of (e?.markets ?? []).entries()) {
        expect(m.rewards.clobRewards).toEqual(
          (want[i]?.clobRewards ?? []).map((r) => ({
            ...r,
            rewardsAmount: String(r.rewardsAmount),
            rewardsDailyRate: String(r.rewardsDailyRate),
          })),
        )
      }

      const detail = await client.fetchEvent({ slug: String(e?.slug), includeBestLines: true })
      expect(detail.sports.bestLines).toEqual(e?.sports.bestLines)
    })

    it('filters by eventDate, a calendar date', async () => {
      const dated = mock.catalogue
        .events()
        .find((s) => !s.event.closed && typeof s.event.eventDate === 'string')
      expect(dated, 'an open event with an eventDate').toBeDefined()
      const day = String(dated?.event.eventDate).slice(0, 10)
      const found: string[] = []
      for await (const page of client.listEvents({ eventDate: day, pageSize: 100 })) {
        for (const ev of page.items) {
          expect(String(ev.schedule.eventDate).slice(0, 10)).toBe(day)
          found.push(ev.id)
        }
      }
      expect(found).toContain(dated?.event.id)
    })

    it('the client validates: a listing market without marketMakerAddress is rejected (negative control)', async () => {
      const listed = (await client.listEvents({ pageSize: 5 }).firstPage()).items
      const target = listed.find((e) => e.markets.length > 0)
      expect(target).toBeDefined()
      const id = String(target?.id)
      const original = stored(id).markets ?? []
      const stripped = original.map(({ marketMakerAddress: _dropped, ...rest }) => rest)
      mock.catalogue.updateEvent(id, { markets: stripped })
      try {
        const failure = await client
          .listEvents({ pageSize: 5 })
          .firstPage()
          .then(
            () => undefined,
            (e: unknown) => e,
          )
        expect(failure).toBeInstanceOf(official.UnexpectedResponseError)
        expect(String((failure as Error).message)).toContain('marketMakerAddress')
        await expect(client.fetchEvent({ slug: String(target?.slug) })).rejects.toThrow(/marketMakerAddress/)
      } finally {
        mock.catalogue.updateEvent(id, { markets: original })
      }
      expect((await client.fetchEvent({ slug: String(target?.slug) })).id).toBe(id)
    })
  })

  describe('perps public info', () => {
    it('reads the instruments, all and filtered by id and category', async () => {
      const instruments = await client.fetchPerpsInstruments()
      const rawList = await raw<Json[]>('/v1/info/instruments')
      expect(instruments.length).toBeGreaterThan(0)
      expect(instruments.map((i) => [i.id, i.symbol, i.category, i.priceDecimals, i.maxLeverage])).toEqual(
        rawList.map((r) => [r.instrument_id, r.symbol, r.category, r.price_decimals, r.max_leverage]),
      )
      for (const i of instruments) expect(i.riskTiers.length).toBeGreaterThan(0)

      const one = instruments[0]
      if (one === undefined) throw new Error('the mock lists no instruments')
      expect(await client.fetchPerpsInstruments({ instrumentId: one.id })).toEqual([one])
      const byCategory = await client.fetchPerpsInstruments({ category: one.category })
      expect(byCategory.length).toBeGreaterThan(0)
      expect(byCategory.every((i) => i.category === one.category)).toBe(true)
      expect(byCategory.length).toBeLessThanOrEqual(instruments.length)
    })

    it('reads the fee schedule with its volume tiers', async () => {
      const fees = await client.fetchPerpsFees()
      const rawFees = await raw<{ fee_schedule: Json[] }>('/v1/info/fees')
      expect(fees.length).toBeGreaterThan(0)
      expect(fees.map((f) => [f.category, f.takerFeeRate, f.makerFeeRate, f.tiers.length])).toEqual(
        rawFees.fee_schedule.map((f) => [
          f.category,
          f.taker_fee_rate,
          f.maker_fee_rate,
          (f.tiers as unknown[]).length,
        ]),
      )
      for (const f of fees) expect(f.tiers.length).toBeGreaterThan(0)
    })

    it('statistics parse under the client schema (the client reads them only with /v1/info/tickers)', async () => {
      const { FetchPerpsStatisticsResponseSchema } = await import('@polymarket/bindings/perps')
      const instruments = await client.fetchPerpsInstruments()
      const all = FetchPerpsStatisticsResponseSchema.safeParse(await raw('/v1/info/statistics'))
      expect(all.error?.issues ?? []).toEqual([])
      expect(all.data?.map((s) => s.instrumentId)).toEqual(instruments.map((i) => i.id))
      for (const s of all.data ?? []) expect(s.klines.length).toBeGreaterThan(0)

      const id = Number(instruments[0]?.id)
      const one = FetchPerpsStatisticsResponseSchema.safeParse(
        await raw(`/v1/info/statistics?instrument_id=${id}`),
      )
      expect(one.error?.issues ?? []).toEqual([])
      expect(one.data?.map((s) => s.instrumentId)).toEqual([id])
    })
  })

  describe('perps account, through an official session', () => {
    let secure: SecureClient
    let session: Session
    let placed: unknown[]

    beforeAll(async () => {
      const viemAdapter = await import('@polymarket/client/viem')
      secure = await official.createSecureClient({
        environment: environmentFor(official, mock, stub),
        // Nothing is sent to an RPC node in these flows; the stub would answer 404 if it were.
        signer: viemAdapter.privateKey(OWNER_PK, { transport: http(stub.url) }),
        wallet: OWNER,
        credentials: {
          key: STUB_CLOB_API_KEY,
          secret: Buffer.from('clob-secret').toString('base64'),
          passphrase: 'p',
        },
      } as Parameters<Official['createSecureClient']>[0])
      // createProxy (owner-signed by the official client, verified by the mock), then the mock's
      // credentials are parsed and checked, then the session socket (stub) is opened.
      session = await secure.openPerpsSession({ label: 'fidelity' })

      // The official session places orders over its WebSocket, which the mock does not serve; place
      // them over REST with our signer and the session's proxy key, to have order rows to read back.
      const signer = createCommandSigner({
        privateKey: session.credentials.privateKey,
        clock: mock.serverClock,
        salts: seededRandom(7),
      })
      const index = await raw<{ index_price: string }>('/v1/info/index?asset=BTC')
      const mark = Number(index.index_price)
      const post = async (order: CreateOrdersInput['orders'][number]): Promise<unknown> => {
        const body = await signer.signCommand(buildCreateOrders({ orders: [order] }))
        const res = await fetch(`${mock.url}/v1/trade/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        return res.json()
      }
      placed = [
        await post({
          iid: 1,
          buy: true,
          p: String(Math.floor(mark * 0.97)),
          qty: '0.01',
          tif: 'gtc',
          po: true,
          coid: RESTING_COID,
        }),
        await post({ iid: 1, buy: true, p: String(Math.floor(mark * 1.03)), qty: '0.01', tif: 'ioc' }),
      ]
      // Two funding windows pass with the filled position open.
      mock.clock.advance(2 * HOUR_MS + 1_000)
    })

    afterAll(async () => {
      await session?.close().catch(() => undefined)
      await secure?.closeSubscriptions().catch(() => undefined)
    })

    it('opened a session: the mock accepted the official createProxy and its credentials parsed', async () => {
      expect(placed).toEqual([
        [{ status: 'ok', oid: expect.any(Number), coid: RESTING_COID }],
        [{ status: 'ok', oid: expect.any(Number) }],
      ])
      const creds = await raw<{ address: string; keys: { proxy: string }[] }>('/v1/account/credentials', {
        'POLYMARKET-PROXY': session.credentials.proxy,
        'POLYMARKET-SECRET': session.credentials.secret,
      })
      expect(creds.address.toLowerCase()).toBe(OWNER.toLowerCase())
      expect(creds.keys.map((k) => k.proxy.toLowerCase())).toContain(session.credentials.proxy.toLowerCase())
    })

    it('reads the portfolio with the filled position', async () => {
      const portfolio = await session.fetchPortfolio()
      expect(portfolio.inLiquidation).toBe(false)
      expect(portfolio.positions).toEqual([
        expect.objectContaining({ instrumentId: 1, size: '0.01', cross: expect.any(Boolean) }),
      ])
      expect(Number(portfolio.margin.totalInitialMargin)).toBeGreaterThan(0)
    })

    it('reads open orders and the order history', async () => {
      const open = await session.fetchOpenOrders()
      expect(open).toEqual([
        expect.objectContaining({
          instrumentId: 1,
          side: official.OrderSide.BUY,
          status: 'open',
          postOnly: true,
          clientOrderId: RESTING_COID,
          restingQuantity: '0.01',
        }),
      ])
      const history = await session.fetchOrders()
      expect(history.map((o) => [o.timeInForce, o.status]).sort()).toEqual([
        ['gtc', 'open'],
        ['ioc', 'filled'],
      ])
    })

    it('reads withdrawals and funding payments (history pages)', async () => {
      const end = startMs + 3 * HOUR_MS
      const withdrawals = await session.listWithdrawals({ start: startMs - HOUR_MS, end }).firstPage()
      const rawWithdrawals = await raw<{ data: Json[] }>(
        `/v1/account/withdrawals?start_timestamp=${startMs - HOUR_MS}&end_timestamp=${end}`,
        { 'POLYMARKET-PROXY': session.credentials.proxy, 'POLYMARKET-SECRET': session.credentials.secret },
      )
      expect(rawWithdrawals.data.length).toBeGreaterThan(0)
      expect(withdrawals.items.map((w) => [w.withdrawalId, w.status, w.amount])).toEqual(
        rawWithdrawals.data.map((w) => [w.withdraw_id, w.status, w.amount]),
      )

      const funding = await session.listFundingPayments({ start: startMs, end }).firstPage()
      expect(funding.items.length).toBeGreaterThan(0)
      for (const f of funding.items) expect(f.instrumentId).toBe(1)
    })
  })
})

/** Every endpoint the client knows points at 127.0.0.1: Gamma and perps REST at the mock, the rest at the stub. */
function environmentFor(
  official: Official,
  mock: RunningMock,
  stub: VenueStub,
): ReturnType<Official['forkEnvironmentConfig']> {
  return official.forkEnvironmentConfig({
    name: 'embedded-mock',
    rpc: stub.url,
    clob: { rest: stub.url, market: { ws: stub.wsUrl }, user: { ws: stub.wsUrl } },
    relayer: { rest: stub.url },
    gamma: { rest: mock.url },
    data: { rest: stub.url },
    combos: { rest: stub.url, ws: stub.wsUrl, collateralReturn: { rest: stub.url } },
    perps: { rest: mock.url, ws: stub.wsUrl },
    rtds: { ws: stub.wsUrl },
    sports: { ws: stub.wsUrl },
  })
}
