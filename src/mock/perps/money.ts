/**
 * Exact money and tick arithmetic of the mock venue. Prices and quantities are bigint ticks of each
 * instrument's decimals; USD amounts are bigint micro-dollars (6 decimals, like pUSD); rates are
 * bigint units of 1e-8. Floats exist only inside the price process and are quantized once, here.
 */
import {
  divRound,
  fromTicks,
  parseDecimal,
  pow10,
  type Rounding,
  rescale,
  roundTicksToSigFigs,
} from '../../decimal.ts'

export const USD_DECIMALS = 6
export const RATE_DECIMALS = 8
/** The venue's significant-figure limit for non-integer prices and quantities. */
export const MAX_SIG_FIGS = 5

type Round = Exclude<Rounding, 'exact'>

/** Moves a fixed-point value from `from` to `to` decimals. */
export function rescaleTicks(v: bigint, from: number, to: number, rounding: Round = 'half-even'): bigint {
  if (to >= from) return v * pow10(to - from)
  return divRound(v, pow10(from - to), rounding)
}

export const abs = (v: bigint): bigint => (v < 0n ? -v : v)
export const sign = (v: bigint): bigint => (v < 0n ? -1n : v > 0n ? 1n : 0n)
export const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b)
export const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b)

/** USD micros → wire string ("1234.5", "-0.000001"). */
export const usd = (micros: bigint): string => fromTicks(micros, USD_DECIMALS)

/** Decimal string → USD micros (rounded half-even beyond 6 decimals). */
export function parseUsd(s: string): bigint {
  return rescale(parseDecimal(s), USD_DECIMALS, 'half-even')
}

/** A decimal string as integer units at its own scale (for rates and bounds). */
export function toScaled(s: string, decimals: number): bigint {
  return rescale(parseDecimal(s), decimals, 'half-even')
}

/** |qty| × price in USD micros. */
export function notionalMicros(
  qty: bigint,
  qd: number,
  price: bigint,
  pd: number,
  rounding: Round = 'half-even',
): bigint {
  return rescaleTicks(abs(qty) * price, qd + pd, USD_DECIMALS, rounding)
}

/** `amount` (USD micros, signed) × `rate` (1e-8 units), in micros. */
export function applyRate(amountMicros: bigint, rateUnits: bigint, rounding: Round = 'half-even'): bigint {
  return divRound(amountMicros * rateUnits, pow10(RATE_DECIMALS), rounding)
}

/**
 * A float price quantized to a valid venue price: whole ticks of `pd` decimals, at most 5 significant
 * figures unless it is an integer, never below one tick. Runs on every simulation step, so it stays in
 * float arithmetic, which is exact for integer tick counts below 2^53.
 */
export function quantizePrice(x: number, pd: number): bigint {
  let ticks = Number.isFinite(x) ? Math.round(x * 10 ** pd) : 1
  if (ticks >= 10 ** MAX_SIG_FIGS) {
    const digits = Math.floor(Math.log10(ticks)) + 1
    // Integers are exempt from the figure limit: never round away more than the fraction.
    const unit = 10 ** Math.min(digits - MAX_SIG_FIGS, pd)
    ticks = Math.round(ticks / unit) * unit
  }
  return BigInt(Math.max(1, Math.min(ticks, Number.MAX_SAFE_INTEGER)))
}

/** Rounds price ticks to a valid venue price in the given direction (sig-fig rule, integers exempt). */
export function roundPriceTicks(ticks: bigint, pd: number, rounding: Round): bigint {
  const r = roundTicksToSigFigs(ticks, pd, MAX_SIG_FIGS, rounding)
  return r > 0n ? r : 1n
}

/** A float rate quantized to 1e-8 units. */
export function quantizeRate(x: number): bigint {
  return BigInt(Math.round(x * 10 ** RATE_DECIMALS))
}

export const rateString = (units: bigint): string => fromTicks(units, RATE_DECIMALS)
