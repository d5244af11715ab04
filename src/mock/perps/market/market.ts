/**
 * One instrument's simulated market: the index/mark price process under a regime schedule, the
 * 1-minute klines, simulated traded volume, and the premium accumulator that sets each funding rate.
 */
import { fromTicks, parseDecimal, pow10 } from '../../../decimal.ts'
import type { Index, Instrument, StatisticsItem } from '../../../perps/schemas/info.ts'
import { fundingIntervalMs } from '../../../perps/schemas/info.ts'
import { type Random, seededRandom } from '../../../random.ts'
import { type InstrumentSpec, instrumentToWire } from '../instruments.ts'
import { parseUsd, quantizePrice, quantizeRate, roundPriceTicks, toScaled } from '../money.ts'
import { KlineRing, MINUTE_MS } from './klines.ts'
import {
  type PriceState,
  REGIME_PARAMS,
  type RegimeName,
  type StepConstants,
  simulateVolume,
  stepPrice,
} from './priceProcess.ts'

/** Interest leg of the funding rate per interval (0.01 % per 8 h, per hour), and the cap (±4 %). */
const FUNDING_INTEREST = 0.0000125
const FUNDING_CAP = 0.04
/** Half the synthetic spread around the mark, as a fraction (1 bp). */
const HALF_SPREAD = 0.0001

export interface ScheduledRegime {
  at: number
  regime: RegimeName
}

export interface Market {
  readonly spec: InstrumentSpec
  readonly wire: Instrument
  readonly rng: Random
  readonly price: PriceState
  regime: RegimeName
  /** Future regime switches, ascending by time. */
  schedule: ScheduledRegime[]
  indexTicks: bigint
  markTicks: bigint
  readonly klines: KlineRing
  /** Base-unit ticks traded per second in the last simulated step (bounds how fast resting orders fill). */
  volumeTicksPerSecond: number
  /** ∫ basis dt and ∫ dt since the last funding settlement (seconds). */
  premiumIntegral: number
  premiumSeconds: number
  lastFundingRate: bigint
  /** Settled funding rates, oldest first (bounded): `GET /v1/info/funding`. */
  readonly fundingRates: { rate: bigint; timestamp: number }[]
  readonly fundingIntervalMs: number
  readonly boundsUnits: bigint
  readonly boundsScale: number
  readonly tiers: readonly { lowerBoundMicros: bigint; maxLeverage: number }[]
  /** Rates in 1e-8 units. */
  readonly liquidationFeeUnits: bigint
  readonly minNotionalMicros: bigint
  readonly maxMarketNotionalMicros: bigint
  readonly maxLimitNotionalMicros: bigint
}

export function createMarket(spec: InstrumentSpec, seed: number, klineCapacity: number): Market {
  const bounds = parseDecimal(spec.priceBounds)
  const price = Number(spec.initialPrice)
  const ticks = quantizePrice(price, spec.priceDecimals)
  return {
    spec,
    wire: instrumentToWire(spec),
    // One stream per instrument: its path does not depend on how many other instruments exist.
    rng: seededRandom((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(spec.id + 1, 0x85ebca6b)) >>> 0),
    price: { price, basis: 0 },
    regime: 'calm',
    schedule: [],
    indexTicks: ticks,
    markTicks: ticks,
    klines: new KlineRing(klineCapacity),
    volumeTicksPerSecond: 0,
    premiumIntegral: 0,
    premiumSeconds: 0,
    lastFundingRate: quantizeRate(FUNDING_INTEREST),
    fundingRates: [],
    fundingIntervalMs: fundingIntervalMs(spec.fundingInterval) ?? 3_600_000,
    boundsUnits: bounds.units,
    boundsScale: bounds.scale,
    tiers: spec.riskTiers.map((t) => ({
      lowerBoundMicros: parseUsd(t.lowerBound),
      maxLeverage: t.maxLeverage,
    })),
    liquidationFeeUnits: toScaled(spec.liquidationFee, 8),
    minNotionalMicros: parseUsd(spec.minNotional),
    maxMarketNotionalMicros: parseUsd(spec.maxMarketNotional),
    maxLimitNotionalMicros: parseUsd(spec.maxLimitNotional),
  }
}

const NO_BOUNDARIES: readonly number[] = Object.freeze([])

/**
 * Advances the market to time `t` over one step: applies due regime switches, moves the price, prints
 * the step's simulated trades into the klines. Returns the funding boundaries crossed in (t − dt, t].
 */
export function stepMarket(m: Market, t: number, dtMs: number, k: StepConstants): readonly number[] {
  for (let next = m.schedule[0]; next !== undefined && next.at <= t; next = m.schedule[0]) {
    m.schedule.shift()
    m.regime = next.regime
  }
  const regime = REGIME_PARAMS[m.regime]
  const dt = k.dt
  stepPrice(m.price, regime, m.spec.volatility, k, m.rng)
  quantize(m)
  const qd = m.spec.quantityDecimals
  const vol = simulateVolume(m.spec.activityUsdPerSecond, regime, m.price.price, dt, m.rng)
  const volTicks = Math.round(vol.base * 10 ** qd)
  m.volumeTicksPerSecond = volTicks / dt
  m.klines.record(t, Number(m.markTicks), volTicks, vol.trades)
  m.premiumIntegral += m.price.basis * dt
  m.premiumSeconds += dt
  const interval = m.fundingIntervalMs
  const last = Math.floor(t / interval) * interval
  if (last <= t - dtMs) return NO_BOUNDARIES
  const boundaries: number[] = []
  for (let b = last; b > t - dtMs; b -= interval) boundaries.unshift(b)
  return boundaries
}

/** Sets index and mark ticks from the float state. */
export function quantize(m: Market): void {
  const pd = m.spec.priceDecimals
  m.indexTicks = quantizePrice(m.price.price, pd)
  m.markTicks = quantizePrice(m.price.price * (1 + m.price.basis), pd)
}

/** Pins the index (and mark, basis 0) to an exact price. */
export function setMarketPrice(m: Market, ticks: bigint): void {
  m.price.price = Number(ticks) / 10 ** m.spec.priceDecimals
  m.price.basis = 0
  m.indexTicks = ticks
  m.markTicks = ticks
}

/** Closes the funding window: the time-averaged premium / 8 plus interest, capped; 1e-8 units. */
export function takeFundingRate(m: Market): bigint {
  const premium = m.premiumSeconds > 0 ? m.premiumIntegral / m.premiumSeconds : 0
  const rate = Math.max(-FUNDING_CAP, Math.min(FUNDING_CAP, premium / 8 + FUNDING_INTEREST))
  m.premiumIntegral = 0
  m.premiumSeconds = 0
  m.lastFundingRate = quantizeRate(rate)
  return m.lastFundingRate
}

/** The synthetic best ask (buy taker price) and bid, valid venue prices around the mark. */
export function askTicks(m: Market): bigint {
  const half = maxTick(m.markTicks)
  return roundPriceTicks(m.markTicks + half, m.spec.priceDecimals, 'up')
}
export function bidTicks(m: Market): bigint {
  const half = maxTick(m.markTicks)
  const bid = roundPriceTicks(m.markTicks - half, m.spec.priceDecimals, 'down')
  return bid > 0n ? bid : 1n
}
function maxTick(mark: bigint): bigint {
  const h = BigInt(Math.round(Number(mark) * HALF_SPREAD))
  return h > 0n ? h : 1n
}

/** True when `price` lies within ±price_bounds of the mark (exact). */
export function withinBounds(m: Market, price: bigint): boolean {
  const diff = price > m.markTicks ? price - m.markTicks : m.markTicks - price
  return diff * pow10(m.boundsScale) <= m.markTicks * m.boundsUnits
}

/** `GET /v1/info/index`: constituents wobble deterministically around the index (no RNG draws). */
export function indexToWire(m: Market, now: number): Index {
  const pd = m.spec.priceDecimals
  const second = Math.floor(now / 1000)
  return {
    asset: m.spec.baseAsset,
    index_price: fromTicks(m.indexTicks, pd),
    constituents: m.spec.indexSources.map((s, i) => {
      const wobble = 0.0002 * Math.sin(second * 0.7 * (i + 1) + m.spec.id)
      return {
        source: s.source,
        symbol: s.symbol,
        weight: s.weight,
        price: fromTicks(quantizePrice(m.price.price * (1 + wobble), pd), pd),
      }
    }),
    ts: now,
  }
}

/** `GET /v1/info/statistics` item: the last 24 h of 1-minute klines. */
export function statisticsToWire(m: Market, now: number, newestKlines?: number | undefined): StatisticsItem {
  const pd = m.spec.priceDecimals
  const qd = m.spec.quantityDecimals
  const from = Math.floor(now / MINUTE_MS) * MINUTE_MS - 1439 * MINUTE_MS
  const summary = m.klines.summary(from)
  return {
    instrument_id: m.spec.id,
    symbol: m.spec.symbol,
    volume: fromTicks(BigInt(summary.volumeTicks), qd),
    open_price: fromTicks(summary.openTicks === undefined ? m.markTicks : BigInt(summary.openTicks), pd),
    klines: m.klines.toWire(from, pd, qd, newestKlines),
  }
}
