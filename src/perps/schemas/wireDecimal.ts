/**
 * Reading the venue's decimal strings as tolerantly as the official bindings do (their decimal type is
 * any string), without giving up exact arithmetic: every spelling that denotes a finite decimal
 * (`".5"`, `"+1"`, `"1."`, `"1e-7"`, `"-2.5E+3"`) is rewritten to our canonical form (`-?\d+(\.\d+)?`);
 * a spelling that denotes no number (`""`, `"."`, `"NaN"`, `"1e"`, spaces) is refused, so the item that
 * carries it is dropped (see tolerantArray.ts), never the whole read. Commands we sign never use this:
 * they carry canonical strings built from ticks.
 */
import { isDecimalSpelling } from '../../decimal.ts'

const WIRE_DECIMAL_RE = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/

/** Longest canonical result accepted: a price or size has far fewer digits; a longer one is hostile. */
export const MAX_WIRE_DECIMAL_CHARS = 80

/** The canonical spelling of a wire decimal, or undefined when the string is not a finite decimal. */
export function canonicalWireDecimal(s: string): string | undefined {
  if (isDecimalSpelling(s)) return s.length <= MAX_WIRE_DECIMAL_CHARS ? s : undefined
  if (s.length > MAX_WIRE_DECIMAL_CHARS) return undefined
  const m = WIRE_DECIMAL_RE.exec(s)
  if (m === null) return undefined
  const intPart = m[2] ?? ''
  const fracPart = m[3] ?? ''
  if (intPart.length + fracPart.length === 0) return undefined
  const exp = m[4] === undefined ? 0 : Number(m[4])
  const digits = `${intPart}${fracPart}`
  // The decimal point sits after `point` digits of `digits`.
  const point = intPart.length + exp
  let whole: string
  let frac: string
  if (point <= 0) {
    whole = '0'
    frac = `${'0'.repeat(-point)}${digits}`
  } else if (point >= digits.length) {
    whole = `${digits}${'0'.repeat(point - digits.length)}`
    frac = ''
  } else {
    whole = digits.slice(0, point)
    frac = digits.slice(point)
  }
  whole = whole.replace(/^0+(?=\d)/, '')
  frac = frac.replace(/0+$/, '')
  const sign = m[1] === '-' && /[1-9]/.test(`${whole}${frac}`) ? '-' : ''
  const out = `${sign}${whole}${frac === '' ? '' : `.${frac}`}`
  return out.length <= MAX_WIRE_DECIMAL_CHARS && isDecimalSpelling(out) ? out : undefined
}
