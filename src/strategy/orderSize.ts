/**
 * The venue's size rules for one order, and the position cap over a whole plan, checked in exact
 * integer math just before signing (the bot's price guard runs them beside the price bounds). A
 * strategy's quotes have passed `validateQuotes` already; this is the last line, so a hostile or
 * mistaken size (44 digits, a finer quantity than the instrument takes, a notional above the venue's
 * maximum) never reaches the wire, whatever produced it.
 *
 * Per order: a plain positive decimal of at most 64 characters; at most `quantityDecimals` decimals;
 * below 10^15 contracts; at most 5 significant figures; notional (price × quantity) at least
 * `minNotional` (reduce-only orders exempt, as on the venue: closing dust must work) and at most the
 * maximum limit notional (a priced order) or maximum market notional (an unpriced one, valued at the
 * reference price). Limits of "0" or absent are not applied.
 */
import { type DecimalFacts, decimalFacts, pow10 } from '../decimal.ts'
import { MAX_QUANTITY_INTEGER_DIGITS } from './params.ts'
import { MAX_SIG_FIGS } from './quoting.ts'

export interface OrderSizeLimits {
  readonly quantityDecimals: number
  readonly minNotional: string
  /** Largest notional of a priced order ("0" or absent: not limited). */
  readonly maxLimitNotional?: string | undefined
  /** Largest notional of an unpriced (market) order ("0" or absent: not limited). */
  readonly maxMarketNotional?: string | undefined
}

interface Fixed {
  units: bigint
  scale: number
}

/** Shortened for messages: a hostile value may be megabytes long. */
const show = (s: string): string => (s.length > 24 ? `${s.slice(0, 24)}…(${s.length} chars)` : s)

function parseBounded(s: string | undefined): DecimalFacts | undefined {
  if (s === undefined || s.length > 64) return undefined
  return decimalFacts(s)
}

/** a × b compared with c, exactly: -1, 0 or 1. */
function compareProduct(a: Fixed, b: Fixed, c: Fixed): number {
  const left = a.units * b.units * pow10(c.scale)
  const right = c.units * pow10(a.scale + b.scale)
  return left < right ? -1 : left > right ? 1 : 0
}

/**
 * Why an order of `qty` at `price` may not be signed, or undefined when it may. `price` undefined is
 * an unpriced (market) order, valued at `reference` for the maximum market notional.
 */
export function orderSizeProblem(
  qty: string,
  price: string | undefined,
  reference: string | undefined,
  limits: OrderSizeLimits,
  reduceOnly = false,
): string | undefined {
  const q = parseBounded(qty)
  if (q === undefined) return `quantity ${JSON.stringify(show(qty))} is not a decimal`
  if (q.units <= 0n) return `quantity ${show(qty)} is not positive`
  if (q.places > limits.quantityDecimals)
    return `quantity ${show(qty)} has more than ${limits.quantityDecimals} decimals`
  // More integer digits than the limit: the integer part (units / 10^scale) reaches 10^limit.
  if (q.units >= pow10(MAX_QUANTITY_INTEGER_DIGITS + q.scale))
    return `quantity ${show(qty)} is 10^${MAX_QUANTITY_INTEGER_DIGITS} contracts or more`
  if (q.figures > MAX_SIG_FIGS)
    return `quantity ${show(qty)} has more than ${MAX_SIG_FIGS} significant figures`
  const p = parseBounded(price ?? reference)
  // Without a price to value it at, no notional rule can be checked: refuse rather than guess.
  if (p === undefined || p.units <= 0n)
    return `no price to check the notional of quantity ${show(qty)} against`
  const min = parseBounded(limits.minNotional)
  if (!reduceOnly && min !== undefined && min.units > 0n && compareProduct(q, p, min) < 0)
    return `notional ${show(qty)} × ${show(price ?? reference ?? '?')} is below the minimum ${limits.minNotional}`
  const maxText = price === undefined ? limits.maxMarketNotional : limits.maxLimitNotional
  const max = parseBounded(maxText)
  if (max !== undefined && max.units > 0n && compareProduct(q, p, max) > 0)
    return `notional ${show(qty)} × ${show(price ?? reference ?? '?')} is above the maximum ${price === undefined ? 'market' : 'limit'} notional ${maxText}`
  return undefined
}

/** One order's side and quantity, as the cap sees it. */
export interface SizedOrder {
  readonly buy: boolean
  readonly qty: string
}

/** `f` in units of 10^-scale (scale ≥ f.scale); not a closure: see quoteDiff.ts `atScale`. */
const atScale = (f: Fixed, scale: number): bigint => f.units * pow10(scale - f.scale)

/**
 * How far the orders resting after a plan could move the position: all buys filled take it up by
 * `buys`, all sells down by `sells`. With |position| ≤ cap the cap holds when position + buys ≤ cap
 * and position − sells ≥ −cap; beyond it only the reducing side may rest (it may not overshoot past
 * the cap on the other side): the same rule as `positionCapProblems` on a strategy's quotes.
 */
export function capExcess(
  position: string | undefined,
  cap: string,
  orders: readonly SizedOrder[],
): { buys: boolean; sells: boolean } {
  const pos = parseBounded(position ?? '0') ?? { units: 0n, scale: 0 }
  const c = parseBounded(cap)
  if (c === undefined) return { buys: false, sells: false }
  const parsed = orders.map((o) => ({ buy: o.buy, q: parseBounded(o.qty) }))
  let scale = Math.max(pos.scale, c.scale)
  for (const o of parsed) if (o.q !== undefined) scale = Math.max(scale, o.q.scale)
  const p = atScale(pos, scale)
  const capUnits = atScale(c, scale)
  let buys = 0n
  let sells = 0n
  for (const o of parsed) {
    // An unparseable quantity counts as unbounded: it is dropped by the size rules anyway.
    if (o.q === undefined) return { buys: o.buy, sells: !o.buy }
    if (o.buy) buys += atScale(o.q, scale)
    else sells += atScale(o.q, scale)
  }
  const upper = capUnits > p ? capUnits : p
  const lower = -capUnits < p ? -capUnits : p
  return { buys: p + buys > upper, sells: p - sells < lower }
}
