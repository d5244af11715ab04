/**
 * Small value formatters for the generated catalogue, matching how the real Gamma service writes
 * them: ISO date-times, `0x` hex ids, JSON-encoded array strings with `", "` separators, and decimal
 * strings built from integers (no float formatting noise).
 */
import type { Random } from '../../random.ts'

export const DAY_MS = 86_400_000
export const HOUR_MS = 3_600_000

/** `2026-06-01T12:00:00Z` (whole seconds, as Gamma writes start and end dates). */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`
}

/** `2026-06-01T12:00:00.123456Z` (microseconds, as Gamma writes createdAt/updatedAt). */
export function isoMicros(ms: number, micros: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`
}

/** `isoMicros` with drawn microseconds (how Gamma's createdAt/updatedAt look). */
export function stamp(rng: Random, ms: number): string {
  return isoMicros(ms, rng.int(0, 999_999))
}

/** `2026-06-01` (UTC date part). */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** `n` lowercase hex digits (drawn 8 at a time: one 32-bit draw each). */
export function hex(rng: Random, n: number): string {
  let out = ''
  while (out.length < n)
    out += Math.floor(rng.next() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0')
  return out.slice(0, n)
}

/** A decimal string of `n` digits with a non-zero lead (CLOB token ids are ~77-digit uint256s). */
export function bigDecimalId(rng: Random, n: number): string {
  let out = String(rng.int(1, 9))
  while (out.length < n) out += String(rng.int(0, 999_999_999)).padStart(9, '0')
  return out.slice(0, n)
}

/** `["a", "b"]`: Gamma's JSON-encoded array strings (outcomes, outcomePrices, clobTokenIds). */
export function jsonArrayString(items: readonly string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(', ')}]`
}

/** `units` scaled by 10^-decimals as a trimmed decimal string: (425, 3) → "0.425", (1000, 3) → "1". */
export function scaledDecimal(units: number, decimals: number): string {
  const neg = units < 0
  const digits = String(Math.abs(Math.round(units))).padStart(decimals + 1, '0')
  const int = digits.slice(0, digits.length - decimals)
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`
}

/** A number rounded to `decimals` places (catalogue numbers are JSON numbers, not decimal strings). */
export function round(x: number, decimals: number): number {
  const f = 10 ** decimals
  return Math.round(x * f) / f
}

/** A log-normal amount: most values modest, a long tail of large ones. */
export function amount(rng: Random, median: number, spread: number, decimals: number): number {
  return round(median * Math.exp(spread * rng.normal()), decimals)
}

/** True with probability `p`. */
export function chance(rng: Random, p: number): boolean {
  return rng.next() < p
}

/** `value`, or null with probability `pNull`, or undefined (absent) with probability `pAbsent`. */
export function sometimes<T>(rng: Random, value: T, pNull: number, pAbsent = 0): T | null | undefined {
  const u = rng.next()
  if (u < pNull) return null
  if (u < pNull + pAbsent) return undefined
  return value
}

/** A lowercase, hyphenated slug of `text`. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/['’.]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/** A copy of `obj` without its undefined-valued keys (the service omits them), key order kept. */
export function compact<T extends object>(obj: T): T {
  const src = obj as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const k in src) {
    const v = src[k]
    if (v !== undefined && Object.hasOwn(src, k)) out[k] = v
  }
  return out as T
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const

/** "June 3" */
export function monthDay(ms: number): string {
  const d = new Date(ms)
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`
}

/** "June 2026" */
export function monthYear(ms: number): string {
  const d = new Date(ms)
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`
}
