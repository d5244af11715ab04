/**
 * Contract: the perps client against the mock over loopback HTTP, every endpoint, happy and error
 * paths. The mock runs on a stepped virtual clock shared with the client and signer, so time moves
 * only when the test says so.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InputValidationError, RateLimitError, RequestRejectedError } from '../../src/errors.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import type { ProxyCredentials } from '../../src/perps/client/context.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'

let mock: RunningMock
let pub: PerpsClient
let client: PerpsClient
let owner: CommandSigner
let credentials: ProxyCredentials
const salts = new SaltSource(seededRandom(5))

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 3, clock: 'stepped', catalogue: { eventCount: 20 } })
  const clock = mock.clock
  pub = createPerpsClient({ baseUrl: mock.url, clock, random: seededRandom(1) })
  owner = new CommandSigner({ privateKey: generatePrivateKey(), clock, salts })
  const proxyKey = generatePrivateKey()
  const res = await pub.createProxy(
    { proxy: privateKeyToAccount(proxyKey).address, expiry: clock.now() + 86_400_000, label: 'contract' },
    { owner },
  )
  credentials = res.credentials
  client = createPerpsClient({
    baseUrl: mock.url,
    clock,
    random: seededRandom(2),
    credentials,
    signer: new CommandSigner({ privateKey: proxyKey, clock, salts }),
  })
})

afterAll(async () => {
  await client?.close()
  await pub?.close()
  await mock?.close()
})

const btc = async () => {
  const inst = (await pub.getInstruments()).find((i) => i.symbol === 'BTC-USDC')
  if (!inst) throw new Error('BTC-USDC missing')
  return inst
}

describe('public info', () => {
  it('time, exchange, instruments, index, statistics, fees, assets', async () => {
    expect((await pub.getTime()).time).toBe(mock.clock.now())
    expect(await pub.getExchange()).toMatchObject({ name: 'Polymarket', version: '1', chain_id: 137 })
    const instruments = await pub.getInstruments()
    expect(instruments.map((i) => i.symbol)).toContain('BTC-USDC')
    const one = await pub.getInstruments({ instrumentId: instruments[0]?.instrument_id ?? 0 })
    expect(one).toHaveLength(1)
    const index = await pub.getIndex('BTC')
    expect(index.asset).toBe('BTC')
    expect(Number(index.index_price)).toBeGreaterThan(0)
    const stats = await pub.getStatistics({ instrumentId: (await btc()).instrument_id })
    expect(stats).toHaveLength(1)
    expect(stats[0]?.klines.length).toBeGreaterThan(0)
    expect((await pub.getFees()).fee_schedule.length).toBeGreaterThan(0)
    expect((await pub.getAssets())[0]).toMatchObject({ decimals: expect.any(Number) })
  })

  it('public portfolio of the account, and of an unknown address', async () => {
    const mine = await pub.getPublicPortfolio(owner.address)
    expect(mine.equity).toBeDefined()
    const other = await pub.getPublicPortfolio('0x000000000000000000000000000000000000dEaD')
    expect(other.positions).toEqual([])
  })

  it('an unknown asset is rejected with a typed error', async () => {
    const e = await pub.getIndex('NOPE').catch((x: unknown) => x)
    expect(e).toBeInstanceOf(RequestRejectedError)
  })
})

describe('account reads (header auth)', () => {
  it('credentials list the proxy with its label', async () => {
    const c = await client.getCredentials()
    expect(c.address.toLowerCase()).toBe(owner.address.toLowerCase())
    expect(c.keys.map((k) => k.proxy.toLowerCase())).toContain(credentials.proxy.toLowerCase())
  })

  it('portfolio, withdrawals, funding, open orders, order history', async () => {
    const p = await client.getPortfolio()
    expect(p.in_liquidation).toBe(false)
    expect(Number(p.margin.total_account_value)).toBeGreaterThan(0)
    const w = await client.getWithdrawals()
    expect(w).toMatchObject({ data: expect.any(Array), more: expect.any(Boolean) })
    const f = await client.getFunding()
    expect(f).toMatchObject({ data: expect.any(Array), more: false })
    expect(await client.getOpenOrders()).toEqual([])
    expect(Array.isArray(await client.getOrders())).toBe(true)
  })

  it('a wrong secret is 401 unauthorized, and the secret is nowhere in the error', async () => {
    const bad = createPerpsClient({
      baseUrl: mock.url,
      clock: mock.clock,
      credentials: { proxy: credentials.proxy, secret: 'not-the-secret-123' },
    })
    const e = await bad.getPortfolio().catch((x: unknown) => x)
    await bad.close()
    expect(e).toBeInstanceOf(RequestRejectedError)
    expect(e).toMatchObject({ status: 401, code: 'unauthorized' })
    expect(JSON.stringify(e) + String((e as Error).stack)).not.toContain('not-the-secret-123')
  })

  it('the spec header names work by configuration', async () => {
    const spec = createPerpsClient({
      baseUrl: mock.url,
      clock: mock.clock,
      credentials: { proxy: credentials.proxy, secret: credentials.secret },
      authHeaderNames: { proxy: 'SERVICE-PROXY', secret: 'SERVICE-SECRET' },
    })
    expect((await spec.getPortfolio()).in_liquidation).toBe(false)
    await spec.close()
  })

  it('referral applies once', async () => {
    expect(await client.applyReferral('ABC123')).toEqual({ status: 'ok' })
    const e = await client.applyReferral('XYZ789').catch((x: unknown) => x)
    expect(e).toBeInstanceOf(RequestRejectedError)
    expect((e as RequestRejectedError).status).toBe(422)
  })
})

describe('signed commands', () => {
  it('createProxy for an existing proxy is 422 proxy already exists', async () => {
    const e = await pub
      .createProxy({ proxy: credentials.proxy, expiry: mock.clock.now() + 86_400_000 }, { owner })
      .catch((x: unknown) => x)
    expect(e).toBeInstanceOf(RequestRejectedError)
    expect(e).toMatchObject({ status: 422, code: 'proxy already exists' })
  })

  it('create → open orders → modify → cancel → cancelAll', async () => {
    const inst = await btc()
    const index = Number((await pub.getIndex(inst.base_asset)).index_price)
    // Whole-number prices: integers are exempt from the 5-significant-figure rule.
    const price = (i: number) => String(Math.floor(index * (0.99 - i * 0.001)))
    const acks = await client.createOrders([
      { iid: inst.instrument_id, buy: true, p: price(0), qty: '0.01', tif: 'gtc', po: true },
      { iid: inst.instrument_id, buy: true, p: price(1), qty: '0.01', tif: 'gtc', po: true },
      { iid: inst.instrument_id, buy: true, p: price(2), qty: '0.01', tif: 'gtc', po: true },
    ])
    expect(acks, JSON.stringify(acks)).toSatisfy((xs: typeof acks) => xs.every((a) => a.status === 'ok'))
    const oids = acks.map((a) => (a.status === 'ok' ? a.oid : -1))
    const open = await client.getOpenOrders({ instrumentId: inst.instrument_id })
    expect(open.map((o) => o.oid).sort()).toEqual([...oids].sort())

    const [first, second, third] = oids as [number, number, number]
    const modified = await client.modifyOrders([
      { oid: first, p: price(3), qty: '0.02' },
      { oid: 999_999_999, p: price(3), qty: '0.01' },
    ])
    expect(modified[0]).toMatchObject({ status: 'ok', order: { oid: first, p: price(3), qty: '0.02' } })
    // Per-order rejections are data, not exceptions.
    expect(modified[1]).toMatchObject({ status: 'err', error: 'order_not_found' })

    const cancelled = await client.cancelOrders([second, 999_999_998])
    expect(cancelled[0]).toMatchObject({ status: 'ok', oid: second })
    expect(cancelled[1]).toMatchObject({ status: 'err' })

    expect(await client.cancelAll({ iid: inst.instrument_id })).toEqual({ status: 'ok' })
    expect(await client.getOpenOrders()).toEqual([])
    const history = await client.getOrders({ orderId: third })
    expect(history[0]).toMatchObject({ oid: third, status: 'cancelled' })
  })

  it('a price far outside the bounds is a per-order rejection', async () => {
    const inst = await btc()
    const acks = await client.createOrders([
      { iid: inst.instrument_id, buy: true, p: '1', qty: '0.01', tif: 'gtc' },
    ])
    expect(acks[0]).toMatchObject({ status: 'err', error: 'price_outside_bounds' })
  })

  it('bad input is rejected before any request', async () => {
    await expect(client.modifyOrders([])).rejects.toBeInstanceOf(InputValidationError)
    await expect(client.createOrders([{ iid: 1, buy: true, qty: '1e3', p: '1' }])).rejects.toBeInstanceOf(
      InputValidationError,
    )
  })
})

describe('rate limits', () => {
  it('bursting past the request budget gives 429 with Retry-After; waiting that long lets requests through', async () => {
    const small = await startMockServer({
      port: 0,
      seed: 4,
      clock: 'stepped',
      catalogue: { eventCount: 10 },
      rateLimits: { requestWeightPerMinute: 10 },
    })
    const c = createPerpsClient({
      baseUrl: small.url,
      clock: small.clock,
      readRetry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    })
    try {
      let limited: RateLimitError | undefined
      for (let i = 0; i < 20 && !limited; i++) {
        limited = await c.getFees().then(
          () => undefined,
          (e: unknown) => (e instanceof RateLimitError ? e : Promise.reject(e)),
        )
      }
      expect(limited).toBeInstanceOf(RateLimitError)
      expect(limited?.code).toBe('ip_rate_limited')
      expect(limited?.retryAfterMs).toBeGreaterThan(0)
      small.clock.advance(limited?.retryAfterMs ?? 0)
      await expect(c.getFees()).resolves.toMatchObject({ fee_schedule: expect.any(Array) })
    } finally {
      await c.close()
      await small.close()
    }
  })
})
