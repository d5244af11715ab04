import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  CreateProxyResult,
  Credentials,
  FundingPage,
  Portfolio,
  WithdrawalsPage,
} from '../../../src/perps/schemas/account.ts'
import { OkAck, PerpsErrorBody } from '../../../src/perps/schemas/common.ts'
import {
  CollateralAssets,
  ExchangeInfo,
  FeeSchedule,
  Index,
  Instruments,
  PublicPortfolio,
  ServerTime,
  Statistics,
} from '../../../src/perps/schemas/info.ts'
import {
  CancelResults,
  CreateOrderAcks,
  ModifyResults,
  OpenOrders,
} from '../../../src/perps/schemas/orders.ts'
import {
  buildCancelAll,
  buildCancelOrders,
  buildCreateOrders,
  buildModifyOrders,
} from '../../../src/perps/signing/ops.ts'
import { OWNER, rig } from './helpers.ts'

/** Required keys per the real venue's OpenAPI (notes/perps-openapi-shapes.md); nested with `a[]` / `a.`. */
const REQUIRED: Record<string, readonly string[]> = {
  instrument: [
    'instrument_id',
    'instrument_type',
    'category',
    'isolated_only',
    'symbol',
    'base_asset',
    'quote_asset',
    'funding_interval',
    'quantity_decimals',
    'price_decimals',
    'price_bounds',
    'liquidation_fee',
    'max_order_count',
    'min_notional',
    'max_market_notional',
    'max_limit_notional',
    'max_leverage',
    'risk_tiers',
  ],
  riskTier: ['lower_bound', 'max_leverage'],
  index: ['asset', 'index_price', 'constituents', 'ts'],
  constituent: ['source', 'symbol', 'weight', 'price'],
  statistic: ['instrument_id', 'symbol', 'volume', 'open_price', 'klines'],
  fee: ['instrument_type', 'category', 'taker_fee_rate', 'maker_fee_rate', 'tiers'],
  feeTier: ['min_volume_30d', 'taker_fee_rate', 'maker_fee_rate'],
  asset: ['asset', 'address', 'decimals', 'collateral_ratio', 'withdrawal_fee'],
  exchange: ['name', 'version', 'chain_id', 'contract'],
  publicPortfolio: ['positions', 'equity', 'timestamp'],
  publicPosition: ['instrument_id', 'symbol', 'size', 'entry_price', 'unrealized_pnl', 'return_on_equity'],
  portfolio: ['positions', 'margin', 'withdrawable', 'in_liquidation', 'timestamp'],
  position: [
    'instrument_id',
    'symbol',
    'size',
    'entry_price',
    'leverage',
    'cross',
    'initial_margin',
    'maintenance_margin',
    'position_value',
    'liquidation_price',
    'unrealized_pnl',
    'return_on_equity',
    'cumulative_funding',
  ],
  margin: ['total_account_value', 'total_initial_margin', 'total_maintenance_margin', 'total_position_value'],
  credentials: ['address', 'keys'],
  key: ['proxy', 'expiry'],
  withdrawal: [
    'withdraw_id',
    'asset',
    'amount',
    'to',
    'fee',
    'status',
    'hash',
    'confirmations',
    'required_confirmations',
    'created_timestamp',
  ],
  funding: ['instrument_id', 'size', 'funding_rate', 'funding_asset', 'funding', 'timestamp'],
  orderData: [
    'order_id',
    'instrument_id',
    'buy',
    'price',
    'quantity',
    'tif',
    'post_only',
    'ro',
    'status',
    'resting_quantity',
    'filled_quantity',
    'created_timestamp',
    'updated_timestamp',
  ],
  order: ['oid', 'iid', 'buy', 'p', 'qty', 'tif', 'po', 'ro', 'status', 'rest', 'fill', 'cts', 'uts'],
  referral: [
    'code',
    'children_count',
    'referrals_left',
    'fee_share_rate',
    'active_children_count',
    'children_volume',
    'children_fees',
  ],
  error: ['status', 'error'],
}

function has(obj: unknown, kind: keyof typeof REQUIRED): void {
  expect(obj, kind).toBeTypeOf('object')
  const keys = Object.keys(obj as object)
  for (const k of REQUIRED[kind] ?? []) expect(keys, `${kind}.${k}`).toContain(k)
}

function parses<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body)
  if (!r.success) throw new Error(`schema mismatch: ${JSON.stringify(r.error.issues.slice(0, 3))}`)
  return r.data
}

describe('fidelity: every response parses with src/perps/schemas and carries the venue’s required fields', () => {
  it('public information', async () => {
    const r = await rig({ scenario: 'liquidation' })
    r.clock.advance(61_000)
    const instruments = (await r.call('GET', '/v1/info/instruments')).body as Record<string, unknown>[]
    parses(Instruments, instruments)
    for (const i of instruments) {
      has(i, 'instrument')
      for (const t of i.risk_tiers as unknown[]) has(t, 'riskTier')
    }
    const index = (await r.call('GET', '/v1/info/index', { query: { asset: 'ETH' } })).body as {
      constituents: unknown[]
    }
    parses(Index, index)
    has(index, 'index')
    for (const c of index.constituents) has(c, 'constituent')
    const stats = (await r.call('GET', '/v1/info/statistics')).body as unknown[]
    parses(Statistics, stats)
    for (const s of stats) has(s, 'statistic')
    const fees = (await r.call('GET', '/v1/info/fees')).body as { fee_schedule: { tiers: unknown[] }[] }
    parses(FeeSchedule, fees)
    for (const f of fees.fee_schedule) {
      has(f, 'fee')
      for (const t of f.tiers) has(t, 'feeTier')
    }
    const assets = (await r.call('GET', '/v1/info/assets')).body as unknown[]
    parses(CollateralAssets, assets)
    for (const a of assets) has(a, 'asset')
    expect(assets).toEqual([
      {
        asset: 'pUSD',
        address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        decimals: 6,
        collateral_ratio: '1',
        withdrawal_fee: '1',
      },
    ])
    const exchange = (await r.call('GET', '/v1/info/exchange')).body
    parses(ExchangeInfo, exchange)
    has(exchange, 'exchange')
    expect(exchange).toMatchObject({ name: 'Polymarket', version: '1', chain_id: 137 })
    parses(ServerTime, (await r.call('GET', '/v1/info/time')).body)
    expect((await r.call('GET', '/v1/info/time')).body).toEqual({ time: r.clock.now() })
    const pub = (await r.call('GET', '/v1/info/portfolio', { query: { address: OWNER } })).body as {
      positions: unknown[]
    }
    parses(PublicPortfolio, pub)
    has(pub, 'publicPortfolio')
    expect(pub.positions.length).toBeGreaterThan(0)
    for (const p of pub.positions) has(p, 'publicPosition')
    for (const [path, query] of [
      ['/v1/info/index', {}],
      ['/v1/info/index', { asset: 'DOGE' }],
      ['/v1/info/portfolio', { address: 'nope' }],
      ['/v1/info/instruments', { category: 'fx' }],
      ['/v1/info/statistics', { instrument_id: '-1' }],
    ] as const) {
      const res = await r.call('GET', path, { query })
      expect(res.status).toBe(400)
      parses(PerpsErrorBody, res.body)
      has(res.body, 'error')
    }
  })

  it('account reads and command answers', async () => {
    const r = await rig({ scenario: 'withdrawal-failure' })
    const created = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({
        orders: [
          { iid: 2, buy: true, qty: '1', tif: 'ioc' },
          { iid: 3, buy: true, p: '100', qty: '1', tif: 'gtc', coid: 'ab'.repeat(16) },
          { iid: 3, buy: false, p: '190', qty: '1', tif: 'gtc' },
        ],
      }),
    )
    const acks = parses(CreateOrderAcks, created.body)
    expect(acks.map((a) => a.status)).toEqual(['ok', 'err', 'err'])
    const rest = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({ orders: [{ iid: 3, buy: true, p: '145', qty: '1', tif: 'gtc' }] }),
    )
    const oid = (parses(CreateOrderAcks, rest.body)[0] as { oid: number }).oid
    const modified = parses(
      ModifyResults,
      (
        await r.send(
          'PATCH',
          '/v1/trade/orders',
          buildModifyOrders({
            orders: [
              { oid, p: '146', qty: '2' },
              { oid: 5, p: '1', qty: '1' },
            ],
          }),
        )
      ).body,
    )
    const ok = modified[0] as { order: unknown }
    has(ok.order, 'order')
    r.clock.advance(3_600_000)
    const open = (await r.call('GET', '/v1/account/open-orders')).body as unknown[]
    parses(OpenOrders, open)
    for (const o of open) has(o, 'orderData')
    const history = (await r.call('GET', '/v1/account/orders')).body as unknown[]
    parses(OpenOrders, history)
    for (const o of history) has(o, 'orderData')
    const portfolio = (await r.call('GET', '/v1/account/portfolio')).body as {
      positions: unknown[]
      margin: unknown
    }
    parses(Portfolio, portfolio)
    has(portfolio, 'portfolio')
    has(portfolio.margin, 'margin')
    for (const p of portfolio.positions) has(p, 'position')
    const creds = (await r.call('GET', '/v1/account/credentials')).body as { keys: unknown[] }
    parses(Credentials, creds)
    has(creds, 'credentials')
    for (const k of creds.keys) has(k, 'key')
    const w = (await r.call('GET', '/v1/account/withdrawals')).body as { data: unknown[] }
    parses(WithdrawalsPage, w)
    expect(w.data.length).toBeGreaterThan(0)
    for (const x of w.data) has(x, 'withdrawal')
    const f = (await r.call('GET', '/v1/account/funding')).body as { data: unknown[] }
    parses(FundingPage, f)
    expect(f.data.length).toBeGreaterThan(0)
    for (const x of f.data) has(x, 'funding')
    const ref = (await r.call('GET', '/v1/account/referral')).body
    has(ref, 'referral')
    parses(OkAck, (await r.call('POST', '/v1/account/referral', { body: { code: 'FRIEND' } })).body)
    parses(
      CancelResults,
      (await r.send('DELETE', '/v1/trade/orders', buildCancelOrders({ oids: [oid, 3] }))).body,
    )
    parses(OkAck, (await r.send('DELETE', '/v1/trade/orders/all', buildCancelAll())).body)
    const again = await r.owner.signCreateProxy({
      proxy: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      expiry: r.clock.now() + 60_000,
    })
    parses(CreateProxyResult, (await r.call('POST', '/v1/account/proxy', { body: again })).body)
    for (const res of [
      await r.call('GET', '/v1/account/portfolio', { headers: { 'POLYMARKET-SECRET': 'x' } }),
      await r.call('POST', '/v1/account/referral', { body: { code: 'AGAIN' } }),
      await r.call('GET', '/v1/nowhere'),
    ]) {
      parses(PerpsErrorBody, res.body)
      has(res.body, 'error')
    }
  })
})
