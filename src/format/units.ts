/**
 * Numbers as a person reads them: prices at the instrument's decimals, ratios as percentages, amounts
 * with their currency as the venue names it (an instrument's `quote_asset`, e.g. "USDC"; the
 * collateral asset, e.g. "pUSD"). Pure and display-only: nothing formatted here goes back on the wire.
 *
 * The dashboard and the report run these same functions in the browser (`BROWSER_FORMAT_JS` is their
 * source text), so each is self-contained: no nested functions (a bundler would wrap them in helpers
 * the page does not have), only top-level calls to each other and standard built-ins.
 */

/**
 * Thousands separators and at least `minDecimals`, at most `maxDecimals` digits after the point: what
 * `toLocaleString('en-US', …)` gives (the shortest decimal that reads back as `v`, rounded half away
 * from zero; a test compares the two over random numbers), without ICU. In the bot, ICU's number
 * formatting data paged in ~4.5 MiB of node's binary for a status line (rss: issue 36's 200 MB bound).
 * What this does not handle (±∞, NaN, 1e21 and beyond, bad digit counts) still goes to ICU.
 */
export function grouped(v: number, minDecimals: number, maxDecimals: number): string {
  const plain =
    Number.isFinite(v) &&
    Math.abs(v) < 1e21 &&
    Number.isInteger(minDecimals) &&
    Number.isInteger(maxDecimals) &&
    minDecimals >= 0 &&
    minDecimals <= maxDecimals &&
    maxDecimals <= 100
  const s = plain
    ? `${v < 0 || Object.is(v, -0) ? '-' : ''}${roundedDigits(Math.abs(v), minDecimals, maxDecimals)}`
    : v.toLocaleString('en-US', { minimumFractionDigits: minDecimals, maximumFractionDigits: maxDecimals })
  // A rounded-away negative ("-0.00") reads as zero.
  return /^-[0.,]+$/.test(s) ? s.slice(1) : s
}

/** `a` (≥ 0, < 1e21) as `grouped` writes it, unsigned: JavaScript's shortest decimal for it, rounded. */
export function roundedDigits(a: number, minDecimals: number, maxDecimals: number): string {
  const text = String(a)
  const e = text.indexOf('e')
  const mantissa = e < 0 ? text : text.slice(0, e)
  const dot = mantissa.indexOf('.')
  let digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1)
  // Where the point falls in `digits` (0: before the first); negative or past the end pads with zeros.
  let point = (dot < 0 ? mantissa.length : dot) + (e < 0 ? 0 : Number(text.slice(e + 1)))
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits
    point = 1
  } else if (point > digits.length) digits += '0'.repeat(point - digits.length)
  const kept = point + maxDecimals
  if (digits.length > kept) {
    const up = digits.charCodeAt(kept) >= 53 // '5'
    digits = digits.slice(0, kept)
    if (up) {
      let i = kept - 1
      while (i >= 0 && digits[i] === '9') i--
      digits = (i < 0 ? '1' : digits.slice(0, i) + String(Number(digits[i]) + 1)) + '0'.repeat(kept - 1 - i)
      if (i < 0) point++
    }
  }
  let whole = digits.slice(0, point).replace(/^0+(?=\d)/, '')
  let fraction = digits.slice(point).replace(/0+$/, '')
  if (fraction.length < minDecimals) fraction += '0'.repeat(minDecimals - fraction.length)
  whole = whole.replace(/\B(?=(\d{3})+$)/g, ',')
  return fraction === '' ? whole : `${whole}.${fraction}`
}

/** Decimal places that show `sig` significant figures of `v` (0 for large numbers). */
export function decimalsFor(v: number, sig: number): number {
  if (v === 0 || !Number.isFinite(v)) return 0
  return Math.max(0, Math.min(12, sig - 1 - Math.floor(Math.log10(Math.abs(v)))))
}

/** A plain figure with 3 significant figures at most (more for whole numbers): 0.00123, 12.3, 1,234. */
export function sig3(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return 'n/a'
  return grouped(v, 0, decimalsFor(v, 3))
}

/**
 * A ratio as a percentage: 1.083 → "108.3%", 0.8 → "80%", 0.0028950248 → "0.29%". At least one
 * decimal kept where it matters (3 significant figures below 10%), trailing zeros dropped.
 */
export function percent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return 'n/a'
  const p = ratio * 100
  return `${grouped(p, 0, Math.max(1, decimalsFor(p, 3)))}%`
}

/** A price at the instrument's decimals ("58,123.5" at 1 decimal); decimal strings are accepted. */
export function price(v: number | string | null | undefined, decimals: number | undefined): string {
  if (v === null || v === undefined || v === '') return 'n/a'
  const n = typeof v === 'number' ? v : Number(v)
  if (!Number.isFinite(n)) return String(v)
  if (decimals === undefined) return grouped(n, 0, Math.max(2, decimalsFor(n, 6)))
  return grouped(n, decimals, decimals)
}

/** A quantity of contracts at the instrument's quantity decimals, signed ("-0.005"). */
export function quantity(v: number | string | null | undefined, decimals: number | undefined): string {
  if (v === null || v === undefined || v === '') return 'n/a'
  const n = typeof v === 'number' ? v : Number(v)
  if (!Number.isFinite(n)) return String(v)
  return grouped(n, 0, decimals === undefined ? 8 : decimals)
}

/**
 * An amount of money with its currency: "1,234.56 USDC"; below 1 with 3 significant figures so a
 * fee of 0.00123 does not read as 0.00; exact zero as "0.00".
 */
export function amount(v: number | string | null | undefined, currency: string | undefined): string {
  if (v === null || v === undefined || v === '') return 'n/a'
  const n = typeof v === 'number' ? v : Number(v)
  const unit = currency ? ` ${currency}` : ''
  if (!Number.isFinite(n)) return `${String(v)}${unit}`
  const digits = Math.abs(n) >= 1 || n === 0 ? 2 : Math.max(2, decimalsFor(n, 3))
  return `${grouped(n, 2, digits)}${unit}`
}

/** A fill's side as a person says it: the venue's `long`/`short` (or `buy`/`sell`, `b`/`s`) → buy/sell. */
export function fillSide(side: string): 'buy' | 'sell' {
  const s = side.toLowerCase()
  return s === 'long' || s === 'buy' || s === 'b' || s === 'bid' ? 'buy' : 'sell'
}

/**
 * Tick labels for a chart axis: enough decimals to tell neighbouring ticks apart at this increment,
 * thousands separators and a minus sign that is never dropped. `scale` multiplies first (100 for %).
 */
export function tickLabels(splits: readonly number[], incr: number, scale: number, suffix: string): string[] {
  const step = Math.abs(incr * scale)
  let d = step > 0 && Number.isFinite(step) ? Math.max(0, -Math.floor(Math.log10(step) + 1e-9)) : 0
  // A step such as 0.25 needs one more digit than its magnitude says.
  if (step > 0 && Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) > 1e-6) d += 1
  d = Math.min(d, 12)
  const out: string[] = []
  for (let i = 0; i < splits.length; i++) {
    const v = splits[i]
    out.push(v === undefined || v === null ? '' : `${grouped(v * scale, d, d)}${suffix}`)
  }
  return out
}

/** The functions above as browser source text, for the dashboard page and the report. */
export const BROWSER_FORMAT_JS = [
  grouped,
  roundedDigits,
  decimalsFor,
  sig3,
  percent,
  price,
  quantity,
  amount,
  fillSide,
  tickLabels,
]
  .map((f) => f.toString())
  .join('\n')
