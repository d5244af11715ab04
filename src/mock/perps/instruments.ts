/**
 * The mock's instrument catalogue: the default set, a generator for large sets (benchmarks use 100
 * and 1,000), and the wire forms of instruments, the fee schedule and the collateral assets.
 */
import { isDecimalString } from '../../decimal.ts'
import { InputValidationError } from '../../errors.ts'
import type { CollateralAsset, FeeSchedule, Instrument } from '../../perps/schemas/info.ts'
import { fundingIntervalMs } from '../../perps/schemas/info.ts'
import { seededRandom } from '../../random.ts'

export type InstrumentCategory = 'equity' | 'commodity' | 'index' | 'crypto'
export const INSTRUMENT_CATEGORIES: readonly InstrumentCategory[] = ['crypto', 'equity', 'commodity', 'index']

export interface RiskTierSpec {
  /** Position notional in USD from which this tier applies (decision: the spec's "size" read as USD notional). */
  lowerBound: string
  maxLeverage: number
}

export interface IndexSourceSpec {
  source: string
  symbol: string
  /** Decimal weight; the weights of one instrument sum to 1. */
  weight: string
}

export interface InstrumentSpec {
  id: number
  symbol: string
  baseAsset: string
  quoteAsset: string
  category: InstrumentCategory
  priceDecimals: number
  quantityDecimals: number
  /** Starting price of the simulation (before the pre-generated history). */
  initialPrice: string
  /** Allowed order-price deviation from the mark, as a fraction. */
  priceBounds: string
  liquidationFee: string
  maxOrderCount: number
  minNotional: string
  maxMarketNotional: string
  maxLimitNotional: string
  maxLeverage: number
  riskTiers: readonly RiskTierSpec[]
  /** Duration string, e.g. "1h". */
  fundingInterval: string
  isolatedOnly: boolean
  /** Calm-regime volatility of the log price per sqrt(second). */
  volatility: number
  /** Mean traded notional per second in USD (drives kline volume and fills of resting orders). */
  activityUsdPerSecond: number
  indexSources: readonly IndexSourceSpec[]
}

/** The required part of an instrument; everything else has a default. */
export type InstrumentInput = Pick<
  InstrumentSpec,
  'id' | 'symbol' | 'baseAsset' | 'category' | 'initialPrice' | 'priceDecimals' | 'quantityDecimals'
> &
  Partial<Omit<InstrumentSpec, 'id' | 'symbol' | 'baseAsset' | 'category' | 'initialPrice'>>

const VOLATILITY: Record<InstrumentCategory, number> = {
  crypto: 0.0002,
  equity: 0.0001,
  commodity: 0.00006,
  index: 0.00006,
}

function defaultSources(base: string, category: InstrumentCategory): IndexSourceSpec[] {
  const sym = `${base}/USD`
  switch (category) {
    case 'crypto':
      return [
        { source: 'chainlink', symbol: sym, weight: '0.5' },
        { source: 'pyth', symbol: sym, weight: '0.3' },
        { source: 'redstone', symbol: sym, weight: '0.2' },
      ]
    case 'equity':
      return [
        { source: 'chainlink', symbol: sym, weight: '0.6' },
        { source: 'pyth', symbol: sym, weight: '0.4' },
      ]
    case 'commodity':
      return [
        { source: 'chainlink', symbol: sym, weight: '0.5' },
        { source: 'pyth', symbol: sym, weight: '0.5' },
      ]
    case 'index':
      return [
        { source: 'pyth', symbol: sym, weight: '0.7' },
        { source: 'chainlink', symbol: sym, weight: '0.3' },
      ]
  }
}

function defaultTiers(maxLeverage: number): RiskTierSpec[] {
  const tiers: RiskTierSpec[] = [{ lowerBound: '0', maxLeverage }]
  if (maxLeverage > 10)
    tiers.push({ lowerBound: '5000000', maxLeverage: Math.max(10, Math.floor(maxLeverage / 2)) })
  tiers.push({ lowerBound: '20000000', maxLeverage: Math.min(maxLeverage, 5) })
  return tiers
}

/**
 * Fills defaults and validates one instrument.
 * @throws {@link InputValidationError} listing every invalid field.
 */
export function defineInstrument(input: InstrumentInput): InstrumentSpec {
  const maxLeverage = input.maxLeverage ?? (input.category === 'crypto' ? 20 : 10)
  const spec: InstrumentSpec = {
    id: input.id,
    symbol: input.symbol,
    baseAsset: input.baseAsset,
    quoteAsset: input.quoteAsset ?? 'USDC',
    category: input.category,
    priceDecimals: input.priceDecimals,
    quantityDecimals: input.quantityDecimals,
    initialPrice: input.initialPrice,
    priceBounds: input.priceBounds ?? '0.05',
    liquidationFee: input.liquidationFee ?? '0.025',
    maxOrderCount: input.maxOrderCount ?? 200,
    minNotional: input.minNotional ?? '10',
    maxMarketNotional: input.maxMarketNotional ?? '1000000',
    maxLimitNotional: input.maxLimitNotional ?? '10000000',
    maxLeverage,
    riskTiers: input.riskTiers ?? defaultTiers(maxLeverage),
    fundingInterval: input.fundingInterval ?? '1h',
    isolatedOnly: input.isolatedOnly ?? false,
    volatility: input.volatility ?? VOLATILITY[input.category],
    activityUsdPerSecond: input.activityUsdPerSecond ?? 20_000,
    indexSources: input.indexSources ?? defaultSources(input.baseAsset, input.category),
  }
  const problems: string[] = []
  const at = `instrument ${spec.id}`
  if (!Number.isInteger(spec.id) || spec.id < 0 || spec.id > 4_294_967_295)
    problems.push(`${at}: id out of range`)
  for (const [k, v] of [
    ['initialPrice', spec.initialPrice],
    ['priceBounds', spec.priceBounds],
    ['liquidationFee', spec.liquidationFee],
    ['minNotional', spec.minNotional],
    ['maxMarketNotional', spec.maxMarketNotional],
    ['maxLimitNotional', spec.maxLimitNotional],
  ] as const) {
    if (!isDecimalString(v) || v.startsWith('-'))
      problems.push(`${at}: ${k} must be a non-negative decimal string`)
  }
  if (Number(spec.initialPrice) <= 0) problems.push(`${at}: initialPrice must be positive`)
  for (const [k, v] of [
    ['priceDecimals', spec.priceDecimals],
    ['quantityDecimals', spec.quantityDecimals],
  ] as const) {
    if (!Number.isInteger(v) || v < 0 || v > 10) problems.push(`${at}: ${k} must be an integer in 0..10`)
  }
  if (!Number.isInteger(spec.maxLeverage) || spec.maxLeverage < 1)
    problems.push(`${at}: maxLeverage must be >= 1`)
  if (fundingIntervalMs(spec.fundingInterval) === undefined) problems.push(`${at}: bad fundingInterval`)
  if (spec.riskTiers.length === 0 || spec.riskTiers[0]?.lowerBound !== '0')
    problems.push(`${at}: riskTiers must start at lowerBound "0"`)
  const weightSum = spec.indexSources.reduce((s, x) => s + Number(x.weight), 0)
  if (spec.indexSources.length === 0 || Math.abs(weightSum - 1) > 1e-9)
    problems.push(`${at}: index source weights must sum to 1`)
  if (problems.length > 0)
    throw new InputValidationError('invalid instrument definition', { details: problems })
  return spec
}

/** A handful of instruments, one or more per category. */
export const DEFAULT_INSTRUMENTS: readonly InstrumentSpec[] = Object.freeze([
  defineInstrument({
    id: 1,
    symbol: 'BTC-USDC',
    baseAsset: 'BTC',
    category: 'crypto',
    initialPrice: '65000',
    priceDecimals: 1,
    quantityDecimals: 5,
    maxLeverage: 50,
    activityUsdPerSecond: 60_000,
  }),
  defineInstrument({
    id: 2,
    symbol: 'ETH-USDC',
    baseAsset: 'ETH',
    category: 'crypto',
    initialPrice: '3200',
    priceDecimals: 2,
    quantityDecimals: 4,
    maxLeverage: 50,
    activityUsdPerSecond: 40_000,
  }),
  defineInstrument({
    id: 3,
    symbol: 'SOL-USDC',
    baseAsset: 'SOL',
    category: 'crypto',
    initialPrice: '150',
    priceDecimals: 3,
    quantityDecimals: 2,
    maxLeverage: 20,
  }),
  defineInstrument({
    id: 4,
    symbol: 'NVDA-USDC',
    baseAsset: 'NVDA',
    category: 'equity',
    initialPrice: '160',
    priceDecimals: 2,
    quantityDecimals: 2,
    maxLeverage: 10,
  }),
  defineInstrument({
    id: 5,
    symbol: 'GOLD-USDC',
    baseAsset: 'GOLD',
    category: 'commodity',
    initialPrice: '2400',
    priceDecimals: 2,
    quantityDecimals: 3,
    maxLeverage: 20,
  }),
  defineInstrument({
    id: 6,
    symbol: 'SPX-USDC',
    baseAsset: 'SPX',
    category: 'index',
    initialPrice: '5800',
    priceDecimals: 1,
    quantityDecimals: 3,
    maxLeverage: 20,
  }),
])

/**
 * `count` instruments: the defaults first, then synthetic `SYNn-USDC` instruments with seeded prices
 * spread log-uniformly over 0.5..5000 and decimals that fit the price (5 significant figures).
 */
export function generateInstruments(count: number, seed = 1): InstrumentSpec[] {
  if (!Number.isInteger(count) || count < 1) throw new InputValidationError('instrument count must be >= 1')
  const out = DEFAULT_INSTRUMENTS.slice(0, count)
  const rng = seededRandom(seed ^ 0x5eed1)
  for (let i = out.length; i < count; i++) {
    const price = 0.5 * 10 ** (rng.next() * 4)
    const magnitude = Math.floor(Math.log10(price))
    const pd = Math.min(8, Math.max(0, 4 - magnitude))
    const qd = Math.min(8, Math.max(0, magnitude + 1))
    const category = INSTRUMENT_CATEGORIES[i % INSTRUMENT_CATEGORIES.length] as InstrumentCategory
    const n = i + 1
    out.push(
      defineInstrument({
        id: n,
        symbol: `SYN${n}-USDC`,
        baseAsset: `SYN${n}`,
        category,
        initialPrice: price.toFixed(pd),
        priceDecimals: pd,
        quantityDecimals: qd,
        activityUsdPerSecond: 2_000 + Math.round(rng.next() * 18_000),
      }),
    )
  }
  return out
}

/** The `GET /v1/info/instruments` row (OpenAPI B shape plus the observed `close_only`). */
export function instrumentToWire(spec: InstrumentSpec): Instrument {
  return {
    instrument_id: spec.id,
    instrument_type: 'perpetual',
    category: spec.category,
    isolated_only: spec.isolatedOnly,
    symbol: spec.symbol,
    base_asset: spec.baseAsset,
    quote_asset: spec.quoteAsset,
    funding_interval: spec.fundingInterval,
    quantity_decimals: spec.quantityDecimals,
    price_decimals: spec.priceDecimals,
    price_bounds: spec.priceBounds,
    liquidation_fee: spec.liquidationFee,
    max_order_count: spec.maxOrderCount,
    min_notional: spec.minNotional,
    max_market_notional: spec.maxMarketNotional,
    max_limit_notional: spec.maxLimitNotional,
    max_leverage: spec.maxLeverage,
    risk_tiers: spec.riskTiers.map((t) => ({ lower_bound: t.lowerBound, max_leverage: t.maxLeverage })),
    close_only: false,
  }
}

export interface FeeTierSpec {
  minVolume30d: string
  takerFeeRate: string
  makerFeeRate: string
}

/** Volume tiers (USD, trailing volume): maker goes to zero at $500M and a rebate at the top. */
export const DEFAULT_FEE_TIERS: readonly FeeTierSpec[] = Object.freeze([
  { minVolume30d: '0', takerFeeRate: '0.0004', makerFeeRate: '0.000125' },
  { minVolume30d: '5000000', takerFeeRate: '0.00035', makerFeeRate: '0.0001' },
  { minVolume30d: '25000000', takerFeeRate: '0.0003', makerFeeRate: '0.00005' },
  { minVolume30d: '100000000', takerFeeRate: '0.00025', makerFeeRate: '0.00002' },
  { minVolume30d: '500000000', takerFeeRate: '0.00022', makerFeeRate: '0' },
  { minVolume30d: '2000000000', takerFeeRate: '0.0002', makerFeeRate: '-0.00005' },
])

/** `GET /v1/info/fees`: one entry per category present, with the $0-tier defaults and the tiers. */
export function feeScheduleToWire(
  instruments: readonly InstrumentSpec[],
  tiers: readonly FeeTierSpec[],
): FeeSchedule {
  const categories = INSTRUMENT_CATEGORIES.filter((c) => instruments.some((i) => i.category === c))
  const base = tiers[0] ?? { minVolume30d: '0', takerFeeRate: '0', makerFeeRate: '0' }
  return {
    fee_schedule: categories.map((category) => ({
      instrument_type: 'perpetual',
      category,
      taker_fee_rate: base.takerFeeRate,
      maker_fee_rate: base.makerFeeRate,
      tiers: tiers.map((t) => ({
        min_volume_30d: t.minVolume30d,
        taker_fee_rate: t.takerFeeRate,
        maker_fee_rate: t.makerFeeRate,
      })),
    })),
  }
}

export interface CollateralSpec {
  asset: string
  address: string
  decimals: number
  collateralRatio: string
  /** Decimalized asset units. */
  withdrawalFee: string
}

/** pUSD as observed live (protocol-notes c.1). */
export const DEFAULT_COLLATERAL: Readonly<CollateralSpec> = Object.freeze({
  asset: 'pUSD',
  address: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
  decimals: 6,
  collateralRatio: '1',
  withdrawalFee: '1',
})

export function collateralToWire(c: CollateralSpec): CollateralAsset {
  return {
    asset: c.asset,
    address: c.address,
    decimals: c.decimals,
    collateral_ratio: c.collateralRatio,
    withdrawal_fee: c.withdrawalFee,
  }
}
