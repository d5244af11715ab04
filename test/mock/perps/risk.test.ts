import { describe, expect, it } from 'vitest'
import { addDecimal } from '../../../src/decimal.ts'
import { createPerpsExchange } from '../../../src/mock/perps/exchange.ts'
import { createPerpsHandler } from '../../../src/mock/perps/handler.ts'
import { DEFAULT_INSTRUMENTS, defineInstrument } from '../../../src/mock/perps/instruments.ts'
import { LIQUIDATION_SEED } from '../../../src/mock/perps/market/scenarios.ts'
import type { FundingPage, Portfolio, WithdrawalsPage } from '../../../src/perps/schemas/account.ts'
import { buildCreateOrders } from '../../../src/perps/signing/ops.ts'
import { call, manualClock, OWNER, PROXY, type Rig, rig, START } from './helpers.ts'

const portfolio = async (r: Rig): Promise<Portfolio> =>
  (await r.call('GET', '/v1/account/portfolio')).body as Portfolio

describe('margin math', () => {
  it('computes entry, margins, PnL, ROE and an exact liquidation price that the engine honours', async () => {
    const r = await rig()
    r.ex.setRegime('ETH', 'frozen')
    r.ex.setIndexPrice('ETH', '3000')
    await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: 2, buy: false, qty: '10', tif: 'ioc' }] }),
    )
    const p = await portfolio(r)
    // Sold at the bid 2999.7; fee 0.0004 × 29,997 = 11.9988; the calm seed withdrew 100 + 1 fee.
    expect(p.positions).toEqual([
      {
        instrument_id: 2,
        symbol: 'ETH-USDC',
        size: '-10',
        entry_price: '2999.7',
        leverage: 10,
        cross: true,
        initial_margin: '3000',
        maintenance_margin: '1500',
        position_value: '30000',
        // (P − m)·s with s = −10: E0 = 99,887.0012 − 3; P = (E0 + 30,000) / 10.5 = 12,369.90487…
        liquidation_price: '12369.9',
        unrealized_pnl: '-3',
        return_on_equity: '-0.001',
        cumulative_funding: '0',
      },
    ])
    expect(p.margin).toEqual({
      total_account_value: '99884.0012',
      available_order_margin: '96884.0012',
      total_initial_margin: '3000',
      total_maintenance_margin: '1500',
      total_position_value: '30000',
    })
    expect(p.withdrawable).toBe('96884.0012')
    expect(p.in_liquidation).toBe(false)
    r.ex.setIndexPrice('ETH', '12369.8')
    expect((await portfolio(r)).in_liquidation).toBe(false)
    r.ex.setIndexPrice('ETH', '12370')
    const liq = await portfolio(r)
    expect(liq.in_liquidation).toBe(true)
    // Equity = 99,887.0012 − 10 × (12,370 − 2,999.7) = 6,184.0012 < MM = 6,185.
    expect(liq.margin).toMatchObject({ total_account_value: '6184.0012', total_maintenance_margin: '6185' })
  })
})

describe('funding', () => {
  it('charges every funding interval: longs pay and shorts receive a positive rate', async () => {
    const minuteFunding = DEFAULT_INSTRUMENTS.map((i) => defineInstrument({ ...i, fundingInterval: '1m' }))
    const r = await rig({ instruments: minuteFunding })
    for (const a of ['ETH', 'SOL']) r.ex.setRegime(a, 'frozen')
    r.ex.setIndexPrice('ETH', '3000')
    r.ex.setIndexPrice('SOL', '150')
    r.clock.advance(60_000)
    expect(((await r.call('GET', '/v1/account/funding')).body as FundingPage).data).toEqual([])
    await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({
        orders: [
          { iid: 2, buy: true, qty: '1', tif: 'ioc' },
          { iid: 3, buy: false, qty: '10', tif: 'ioc' },
        ],
      }),
    )
    r.clock.advance(60_000)
    const page = (await r.call('GET', '/v1/account/funding')).body as FundingPage
    // Frozen markets have no premium: the rate is the interest leg, 0.0000125 per interval.
    expect(page).toEqual({
      // Newest first; the rows of one settlement come in reverse settlement (id) order.
      data: [
        {
          id: 2,
          instrument_id: 3,
          size: '-10',
          funding_rate: '0.0000125',
          funding_asset: 'pUSD',
          funding: '-0.01875',
          timestamp: START + 120_000,
        },
        {
          id: 1,
          instrument_id: 2,
          size: '1',
          funding_rate: '0.0000125',
          funding_asset: 'pUSD',
          funding: '0.0375',
          timestamp: START + 120_000,
        },
      ],
      more: false,
    })
    const positions = (await portfolio(r)).positions
    expect(positions.map((p) => p.cumulative_funding)).toEqual(['0.0375', '-0.01875'])
    const eth = (await r.call('GET', '/v1/account/funding', { query: { instrument_id: '2' } }))
      .body as FundingPage
    expect(eth.data.map((d) => d.instrument_id)).toEqual([2])
  })

  it('pages history: the newest 100 rows in the window first, `more` when older rows did not fit', async () => {
    const minuteFunding = DEFAULT_INSTRUMENTS.map((i) => defineInstrument({ ...i, fundingInterval: '1m' }))
    const r = await rig({ instruments: minuteFunding })
    await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: 2, buy: true, qty: '1', tif: 'ioc' }] }),
    )
    r.clock.advance(105 * 60_000)
    const first = (await r.call('GET', '/v1/account/funding')).body as FundingPage
    expect(first.data).toHaveLength(100)
    expect(first.more).toBe(true)
    const ts = first.data.map((d) => d.timestamp)
    expect(ts[0]).toBe(START + 105 * 60_000)
    expect([...ts].sort((a, b) => b - a)).toEqual(ts)
    const oldest = ts[ts.length - 1] as number
    const second = (
      await r.call('GET', '/v1/account/funding', { query: { end_timestamp: String(oldest - 1) } })
    ).body as FundingPage
    expect(second).toMatchObject({ more: false })
    expect(second.data.map((d) => d.timestamp)).toEqual([
      START + 5 * 60_000,
      START + 4 * 60_000,
      START + 3 * 60_000,
      START + 2 * 60_000,
      START + 60_000,
    ])
    const window = (
      await r.call('GET', '/v1/account/funding', {
        query: { start_timestamp: String(START + 10 * 60_000), end_timestamp: String(START + 12 * 60_000) },
      })
    ).body as FundingPage
    expect(window.data.map((d) => d.timestamp)).toEqual([
      START + 12 * 60_000,
      START + 11 * 60_000,
      START + 10 * 60_000,
    ])
    expect((await r.call('GET', '/v1/account/funding', { query: { start_timestamp: 'x' } })).status).toBe(400)
  })
})

describe('scenarios', () => {
  it('liquidation: the seeded 20× long is driven into in_liquidation within minutes, then cut down', async () => {
    const r = await rig({ scenario: 'liquidation' })
    const start = await portfolio(r)
    expect(start.in_liquidation).toBe(false)
    expect(start.positions).toEqual([
      expect.objectContaining({ instrument_id: 1, leverage: LIQUIDATION_SEED.leverage }),
    ])
    const size0 = Number(start.positions[0]?.size)
    let liquidatedAt: number | undefined
    let regimes = new Set<string>()
    for (let s = 0; s < 10 * 60 && liquidatedAt === undefined; s += 5) {
      r.clock.advance(5_000)
      regimes.add(r.ex.snapshot().markets[0]?.regime ?? '')
      if ((await portfolio(r)).in_liquidation) liquidatedAt = r.clock.now()
    }
    expect(regimes.has('crash')).toBe(true)
    expect(liquidatedAt).toBeDefined()
    expect((liquidatedAt as number) - START).toBeLessThanOrEqual(6 * 60_000)
    r.clock.advance(30_000)
    const later = await portfolio(r)
    const size1 = Number(later.positions[0]?.size ?? 0)
    expect(size1).toBeLessThan(size0)
    regimes = new Set()
  })

  it('liquidation also seeds a pre-registered account and an account switched into the scenario', async () => {
    const clock = manualClock()
    const ex = createPerpsExchange({
      clock,
      historyMinutes: 0,
      scenario: 'liquidation',
      accounts: [{ owner: OWNER, proxies: [{ proxy: PROXY, secret: 's3cret', expiry: START + 86_400_000 }] }],
    })
    const handler = createPerpsHandler(ex)
    const read = async () =>
      (
        await call(handler, 'GET', '/v1/account/portfolio', {
          headers: { 'polymarket-proxy': PROXY, 'polymarket-secret': 's3cret' },
        })
      ).body as Portfolio
    expect((await read()).positions).toHaveLength(1)
    let hit = false
    for (let i = 0; i < 72 && !hit; i++) {
      clock.advance(5_000)
      hit = (await read()).in_liquidation
    }
    expect(hit).toBe(true)

    const calm = createPerpsExchange({ clock, historyMinutes: 0, accounts: [{ owner: OWNER }] })
    expect(calm.accountOf(OWNER)?.portfolio.positions).toEqual([])
    calm.setScenario('liquidation')
    expect(calm.accountOf(OWNER)?.portfolio.positions).toHaveLength(1)
    expect(calm.accountOf(OWNER)?.collateral).toBe(LIQUIDATION_SEED.collateral)
    expect(() => calm.setScenario('nope')).toThrow(/unknown scenario/)
  })

  it('withdrawal-failure: a seeded withdrawal goes pending → mined → failed and is refunded', async () => {
    const r = await rig({ scenario: 'withdrawal-failure' })
    const get = async (query: Record<string, string> = {}) =>
      ((await r.call('GET', '/v1/account/withdrawals', { query })).body as WithdrawalsPage).data
    expect(await get()).toEqual([
      {
        withdraw_id: expect.any(Number),
        asset: 'pUSD',
        amount: '250000000',
        to: OWNER,
        fee: '1',
        status: 'pending',
        hash: '0x',
        confirmations: 0,
        required_confirmations: 20,
        created_timestamp: START,
      },
    ])
    expect(r.ex.accountOf(OWNER)?.collateral).toBe('99749')
    r.clock.advance(8_000)
    const mined = (await get())[0]
    expect(mined).toMatchObject({
      status: 'pending',
      confirmations: 1,
      hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
    r.clock.advance(5_000)
    const failed = (await get())[0]
    expect(failed).toMatchObject({ status: 'failed', confirmations: 3, hash: mined?.hash })
    expect(failed?.confirmed_timestamp).toBeUndefined()
    expect(r.ex.accountOf(OWNER)?.collateral).toBe('100000')
    expect(await get({ withdrawal_status: 'failed' })).toHaveLength(1)
    expect(await get({ withdrawal_status: 'confirmed' })).toHaveLength(0)
    expect(await get({ hash: mined?.hash as string })).toHaveLength(1)
    expect(
      (await r.call('GET', '/v1/account/withdrawals', { query: { withdrawal_status: 'lost' } })).status,
    ).toBe(400)
  })

  it('calm: the seeded withdrawal confirms with a confirmed_timestamp; removal is scriptable', async () => {
    const r = await rig()
    r.clock.advance(60_000)
    const id = r.ex.requestWithdrawal(OWNER, { amount: '10', outcome: 'remove' })
    r.clock.advance(60_000)
    const rows = ((await r.call('GET', '/v1/account/withdrawals')).body as WithdrawalsPage).data
    expect(rows.map((w) => [w.withdraw_id, w.status])).toEqual([
      [id, 'removed'],
      [expect.any(Number), 'confirmed'],
    ])
    expect(rows[1]).toMatchObject({ confirmations: 20, confirmed_timestamp: START + 6_000 + 40_000 })
    expect(() => r.ex.requestWithdrawal(OWNER, { amount: '1000000' })).toThrow(/insufficient balance/)
  })

  it('trending: instruments drift in their regime; funding follows the basis', async () => {
    const clock = manualClock()
    const ex = createPerpsExchange({ clock, scenario: 'trending', historyMinutes: 0 })
    const regimes = ex.snapshot().markets.map((m) => m.regime)
    expect(regimes.every((x) => x === 'trending-up' || x === 'trending-down')).toBe(true)
    clock.advance(2 * 3_600_000)
    const after = ex.snapshot().markets
    for (const m of after) {
      const rate = Number(m.funding_rate)
      if (m.regime === 'trending-up') expect(rate).toBeGreaterThan(0)
    }
  })
})

describe('deposit', () => {
  it('credits collateral as a deposit landing; an unknown account or a non-positive amount is refused', async () => {
    const r = await rig()
    const before = r.ex.accountOf(OWNER)?.collateral ?? '0'
    r.ex.deposit(OWNER, '250.5')
    const after = addDecimal(before, '250.5')
    expect(r.ex.accountOf(OWNER)?.collateral).toBe(after)
    expect((await portfolio(r)).margin.total_account_value).toBe(after)
    expect(() => r.ex.deposit(OTHER_UNKNOWN, '1')).toThrow(/unknown account/)
    for (const bad of ['0', '-5', 'lots']) expect(() => r.ex.deposit(OWNER, bad)).toThrow(/positive decimal/)
  })
})

const OTHER_UNKNOWN = '0x000000000000000000000000000000000000dEaD'
