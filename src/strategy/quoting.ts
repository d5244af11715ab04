/**
 * Venue rules for quote prices and quantities, in integer ticks: rounding to the instrument's decimals
 * and the 5-significant-figure rule (integer prices exempt), the minimum and maximum notional, and `validateQuotes`,
 * which checks a strategy's output against all of them (the registry runs it on every `quote` call).
 */
import {
  compareDecimal,
  type DecimalFacts,
  decimalFacts,
  divRound,
  fromTicks,
  isDecimalString,
  parseDecimal,
  pow10,
  rescale,
  roundTicksToSigFigs,
  toTicks,
} from '../decimal.ts'
import type { DesiredQuote, QuoteSide, StrategyInstrument, StrategySnapshot } from './strategy.ts'

/** The smaller of two bigints (Math.min does not take bigint). */
export function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

/** The larger of two bigints. */
export function maxBigint(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}

/** The venue's significant-figure limit for non-integer prices and for quantities. */
export const MAX_SIG_FIGS = 5

/**
 * Rounds a price given in ticks (10^-priceDecimals) to a valid price: bids down, asks up, so rounding
 * never makes a quote more aggressive. Integer prices are exempt from the sig-fig rule.
 */
export function roundPriceTicks(ticks: bigint, priceDecimals: number, side: QuoteSide): bigint {
  return roundTicksToSigFigs(ticks, priceDecimals, MAX_SIG_FIGS, side === 'buy' ? 'down' : 'up', true)
}

/** Rounds a quantity in ticks (10^-quantityDecimals) down to at most 5 significant figures. */
export function roundQtyTicks(ticks: bigint, quantityDecimals: number): bigint {
  return roundTicksToSigFigs(ticks, quantityDecimals, MAX_SIG_FIGS, 'down', false)
}

/**
 * Exact `value × num / den` in ticks of 10^-decimals with the given rounding, for a decimal string
 * value (e.g. centre × (10000 − bps) / 10000).
 */
export function scaleToTicks(
  value: string,
  num: bigint,
  den: bigint,
  decimals: number,
  rounding: 'down' | 'up',
): bigint {
  const f = parseDecimal(value)
  return divRound(f.units * num * pow10(decimals), den * pow10(f.scale), rounding)
}

/** The instrument's minimum notional in price × quantity ticks (rounded up). */
function minNotionalTicks(instrument: StrategyInstrument): bigint {
  return toTicks(instrument.minNotional, instrument.priceDecimals + instrument.quantityDecimals, 'up')
}

/** Its maximum limit notional in price × quantity ticks (rounded down); undefined when it has none. */
function maxLimitNotionalTicks(instrument: StrategyInstrument): bigint | undefined {
  const max = instrument.maxLimitNotional
  if (max === undefined || !isDecimalString(max) || compareDecimal(max, '0') <= 0) return undefined
  return toTicks(max, instrument.priceDecimals + instrument.quantityDecimals, 'down')
}

/** True when price × qty (both in ticks) reaches the instrument's minimum notional. */
export function meetsMinNotional(
  priceTicks: bigint,
  qtyTicks: bigint,
  instrument: StrategyInstrument,
): boolean {
  return priceTicks * qtyTicks >= minNotionalTicks(instrument)
}

/** True when price × qty (both in ticks) is above the instrument's maximum limit notional (when it has one). */
export function exceedsMaxLimitNotional(
  priceTicks: bigint,
  qtyTicks: bigint,
  instrument: StrategyInstrument,
): boolean {
  const max = maxLimitNotionalTicks(instrument)
  return max !== undefined && priceTicks * qtyTicks > max
}

/** Problems with one price or quantity string for this instrument ([] when valid). */
export function priceProblems(price: string, instrument: StrategyInstrument): string[] {
  return priceFactsProblems(price, decimalFacts(price), instrument)
}

/** `priceProblems` given the spelling's facts (one parse for every rule: this runs for every quote of every plan). */
function priceFactsProblems(
  price: string,
  f: DecimalFacts | undefined,
  instrument: StrategyInstrument,
): string[] {
  if (f === undefined) return [`price ${JSON.stringify(price)} is not a decimal string`]
  const out: string[] = []
  if (f.units <= 0n) out.push(`price ${price} is not positive`)
  if (f.places > instrument.priceDecimals) {
    out.push(`price ${price} has more than ${instrument.priceDecimals} decimals`)
  }
  // Integer values (no fractional digits) are exempt from the figures rule.
  if (f.places !== 0 && f.figures > MAX_SIG_FIGS) {
    out.push(`price ${price} has more than ${MAX_SIG_FIGS} significant figures`)
  }
  return out
}

export function qtyProblems(qty: string, instrument: StrategyInstrument): string[] {
  return qtyFactsProblems(qty, decimalFacts(qty), instrument)
}

function qtyFactsProblems(
  qty: string,
  f: DecimalFacts | undefined,
  instrument: StrategyInstrument,
): string[] {
  if (f === undefined) return [`qty ${JSON.stringify(qty)} is not a decimal string`]
  const out: string[] = []
  if (f.units <= 0n) out.push(`qty ${qty} is not positive`)
  if (f.places > instrument.quantityDecimals) {
    out.push(`qty ${qty} has more than ${instrument.quantityDecimals} decimals`)
  }
  if (f.figures > MAX_SIG_FIGS) out.push(`qty ${qty} has more than ${MAX_SIG_FIGS} significant figures`)
  return out
}

/**
 * Every way `quotes` break the venue's rules or the snapshot's mode: side, price and quantity format,
 * minimum notional, crossing (max bid must be below min ask), the instrument's order count, and in
 * `reduce-only` mode the reduce-only flag, side and total size. Returns [] when the quotes are valid.
 * The position cap is strategy-specific and is checked by the conformance kit instead.
 */
export function validateQuotes(snapshot: StrategySnapshot, quotes: readonly DesiredQuote[]): string[] {
  const { instrument } = snapshot
  const issues: string[] = []
  if (!Array.isArray(quotes)) return ['quote() did not return an array']
  let maxBid: string | undefined
  let minAsk: string | undefined
  // The best bid and ask in price ticks, and the notional bounds read once, when the first quote
  // needs them (a bound that does not parse throws there, as before): not a decimal lookup per quote.
  let maxBidTicks = 0n
  let minAskTicks = 0n
  let bounds: { min: bigint; max: bigint | undefined } | undefined
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i]
    if (q === null || typeof q !== 'object') {
      issues.push(`quote ${i}: not an object`)
      continue
    }
    if (q.side !== 'buy' && q.side !== 'sell') issues.push(`quote ${i}: side must be "buy" or "sell"`)
    if (q.reduceOnly !== undefined && typeof q.reduceOnly !== 'boolean')
      issues.push(`quote ${i}: reduceOnly must be boolean`)
    const pf = typeof q.price === 'string' ? decimalFacts(q.price) : undefined
    const qf = typeof q.qty === 'string' ? decimalFacts(q.qty) : undefined
    const pp =
      typeof q.price === 'string' ? priceFactsProblems(q.price, pf, instrument) : ['price is not a string']
    const qp = typeof q.qty === 'string' ? qtyFactsProblems(q.qty, qf, instrument) : ['qty is not a string']
    if (pf === undefined || qf === undefined || pp.length > 0 || qp.length > 0) {
      for (const p of pp) issues.push(`quote ${i}: ${p}`)
      for (const p of qp) issues.push(`quote ${i}: ${p}`)
      continue
    }
    // Exact: a price with no more places than the instrument's decimals (checked above).
    const pt = rescale(pf, instrument.priceDecimals)
    const qt = rescale(qf, instrument.quantityDecimals)
    bounds ??= { min: minNotionalTicks(instrument), max: maxLimitNotionalTicks(instrument) }
    const notional = pt * qt
    if (notional < bounds.min) {
      issues.push(`quote ${i}: notional ${q.price} × ${q.qty} is below the minimum ${instrument.minNotional}`)
    }
    if (bounds.max !== undefined && notional > bounds.max) {
      issues.push(
        `quote ${i}: notional ${q.price} × ${q.qty} is above the maximum ${instrument.maxLimitNotional ?? ''}`,
      )
    }
    if (q.side === 'buy' && (maxBid === undefined || pt > maxBidTicks)) {
      maxBid = q.price
      maxBidTicks = pt
    }
    if (q.side === 'sell' && (minAsk === undefined || pt < minAskTicks)) {
      minAsk = q.price
      minAskTicks = pt
    }
  }
  if (maxBid !== undefined && minAsk !== undefined && maxBidTicks >= minAskTicks) {
    issues.push(`quotes cross: best bid ${maxBid} is not below best ask ${minAsk}`)
  }
  if (instrument.maxOrderCount > 0 && quotes.length > instrument.maxOrderCount) {
    issues.push(`${quotes.length} quotes exceed the instrument's max order count ${instrument.maxOrderCount}`)
  }
  if (snapshot.mode === 'reduce-only' && issues.length === 0)
    issues.push(...reduceOnlyProblems(snapshot, quotes))
  return issues
}

/** In reduce-only mode: only the reducing side, flagged reduceOnly, in total at most |position|. */
function reduceOnlyProblems(snapshot: StrategySnapshot, quotes: readonly DesiredQuote[]): string[] {
  const qd = snapshot.instrument.quantityDecimals
  const pos = parseDecimal(snapshot.position?.size ?? '0')
  const reducing: QuoteSide | undefined = pos.units > 0n ? 'sell' : pos.units < 0n ? 'buy' : undefined
  const issues: string[] = []
  let total = 0n
  quotes.forEach((q, i) => {
    if (q.reduceOnly !== true) issues.push(`quote ${i}: reduce-only mode needs reduceOnly: true`)
    if (q.side !== reducing)
      issues.push(`quote ${i}: ${q.side} does not reduce position ${snapshot.position?.size ?? '0'}`)
    total += toTicks(q.qty, qd)
  })
  // Compare at a common scale: total (qd decimals) against |position| (its own decimals).
  const absPos = pos.units < 0n ? -pos.units : pos.units
  const scale = Math.max(qd, pos.scale)
  if (total * pow10(scale - qd) > absPos * pow10(scale - pos.scale)) {
    issues.push(`reduce-only quotes total more than |position| ${snapshot.position?.size ?? '0'}`)
  }
  return issues
}

/**
 * Position-cap check: all buys together may not take the position above max(cap, position), and all
 * sells together may not take it below min(−cap, position). With |position| ≤ cap this is exactly
 * |position + buys| ≤ cap and |position − sells| ≤ cap; beyond the cap only the reducing side may
 * quote, and it may not overshoot past the cap on the other side.
 */
export function positionCapProblems(
  snapshot: StrategySnapshot,
  quotes: readonly DesiredQuote[],
  positionCap: string,
): string[] {
  const pos = parseDecimal(snapshot.position?.size ?? '0')
  const cap = parseDecimal(positionCap)
  let scale = Math.max(pos.scale, cap.scale)
  for (const q of quotes) scale = Math.max(scale, parseDecimal(q.qty).scale)
  const p = pos.units * pow10(scale - pos.scale)
  const c = cap.units * pow10(scale - cap.scale)
  let buys = 0n
  let sells = 0n
  for (const q of quotes) {
    const f = parseDecimal(q.qty)
    const units = f.units * pow10(scale - f.scale)
    if (q.side === 'buy') buys += units
    else sells += units
  }
  const issues: string[] = []
  const upper = maxBigint(c, p)
  const lower = minBigint(-c, p)
  if (p + buys > upper) {
    issues.push(
      `buys ${fromTicks(buys, scale)} would take position ${fromTicks(p, scale)} above the cap ${positionCap}`,
    )
  }
  if (p - sells < lower) {
    issues.push(
      `sells ${fromTicks(sells, scale)} would take position ${fromTicks(p, scale)} below the cap -${positionCap}`,
    )
  }
  return issues
}
