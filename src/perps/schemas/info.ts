/** Public market information: index, statistics, fees, collateral assets, exchange, time, instruments. */
import { z } from 'zod'
import { Address, DecimalString, InstrumentId, TimestampMs } from './common.ts'
import { tolerantArray } from './tolerantArray.ts'

export const IndexConstituent = z.looseObject({
  source: z.string(),
  symbol: z.string(),
  weight: DecimalString,
  price: DecimalString,
})
export const Index = z.looseObject({
  asset: z.string(),
  index_price: DecimalString,
  constituents: z.array(IndexConstituent),
  ts: TimestampMs,
})
export type Index = z.infer<typeof Index>

/** `[openTime ms, open, high, low, close, volume (base units), trades]`. */
export const Kline = z.tuple([
  TimestampMs,
  DecimalString,
  DecimalString,
  DecimalString,
  DecimalString,
  DecimalString,
  z.number().int().nonnegative(),
])
export type Kline = z.infer<typeof Kline>

export const StatisticsItem = z.looseObject({
  instrument_id: InstrumentId,
  /** Absent on some rows (the official client allows it). */
  symbol: z.string().optional(),
  /** 24-hour volume in contracts. */
  volume: DecimalString,
  /** Price 24 hours ago. */
  open_price: DecimalString,
  klines: tolerantArray(Kline),
})
export type StatisticsItem = z.infer<typeof StatisticsItem>
export const Statistics = tolerantArray(StatisticsItem)

export const FeeTier = z.looseObject({
  min_volume_30d: DecimalString,
  taker_fee_rate: DecimalString,
  maker_fee_rate: DecimalString,
})
export const FeeScheduleEntry = z.looseObject({
  instrument_type: z.string(),
  category: z.string(),
  taker_fee_rate: DecimalString,
  /** May be negative (a maker rebate). */
  maker_fee_rate: DecimalString,
  tiers: tolerantArray(FeeTier).optional(),
})
/** A fee entry or tier we cannot read is dropped and reported, not the whole schedule. */
export const FeeSchedule = z.looseObject({ fee_schedule: tolerantArray(FeeScheduleEntry) })
export type FeeSchedule = z.infer<typeof FeeSchedule>

export const CollateralAsset = z.looseObject({
  asset: z.string(),
  address: Address,
  decimals: z.number().int().nonnegative(),
  collateral_ratio: DecimalString,
  /** Withdrawal transaction fee in decimalized asset units. */
  withdrawal_fee: DecimalString,
})
export type CollateralAsset = z.infer<typeof CollateralAsset>
export const CollateralAssets = z.array(CollateralAsset)

/** `GET /v1/info/exchange`: the EIP-712 domain and venue flags. */
export const ExchangeInfo = z.looseObject({
  name: z.string(),
  version: z.string(),
  chain_id: z.number().int().positive(),
  contract: Address.optional(),
  cancel_only: z.boolean().optional(),
})
export type ExchangeInfo = z.infer<typeof ExchangeInfo>

/** `GET /v1/info/time`. */
export const ServerTime = z.looseObject({ time: TimestampMs })
export type ServerTime = z.infer<typeof ServerTime>

export const PublicPosition = z.looseObject({
  instrument_id: InstrumentId,
  symbol: z.string(),
  /** Signed: negative is short. */
  size: DecimalString,
  entry_price: DecimalString,
  unrealized_pnl: DecimalString,
  return_on_equity: DecimalString,
})
export const PublicPortfolio = z.looseObject({
  positions: z.array(PublicPosition),
  equity: DecimalString,
  timestamp: TimestampMs,
})
export type PublicPortfolio = z.infer<typeof PublicPortfolio>

export const RiskTier = z.looseObject({
  lower_bound: DecimalString,
  max_leverage: z.number().int().positive(),
})

/** `GET /v1/info/instruments` row: decimals, bounds, limits. */
export const Instrument = z.looseObject({
  instrument_id: InstrumentId,
  instrument_type: z.string(),
  category: z.string(),
  isolated_only: z.boolean().optional(),
  symbol: z.string(),
  base_asset: z.string(),
  quote_asset: z.string(),
  /** Duration string, e.g. "1h". */
  funding_interval: z.string(),
  quantity_decimals: z.number().int().min(0).max(18),
  /** Non-integer prices have at most 5 significant figures; integer prices are exempt. */
  price_decimals: z.number().int().min(0).max(18),
  /** Allowed deviation from the mark as a fraction ("0.05" = 5%). */
  price_bounds: DecimalString,
  liquidation_fee: DecimalString,
  max_order_count: z.number().int().nonnegative(),
  min_notional: DecimalString,
  max_market_notional: DecimalString,
  max_limit_notional: DecimalString,
  max_leverage: z.number().int().positive(),
  risk_tiers: z.array(RiskTier),
  close_only: z.boolean().optional(),
  display_symbol: z.string().optional(),
})
export type Instrument = z.infer<typeof Instrument>
export const Instruments = tolerantArray(Instrument)

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** Parses a funding interval such as "1h", "8h", "30m" to milliseconds. */
export function fundingIntervalMs(s: string): number | undefined {
  const m = /^(\d+)(s|m|h|d)$/.exec(s)
  if (!m) return undefined
  const unit = UNIT_MS[m[2] ?? '']
  if (unit === undefined) return undefined // unreachable: the pattern admits only these units
  return Number(m[1]) * unit
}
