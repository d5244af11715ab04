import { describe, expect, it } from 'vitest'
import { Portfolio } from '../../src/perps/schemas/account.ts'
import { Instrument } from '../../src/perps/schemas/info.ts'
import { BboPush } from '../../src/perps/stream/pushSchemas.ts'
import {
  bboForStrategy,
  catalogueEventToSignal,
  indexForStrategy,
  instrumentForStrategy,
  marginForStrategy,
  parseOutcomePrices,
  positionForStrategy,
  statisticsForStrategy,
} from '../../src/strategy/snapshot.ts'

const position = (instrument_id: number, size: string) => ({
  instrument_id,
  symbol: 'BTC-USDC',
  size,
  entry_price: '100',
  leverage: 5,
  cross: true,
  initial_margin: '20',
  maintenance_margin: '10',
  position_value: '100',
  liquidation_price: '80',
  unrealized_pnl: '0',
  return_on_equity: '0',
  cumulative_funding: '0',
})

const portfolio = Portfolio.parse({
  positions: [position(1, '-0.5'), position(2, '0.000')],
  margin: {
    total_account_value: '1000',
    total_initial_margin: '40',
    total_maintenance_margin: '20',
    total_position_value: '200',
  },
  withdrawable: '900',
  in_liquidation: false,
  timestamp: 1,
})

describe('snapshot mapping', () => {
  it('maps an instrument', () => {
    const i = Instrument.parse({
      instrument_id: 3,
      instrument_type: 'perpetual',
      category: 'crypto',
      symbol: 'ETH-USDC',
      base_asset: 'ETH',
      quote_asset: 'USDC',
      funding_interval: '1h',
      quantity_decimals: 4,
      price_decimals: 2,
      price_bounds: '0.05',
      liquidation_fee: '0.01',
      max_order_count: 200,
      min_notional: '10',
      max_market_notional: '1000000',
      max_limit_notional: '1000000',
      max_leverage: 20,
      risk_tiers: [],
    })
    expect(instrumentForStrategy(i)).toEqual({
      id: 3,
      symbol: 'ETH-USDC',
      priceDecimals: 2,
      quantityDecimals: 4,
      priceBounds: '0.05',
      minNotional: '10',
      maxOrderCount: 200,
      maxLimitNotional: '1000000',
      maxMarketNotional: '1000000',
    })
  })

  it('maps index and statistics', () => {
    expect(indexForStrategy({ asset: 'BTC', index_price: '100.5', constituents: [], ts: 9 })).toEqual({
      price: '100.5',
      ts: 9,
    })
    const k = [1, '1', '2', '0.5', '1.5', '10', 3] as [number, string, string, string, string, string, number]
    expect(
      statisticsForStrategy({ instrument_id: 1, symbol: 'X', volume: '5', open_price: '1', klines: [k] }),
    ).toEqual({ volume: '5', openPrice: '1', klines: [k] })
  })

  it('maps positions (flat or absent → undefined) and margin', () => {
    expect(positionForStrategy(portfolio, 1)).toEqual({
      size: '-0.5',
      entryPrice: '100',
      liquidationPrice: '80',
    })
    expect(positionForStrategy(portfolio, 2)).toBeUndefined()
    expect(positionForStrategy(portfolio, 3)).toBeUndefined()
    expect(marginForStrategy(portfolio)).toEqual({
      accountValue: '1000',
      initialMargin: '40',
      maintenanceMargin: '20',
      marginRatio: 0.02,
      inLiquidation: false,
    })
  })

  it('maps a catalogue event, parsing outcome prices and dropping nulls', () => {
    expect(
      catalogueEventToSignal({
        id: '42',
        slug: 'fed',
        title: null,
        volume24hr: 10,
        markets: [
          { slug: 'cut', outcomePrices: '["0.62", "0.38"]', bestBid: 0.61, bestAsk: null, volume24hr: 5 },
          { question: 'q', outcomePrices: 'not json' },
        ],
      }),
    ).toEqual({
      id: '42',
      slug: 'fed',
      title: undefined,
      volume24hr: 10,
      markets: [
        {
          slug: 'cut',
          question: undefined,
          outcomePrices: [0.62, 0.38],
          bestBid: 0.61,
          bestAsk: undefined,
          lastTradePrice: undefined,
          volume24hr: 5,
        },
        {
          slug: undefined,
          question: 'q',
          outcomePrices: undefined,
          bestBid: undefined,
          bestAsk: undefined,
          lastTradePrice: undefined,
          volume24hr: undefined,
        },
      ],
    })
    expect(catalogueEventToSignal({ id: '1', markets: null }).markets).toEqual([])
  })

  it.each([
    ['["0.5","0.5"]', [0.5, 0.5]],
    ['[0.25, 0.75]', [0.25, 0.75]],
    ['["x"]', undefined],
    ['{"a":1}', undefined],
    ['', undefined],
    [null, undefined],
  ])('parseOutcomePrices(%j) = %j', (raw, out) => {
    expect(parseOutcomePrices(raw)).toEqual(out)
  })
})

describe('bboForStrategy', () => {
  const push = (bp: string, bq: string, ap: string, aq: string) => BboPush.parse({ iid: 3, bp, bq, ap, aq })

  it('maps a two-sided push to bid and ask levels, strings untouched', () => {
    expect(bboForStrategy(push('99.5', '1.250', '100.5', '3'))).toEqual({
      bid: { price: '99.5', qty: '1.250' },
      ask: { price: '100.5', qty: '3' },
    })
  })

  it('keeps a locked or crossed touch as pushed (the strategy stays behind both sides)', () => {
    expect(bboForStrategy(push('101', '1', '100', '1'))).toEqual({
      bid: { price: '101', qty: '1' },
      ask: { price: '100', qty: '1' },
    })
  })

  it('reads a side with a zero price or size as empty (one-sided or empty book)', () => {
    expect(bboForStrategy(push('0', '0', '100.5', '2'))).toEqual({
      bid: undefined,
      ask: { price: '100.5', qty: '2' },
    })
    expect(bboForStrategy(push('99', '1', '100', '0.000'))).toEqual({
      bid: { price: '99', qty: '1' },
      ask: undefined,
    })
    expect(bboForStrategy(push('0', '1', '0', '1'))).toEqual({ bid: undefined, ask: undefined })
  })

  it('ignores extra keys the venue may add', () => {
    expect(bboForStrategy(BboPush.parse({ iid: 3, bp: '1', bq: '1', ap: '2', aq: '1', ts: 5 }))).toEqual({
      bid: { price: '1', qty: '1' },
      ask: { price: '2', qty: '1' },
    })
  })
})
