import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { InputValidationError } from '../../../src/errors.ts'
import {
  ASSETS_BODY,
  createHarness,
  EXCHANGE_BODY,
  FEES_BODY,
  type Harness,
  INDEX_BODY,
  INSTRUMENT,
  PUBLIC_PORTFOLIO_BODY,
  STATISTICS_BODY,
} from './harness.ts'

let h: Harness
beforeEach(() => {
  h = createHarness()
})
afterEach(async () => {
  h.agent.assertNoPendingInterceptors()
  await h.close()
})

/** Public endpoints never carry the credential headers. */
function expectPublicGet(path: string): void {
  const req = h.only()
  expect(req.method).toBe('GET')
  expect(req.path).toBe(path)
  expect(req.body).toBeUndefined()
  expect(req.headers['polymarket-proxy']).toBeUndefined()
  expect(req.headers['polymarket-secret']).toBeUndefined()
  expect(req.headers.accept).toBe('application/json')
}

describe('getIndex', () => {
  it('sends GET /v1/info/index?asset=… and parses the index', async () => {
    h.reply({ body: INDEX_BODY })
    const index = await h.client.getIndex('NVDA')
    expectPublicGet('/v1/info/index?asset=NVDA')
    expect(index).toEqual(INDEX_BODY)
    expect(h.charges).toEqual([{ endpoint: 'getIndex', requestWeight: 2, actionWeight: 0 }])
  })

  it('percent-encodes the asset', async () => {
    h.reply({ body: { ...INDEX_BODY, asset: 'S&P 500' } })
    await h.client.getIndex('S&P 500')
    expectPublicGet('/v1/info/index?asset=S%26P+500')
  })

  it('rejects an empty asset before any request', async () => {
    await expect(h.client.getIndex('  ')).rejects.toBeInstanceOf(InputValidationError)
    expect(h.requests).toHaveLength(0)
    expect(h.charges).toHaveLength(0)
  })
})

describe('getPublicPortfolio', () => {
  it('sends the address verbatim and keeps 28-digit decimals as strings', async () => {
    h.reply({ body: PUBLIC_PORTFOLIO_BODY })
    const p = await h.client.getPublicPortfolio('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expectPublicGet('/v1/info/portfolio?address=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(p.positions[0]?.unrealized_pnl).toBe('-0.0000000000000000000000000001')
    expect(h.charges[0]).toEqual({ endpoint: 'getPublicPortfolio', requestWeight: 5, actionWeight: 0 })
  })

  it('rejects a malformed address before any request', async () => {
    await expect(h.client.getPublicPortfolio('0x1234')).rejects.toThrow(/invalid getPublicPortfolio input/)
    expect(h.requests).toHaveLength(0)
  })
})

describe('getStatistics', () => {
  it('sends no query without a filter and returns every row', async () => {
    h.reply({ body: STATISTICS_BODY })
    const rows = await h.client.getStatistics()
    expectPublicGet('/v1/info/statistics')
    expect(rows.map((r) => r.instrument_id)).toEqual([1, 2])
    expect(rows[0]?.klines[0]).toEqual([1767225600000, '100.00', '105.00', '99.00', '102.00', '500.00', 42])
  })

  it('sends instrument_id and filters client-side because the live host ignores it', async () => {
    h.reply({ body: STATISTICS_BODY })
    const rows = await h.client.getStatistics({ instrumentId: 2 })
    expectPublicGet('/v1/info/statistics?instrument_id=2')
    expect(rows).toHaveLength(1)
    expect(rows[0]?.symbol).toBe('BTC-USDC')
  })

  it('rejects an instrument id above u32 before any request', async () => {
    await expect(h.client.getStatistics({ instrumentId: 4294967296 })).rejects.toBeInstanceOf(
      InputValidationError,
    )
    await expect(h.client.getStatistics({ instrumentId: -1 })).rejects.toBeInstanceOf(InputValidationError)
    await expect(h.client.getStatistics({ instrumentId: 1.5 })).rejects.toBeInstanceOf(InputValidationError)
    expect(h.requests).toHaveLength(0)
  })

  it('with newestKlines keeps and checks only the newest klines; the older ones are dropped unread', async () => {
    const k = (m: number, close: string): unknown[] => [
      1767225600000 + m * 60_000,
      '1',
      '2',
      '0.5',
      close,
      '3',
      1,
    ]
    const body = [{ ...STATISTICS_BODY[0], klines: [['not', 'a kline'], k(1, '1.5'), k(2, '1.75')] }]
    h.reply({ body })
    const rows = await h.client.getStatistics(undefined, { newestKlines: 2 })
    expect(rows[0]?.klines.map((r) => r[4])).toEqual(['1.5', '1.75'])
    h.reply({ body })
    expect((await h.client.getStatistics(undefined, { newestKlines: 0 }))[0]?.klines).toEqual([])
    // Without the option every kline is checked: the malformed old one is dropped (and reported), not the read.
    h.reply({ body })
    expect((await h.client.getStatistics())[0]?.klines.map((r) => r[4])).toEqual(['1.5', '1.75'])
    // A malformed kline among the kept ones is dropped the same way.
    h.reply({ body: [{ ...body[0], klines: [k(1, '1.5'), ['bad']] }] })
    expect((await h.client.getStatistics(undefined, { newestKlines: 5 }))[0]?.klines).toHaveLength(1)
    await expect(h.client.getStatistics(undefined, { newestKlines: -1 })).rejects.toBeInstanceOf(
      InputValidationError,
    )
  })

  it('accepts the u32 bounds', async () => {
    h.reply({ body: [] })
    await h.client.getStatistics({ instrumentId: 4294967295 })
    expectPublicGet('/v1/info/statistics?instrument_id=4294967295')
  })
})

describe('getFees / getAssets / getExchange / getTime', () => {
  it('getFees', async () => {
    h.reply({ body: FEES_BODY })
    const fees = await h.client.getFees()
    expectPublicGet('/v1/info/fees')
    expect(fees.fee_schedule[0]?.maker_fee_rate).toBe('-0.000125')
    expect(fees.fee_schedule[0]?.tiers?.[0]?.min_volume_30d).toBe('5000000')
    expect(h.charges[0]?.requestWeight).toBe(2)
  })

  it('getFees tolerates the tier-less (older) schedule', async () => {
    h.reply({ body: { fee_schedule: [{ ...FEES_BODY.fee_schedule[0], tiers: undefined }] } })
    const fees = await h.client.getFees()
    expect(fees.fee_schedule[0]?.tiers).toBeUndefined()
  })

  it('getAssets', async () => {
    h.reply({ body: ASSETS_BODY })
    const assets = await h.client.getAssets()
    expectPublicGet('/v1/info/assets')
    expect(assets).toEqual(ASSETS_BODY)
    expect(h.charges[0]).toEqual({ endpoint: 'getAssets', requestWeight: 2, actionWeight: 0 })
  })

  it('getExchange keeps unknown fields (loose objects)', async () => {
    h.reply({ body: { ...EXCHANGE_BODY, extra_flag: 1 } })
    const info = await h.client.getExchange()
    expectPublicGet('/v1/info/exchange')
    expect(info).toMatchObject({ name: 'Polymarket', version: '1', chain_id: 137, extra_flag: 1 })
    expect(h.charges[0]?.requestWeight).toBe(2)
  })

  it('getTime', async () => {
    h.reply({ body: { time: 1767225600000 } })
    expect(await h.client.getTime()).toEqual({ time: 1767225600000 })
    expectPublicGet('/v1/info/time')
    expect(h.charges[0]).toEqual({ endpoint: 'getTime', requestWeight: 1, actionWeight: 0 })
  })
})

describe('getInstruments', () => {
  it('sends all three filters', async () => {
    h.reply({ body: [INSTRUMENT] })
    const rows = await h.client.getInstruments({
      instrumentId: 1,
      instrumentType: 'perpetual',
      category: 'equity',
    })
    expectPublicGet('/v1/info/instruments?instrument_id=1&instrument_type=perpetual&category=equity')
    expect(rows).toEqual([INSTRUMENT])
    expect(h.charges[0]).toEqual({ endpoint: 'getInstruments', requestWeight: 2, actionWeight: 0 })
  })

  it('applies the filters to the answer too', async () => {
    h.reply({
      body: [INSTRUMENT, { ...INSTRUMENT, instrument_id: 2, category: 'crypto', symbol: 'BTC-USDC' }],
    })
    const rows = await h.client.getInstruments({ category: 'crypto' })
    expectPublicGet('/v1/info/instruments?category=crypto')
    expect(rows.map((r) => r.symbol)).toEqual(['BTC-USDC'])
  })

  it('rejects unknown parameters and empty filters before any request', async () => {
    await expect(h.client.getInstruments({ category: '' })).rejects.toBeInstanceOf(InputValidationError)
    await expect(
      h.client.getInstruments({ instrument: 1 } as unknown as Parameters<typeof h.client.getInstruments>[0]),
    ).rejects.toBeInstanceOf(InputValidationError)
    expect(h.requests).toHaveLength(0)
  })
})
