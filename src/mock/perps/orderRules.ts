/**
 * Per-order format rules of the venue (protocol-notes c.3): decimal places per instrument and at most
 * 5 significant figures for non-integer values. Each check returns the venue's error text or
 * undefined when the value is acceptable.
 */
import { decimalPlaces, isIntegerValue, parseDecimal, significantFigures } from '../../decimal.ts'
import { TEXT } from './errors.ts'
import { MAX_SIG_FIGS } from './money.ts'

/** Plain non-negative decimal: no sign, exponent or leading dot. */
const PLAIN_DECIMAL_RE = /^\d+(\.\d+)?$/
const COID_RE = /^[0-9a-f]{32}$/

export function checkPrice(p: string, priceDecimals: number): string | undefined {
  if (!PLAIN_DECIMAL_RE.test(p)) return 'invalid price'
  if (parseDecimal(p).units === 0n) return TEXT.priceZero
  if (decimalPlaces(p) > priceDecimals) return TEXT.priceDecimals
  if (!isIntegerValue(p) && significantFigures(p) > MAX_SIG_FIGS) return TEXT.priceSigFigs
  return undefined
}

export function checkQuantity(q: string, quantityDecimals: number): string | undefined {
  if (!PLAIN_DECIMAL_RE.test(q)) return 'invalid quantity'
  if (parseDecimal(q).units === 0n) return TEXT.qtyPositive
  if (decimalPlaces(q) > quantityDecimals) return TEXT.qtyDecimals
  if (!isIntegerValue(q) && significantFigures(q) > MAX_SIG_FIGS) return TEXT.qtySigFigs
  return undefined
}

export function checkClientOrderId(c: string): string | undefined {
  if (!COID_RE.test(c)) return 'invalid client order id'
  if (/^0+$/.test(c)) return TEXT.coidZero
  return undefined
}
