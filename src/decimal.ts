/**
 * Exact decimal arithmetic for wire decimal strings. A price or quantity is converted to integer ticks
 * (a bigint count of 10^-decimals units), computed on, and converted back to a canonical string, so no
 * binary float ever reaches the wire.
 */
import { InputValidationError } from './errors.ts'
import { RecentCache } from './recentCache.ts'

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d+))?$/

/** 10^0 … 10^63 as bigints: `10n ** BigInt(k)` allocates and costs ten times a lookup on hot paths. */
const POW10: readonly bigint[] = Array.from({ length: 64 }, (_, k) => 10n ** BigInt(k))

/** 10^k as a bigint, k a non-negative integer. */
export function pow10(k: number): bigint {
  return POW10[k] ?? 10n ** BigInt(k)
}

/** A decimal as `units * 10^-scale`. */
export interface Fixed {
  readonly units: bigint
  readonly scale: number
}

export function isDecimalString(s: string): boolean {
  // A spelling in the parse cache below parsed, so it is one (the same few are checked every plan).
  return parsed.get(s) !== undefined || DECIMAL_RE.test(s)
}

/**
 * A parsed decimal with the facts the venue's rules read: fractional digits and significant figures
 * as `decimalPlaces` and `significantFigures` count them. One cache entry per spelling serves all
 * three (a quote's price was looked up five times per validation, issue 36).
 */
export interface DecimalFacts extends Fixed {
  /** `decimalPlaces` of the spelling. */
  readonly places: number
  /** `significantFigures` of the spelling. */
  readonly figures: number
}

/**
 * `isDecimalString` without the cache, for spellings seen once (a read's body, fresh from JSON): their
 * lookup misses both generations, and hashing a new string twice costs twice the match (issue 36).
 */
export function isDecimalSpelling(s: string): boolean {
  return DECIMAL_RE.test(s)
}

/**
 * Recently parsed spellings: the same prices and sizes are parsed again and again (each plan's ladder,
 * diff and validation re-read the index, the quotes and the live orders). Bounded (`RecentCache`).
 */
const PARSED_GENERATION = 4_096
const parsed = new RecentCache<DecimalFacts>(PARSED_GENERATION)

/** The spelling parsed with its facts, or undefined when it is not a decimal string. */
export function decimalFacts(s: string): DecimalFacts | undefined {
  const hit = parsed.get(s)
  if (hit !== undefined) return hit
  const m = DECIMAL_RE.exec(s)
  if (!m) return undefined
  const frac = m[3] ?? ''
  const units = BigInt(`${m[2]}${frac}`)
  // Significant figures of the canonical value: the integer part without its leading zeros, the
  // fraction without its trailing ones; an integer's own trailing zeros do not count.
  const int = m[2]?.replace(/^0+/, '') ?? ''
  const trimmed = frac.replace(/0+$/, '')
  const figures =
    trimmed === '' ? int.replace(/0+$/, '').length : `${int}${trimmed}`.replace(/^0+/, '').length
  const f: DecimalFacts = Object.freeze({
    units: m[1] ? -units : units,
    scale: frac.length,
    places: trimmed.length,
    figures,
  })
  parsed.set(s, f)
  return f
}

/** Parses a decimal string exactly. */
export function parseDecimal(s: string): Fixed {
  const f = decimalFacts(s)
  if (f === undefined) throw new InputValidationError(`not a decimal string: ${JSON.stringify(s)}`)
  return f
}

/** Number of fractional digits after trimming trailing zeros ("1.50" → 1); 0 for a non-decimal. */
export function decimalPlaces(s: string): number {
  return decimalFacts(s)?.places ?? 0
}

/**
 * Significant figures of a decimal string: leading zeros never count; trailing zeros of the fraction
 * do not count either (the venue checks the value, not its spelling).
 */
export function significantFigures(s: string): number {
  const f = decimalFacts(s)
  if (f === undefined) throw new InputValidationError(`not a decimal string: ${JSON.stringify(s)}`)
  return f.figures
}

/** True when the value has no fractional part (the venue exempts integer prices from the sig-fig rule). */
export function isIntegerValue(s: string): boolean {
  return decimalPlaces(s) === 0
}

export type Rounding = 'down' | 'up' | 'half-even' | 'exact'

/** Converts to integer ticks of 10^-decimals. `exact` throws if precision would be lost. */
export function toTicks(s: string, decimals: number, rounding: Rounding = 'exact'): bigint {
  return rescale(parseDecimal(s), decimals, rounding)
}

/** Canonical string of `ticks * 10^-decimals`, trailing zeros trimmed ("100.50" → "100.5", "3.0" → "3"). */
export function fromTicks(ticks: bigint, decimals: number): string {
  const neg = ticks < 0n
  let abs = (neg ? -ticks : ticks).toString()
  if (abs.length <= decimals) abs = abs.padStart(decimals + 1, '0')
  // Trailing zeros of the fraction trimmed by a scan (no regex: this runs for every quote and order).
  const cut = abs.length - decimals
  let end = abs.length
  while (end > cut && abs.charCodeAt(end - 1) === 48) end--
  const body = end > cut ? `${abs.slice(0, cut)}.${abs.slice(cut, end)}` : abs.slice(0, cut)
  return neg && body !== '0' ? `-${body}` : body
}

/** Canonical form of a decimal string ("0100.50" → "100.5"). */
export function normalizeDecimal(s: string): string {
  const f = parseDecimal(s)
  return fromTicks(f.units, f.scale)
}

/** Rescales a fixed value to `scale` digits with the given rounding. */
export function rescale(f: Fixed, scale: number, rounding: Rounding = 'exact'): bigint {
  if (scale === f.scale) return f.units
  if (scale > f.scale) return f.units * pow10(scale - f.scale)
  const div = pow10(f.scale - scale)
  return divRound(f.units, div, rounding)
}

/** Integer division with an explicit rounding mode (bigint `/` truncates toward zero). */
export function divRound(n: bigint, d: bigint, rounding: Rounding): bigint {
  if (d === 0n) throw new RangeError('division by zero')
  if (d < 0n) return divRound(-n, -d, rounding)
  const q = n / d
  const r = n % d
  if (r === 0n) return q
  if (rounding === 'exact') throw new InputValidationError('value has more decimal places than allowed')
  const floor = n < 0n ? q - 1n : q
  if (rounding === 'down') return floor
  if (rounding === 'up') return floor + 1n
  const rem = n - floor * d // in (0, d)
  const twice = 2n * rem
  if (twice < d) return floor
  if (twice > d) return floor + 1n
  return floor % 2n === 0n ? floor : floor + 1n
}

/** Compares two decimal strings exactly: -1, 0 or 1. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const fa = parseDecimal(a)
  // Against the literal zero (the usual "is it positive"): no second lookup.
  if (b === '0') return fa.units < 0n ? -1 : fa.units > 0n ? 1 : 0
  const fb = parseDecimal(b)
  // Against zero or at one scale: no rescaling.
  if (fb.units === 0n || fa.scale === fb.scale) return fa.units < fb.units ? -1 : fa.units > fb.units ? 1 : 0
  const scale = Math.max(fa.scale, fb.scale)
  const x = rescale(fa, scale)
  const y = rescale(fb, scale)
  return x < y ? -1 : x > y ? 1 : 0
}

/** Exact sum of decimal strings. */
export function addDecimal(a: string, b: string): string {
  const fa = parseDecimal(a)
  const fb = parseDecimal(b)
  const scale = Math.max(fa.scale, fb.scale)
  return fromTicks(rescale(fa, scale) + rescale(fb, scale), scale)
}

/**
 * Exact difference of decimal strings. Not `a + (-b)`: the negated spelling is a new string, parsed
 * and cached once per call (issue 36: the pnl ledger's differences filled the parse cache).
 */
export function subDecimal(a: string, b: string): string {
  const fa = parseDecimal(a)
  const fb = parseDecimal(b)
  const scale = Math.max(fa.scale, fb.scale)
  return fromTicks(rescale(fa, scale) - rescale(fb, scale), scale)
}

export function negateDecimal(a: string): string {
  return a.startsWith('-') ? a.slice(1) : a === '0' || /^0(\.0+)?$/.test(a) ? a : `-${a}`
}

/** Exact product of decimal strings. */
export function mulDecimal(a: string, b: string): string {
  const fa = parseDecimal(a)
  const fb = parseDecimal(b)
  return fromTicks(fa.units * fb.units, fa.scale + fb.scale)
}

/** Quotient rounded to `scale` digits. */
export function divDecimal(
  a: string,
  b: string,
  scale: number,
  rounding: Exclude<Rounding, 'exact'>,
): string {
  const fa = parseDecimal(a)
  const fb = parseDecimal(b)
  // a/b = (ua/10^sa)/(ub/10^sb); scaled by 10^scale.
  const num = fa.units * pow10(scale + fb.scale)
  const den = fb.units * pow10(fa.scale)
  return fromTicks(divRound(num, den, rounding), scale)
}

/**
 * Rounds ticks so the value has at most `sig` significant figures (integers exempt when
 * `integerExempt`), in the given direction. Used to keep quotes within the venue's 5-figure rule.
 */
export function roundTicksToSigFigs(
  ticks: bigint,
  decimals: number,
  sig: number,
  rounding: Exclude<Rounding, 'exact'>,
  integerExempt = true,
): bigint {
  const abs = ticks < 0n ? -ticks : ticks
  if (abs === 0n) return 0n
  const digits = abs.toString().length
  if (digits <= sig) return ticks
  const dropPower = digits - sig
  // Integer values are exempt: never round away fractional digits we do not need to.
  if (integerExempt && dropPower > decimals) {
    const unit = pow10(decimals)
    const r = divRound(ticks, unit, rounding) * unit
    return r
  }
  const unit = pow10(dropPower)
  return divRound(ticks, unit, rounding) * unit
}

/** Lossy conversion for signals and display only; never feed the result back to the wire. */
export function decimalToNumber(s: string): number {
  return Number(s)
}

/** Ticks to a float for signals and display only. */
export function ticksToNumber(ticks: bigint, decimals: number): number {
  return Number(ticks) / 10 ** decimals
}
