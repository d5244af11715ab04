/**
 * Price guard: the last check on prices before a plan goes to the gateway to be signed. Pure, exact
 * decimal math (no float reaches a decision).
 *
 * Index screening (`screenIndex`), applied to every index input before the actor stores it:
 * - implausible values are rejected outright: not a positive decimal, more than
 *   `MAX_INDEX_INTEGER_DIGITS` integer digits or `MAX_INDEX_FRACTION_DIGITS` fraction digits (a
 *   40-digit index is a venue fault, not a price);
 * - a value that moved more than `maxIndexJump` (a fraction) from the last accepted index is held
 *   back; it is accepted only once `INDEX_CONFIRMATIONS` updates in a row agree with it within the
 *   same fraction (a real gap persists, a glitch does not). Meanwhile the stored index ages, so the
 *   usual staleness halt applies.
 *
 * Plan guarding (`guardPlan`): every create and modify price must lie within the instrument's
 * `price_bounds` around the reference (the last accepted index): ref × (1 − b) ≤ p ≤ ref × (1 + b).
 * Creates outside are dropped; a modify outside is turned into a cancel of that order (the strategy no
 * longer wants it where it rests, and it may not go where it asked). Cancels always pass. With no
 * reference every create and modify is dropped; bounds of 0 (unknown) leave prices unbounded except for
 * being positive.
 *
 * Sizes, in the same pass when `sizes` is given (issue 24): each create and modify must pass the
 * venue's size rules (`orderSizeProblem`: quantity at the instrument's decimals, below 10^15
 * contracts, minimum notional, maximum limit or market notional), dropped or cancelled like a price
 * outside the band; then the orders resting after the plan, all filled, may not take the position past
 * the strategy's cap (`capExcess`): creates on the offending side are dropped from the last, then its
 * modifies are cancelled, until it fits. So a 44-digit size never reaches the signer.
 */
import {
  addDecimal,
  compareDecimal,
  decimalFacts,
  type Fixed,
  mulDecimal,
  pow10,
  subDecimal,
} from '../../decimal.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import {
  capExcess,
  type OrderSizeLimits,
  orderSizeProblem,
  type SizedOrder,
} from '../../strategy/orderSize.ts'
import type { OrderPlan } from './orderPlan.ts'

/** An index with more integer digits than this (≥ 10^15) is a fault, not a price. */
export const MAX_INDEX_INTEGER_DIGITS = 15
/** An index with more fraction digits than this is a fault (venue prices carry at most 8). */
export const MAX_INDEX_FRACTION_DIGITS = 18
/** Updates in a row (the first included) that must agree before a jumped index is accepted. */
export const INDEX_CONFIRMATIONS = 3

export interface IndexScreenState {
  /** The last accepted index price. */
  readonly lastGood: string | undefined
  /** A jumped value being confirmed, and how many updates in a row have agreed with it. */
  readonly candidate: { readonly price: string; readonly count: number } | undefined
}

export type IndexVerdict =
  | { accepted: true; candidate: undefined; note?: string | undefined }
  | { accepted: false; candidate: IndexScreenState['candidate']; reason: string }

/** Shortened for logs: a hostile value may be megabytes long. */
const show = (s: string): string => (s.length > 24 ? `${s.slice(0, 24)}…(${s.length} chars)` : s)

/**
 * A decimal of at most 64 characters parsed, or undefined. The same index, bounds and quote prices
 * come back on every input: `decimalFacts` answers them from its cache by spelling in one lookup.
 */
function parseCached(s: string): Fixed | undefined {
  return s.length <= 64 ? decimalFacts(s) : undefined
}

const INDEX_RE = /^(-)?(\d+)(?:\.(\d+))?$/

/** Why `price` cannot be an index at all, or undefined when it is a plausible positive decimal. */
export function implausibleIndex(price: string): string | undefined {
  // Length first: a hostile value may be megabytes long.
  const m = price.length > 64 ? null : INDEX_RE.exec(price)
  if (m === null) return `index ${JSON.stringify(show(price))} is not a decimal price`
  const int = m[2] ?? ''
  const frac = m[3] ?? ''
  if (int.length > MAX_INDEX_INTEGER_DIGITS && int.replace(/^0+/, '').length > MAX_INDEX_INTEGER_DIGITS)
    return `index ${show(price)} has more than ${MAX_INDEX_INTEGER_DIGITS} integer digits`
  if (frac.length > MAX_INDEX_FRACTION_DIGITS)
    return `index ${show(price)} has more than ${MAX_INDEX_FRACTION_DIGITS} fraction digits`
  if (m[1] !== undefined || !/[1-9]/.test(price)) return `index ${show(price)} is not positive`
  return undefined
}

/** True when |a − b| ≤ b × fraction, exactly (false when any is not a decimal). */
export function withinFraction(a: string, b: string, fraction: string): boolean {
  const fa = parseCached(a)
  const fb = parseCached(b)
  const ff = parseCached(fraction)
  if (fa === undefined || fb === undefined || ff === undefined) return false
  const scale = Math.max(fa.scale, fb.scale)
  const x = fa.units * pow10(scale - fa.scale)
  const y = fb.units * pow10(scale - fb.scale)
  const diff = x > y ? x - y : y - x
  // diff / 10^scale ≤ (y / 10^scale) × (ff.units / 10^ff.scale)  ⇔  diff × 10^ff.scale ≤ y × ff.units
  return diff * pow10(ff.scale) <= (y < 0n ? -y : y) * ff.units
}

/** Relative move in percent, for messages only. */
const movePct = (from: string, to: string): string =>
  `${((Math.abs(Number(to) - Number(from)) / Number(from)) * 100).toPrecision(3)}%`

/**
 * Decides whether an index update may be stored. `maxIndexJump` is a decimal fraction ("0.1" = 10%);
 * "0" disables the jump check (plausibility still applies).
 */
export function screenIndex(price: string, state: IndexScreenState, maxIndexJump: string): IndexVerdict {
  const bad = implausibleIndex(price)
  if (bad !== undefined) return { accepted: false, candidate: state.candidate, reason: bad }
  const { lastGood } = state
  const jump = parseCached(maxIndexJump)
  if (lastGood === undefined || jump === undefined || jump.units <= 0n) {
    return { accepted: true, candidate: undefined }
  }
  if (withinFraction(price, lastGood, maxIndexJump)) return { accepted: true, candidate: undefined }
  const c = state.candidate
  const count = c !== undefined && withinFraction(price, c.price, maxIndexJump) ? c.count + 1 : 1
  if (count >= INDEX_CONFIRMATIONS) {
    return {
      accepted: true,
      candidate: undefined,
      note: `index moved ${movePct(lastGood, price)} from ${lastGood} to ${price} and held for ${count} updates: accepted`,
    }
  }
  return {
    accepted: false,
    candidate: { price, count },
    reason: `index ${show(price)} jumped ${movePct(lastGood, price)} from the last good ${lastGood} (max ${maxIndexJump}; ${count}/${INDEX_CONFIRMATIONS} confirmations)`,
  }
}

export interface PriceBand {
  readonly low: string
  readonly high: string
}

/** The allowed price band around `reference`, or undefined when bounds are unknown (≤ 0). */
export function priceBand(reference: string, priceBounds: string): PriceBand | undefined {
  if (compareDecimal(priceBounds, '0') <= 0) return undefined
  const low = mulDecimal(reference, subDecimal('1', priceBounds))
  const high = mulDecimal(reference, addDecimal('1', priceBounds))
  return { low, high }
}

/** What the size rules need: the instrument's limits, and for the cap the position and live orders. */
export interface SizeGuard {
  readonly limits: OrderSizeLimits
  /** The strategy's position cap (absent: no cap check). */
  readonly positionCap?: string | undefined
  /** Signed position size, decimal string (absent: flat). */
  readonly position?: string | undefined
  /** The orders resting now (the plan's modifies and cancels refer to them). */
  readonly live: readonly Order[]
}

export interface GuardResult {
  plan: OrderPlan
  /** One reason per dropped create or modify (empty when everything passed). */
  dropped: string[]
}

/** A band as exact fixed-point bounds: low = units_low / 10^scale, high = units_high / 10^scale. */
interface FixedBand {
  low: bigint
  high: bigint
  scale: number
}

/** The band of `priceBand` in exact fixed point (no string round trips): ref × (1 ∓ b). */
function fixedBand(reference: string, priceBounds: string): FixedBand | undefined {
  const b = parseCached(priceBounds)
  const ref = parseCached(reference)
  if (b === undefined || ref === undefined || b.units <= 0n) return undefined
  const one = pow10(b.scale)
  return { low: ref.units * (one - b.units), high: ref.units * (one + b.units), scale: ref.scale + b.scale }
}

/** Why `p` may not be signed, or undefined when it may. */
function priceProblem(p: string | undefined, band: FixedBand | undefined, g: GuardInput): string | undefined {
  if (p === undefined) return 'no price'
  const f = parseCached(p)
  if (f === undefined || f.units <= 0n) return `price ${show(p)} is not positive`
  if (band === undefined) return undefined
  // Compare at a common scale: p × 10^(s − f.scale) against the band's units × 10^(s − band.scale).
  const scale = Math.max(f.scale, band.scale)
  const x = f.units * pow10(scale - f.scale)
  const k = pow10(scale - band.scale)
  if (x < band.low * k) return `price ${show(p)} below ${shownBand(g)?.low}`
  if (x > band.high * k) return `price ${show(p)} above ${shownBand(g)?.high}`
  return undefined
}

/**
 * One guard call's inputs. The helpers below take it rather than closing over it: under tsx
 * (`keepNames`) a named closure costs an `Object.defineProperty` each time it is created.
 */
interface GuardInput {
  reference: string | undefined
  priceBounds: string
  sizes: SizeGuard | undefined
  band: FixedBand | undefined
}

/** The band as logged (strings), computed only for a message. */
const shownBand = (g: GuardInput): PriceBand | undefined =>
  g.reference === undefined ? undefined : priceBand(g.reference, g.priceBounds)

const roOf = (g: GuardInput, oid: number): boolean => g.sizes?.live.find((o) => o.oid === oid)?.ro ?? false

/** Why an order at `p` × `qty` may not be signed, or undefined when it may. */
function problem(g: GuardInput, p: string | undefined, qty: string, ro: boolean): string | undefined {
  if (g.reference === undefined) return 'no index to check the price against'
  return (
    priceProblem(p, g.band, g) ??
    (g.sizes === undefined ? undefined : orderSizeProblem(qty, p, g.reference, g.sizes.limits, ro))
  )
}

/**
 * Drops creates and modifies priced outside the band around `reference` and, with `sizes`, those
 * whose size breaks the venue's rules or the position cap (see the header). Returns the same plan
 * object when nothing was dropped (the hot path allocates nothing but the checks).
 */
export function guardPlan(
  plan: OrderPlan,
  reference: string | undefined,
  priceBounds: string,
  sizes?: SizeGuard | undefined,
): GuardResult {
  if (plan.create.length + plan.modify.length === 0) return { plan, dropped: [] }
  const g: GuardInput = {
    reference,
    priceBounds,
    sizes,
    band: reference === undefined ? undefined : fixedBand(reference, priceBounds),
  }
  const capped = sizes?.positionCap
  if (
    plan.create.every((c) => problem(g, c.p, c.qty, c.ro === true) === undefined) &&
    plan.modify.every((m) => problem(g, m.p, m.qty, roOf(g, m.oid)) === undefined) &&
    (sizes === undefined || capped === undefined || !overCap(plan, sizes, capped))
  )
    return { plan, dropped: [] }
  const dropped: string[] = []
  const create = plan.create.filter((c) => {
    const why = problem(g, c.p, c.qty, c.ro === true)
    if (why !== undefined)
      dropped.push(`create ${c.buy ? 'buy' : 'sell'} ${show(c.qty)}@${c.p ?? '?'}: ${why}`)
    return why === undefined
  })
  const cancel = [...plan.cancel]
  const modify = plan.modify.filter((m) => {
    const why = problem(g, m.p, m.qty, roOf(g, m.oid))
    if (why !== undefined) {
      dropped.push(`modify ${m.oid} to ${show(m.qty)}@${m.p}: ${why} (cancelled instead)`)
      if (!cancel.includes(m.oid)) cancel.push(m.oid)
    }
    return why === undefined
  })
  const guarded = { ...plan, modify, create, cancel }
  if (sizes !== undefined && capped !== undefined) trimToCap(guarded, sizes, capped, dropped)
  return { plan: guarded, dropped }
}

/** The orders resting once `plan` is applied: live ones not cancelled (modified at their new size), plus creates. */
function restingAfter(plan: OrderPlan, live: readonly Order[]): SizedOrder[] {
  const modified = new Map(plan.modify.map((m) => [m.oid, m.qty]))
  const out: SizedOrder[] = []
  for (const o of live) {
    if (plan.cancel.includes(o.oid)) continue
    out.push({ buy: o.buy, qty: modified.get(o.oid) ?? o.rest })
  }
  for (const c of plan.create) out.push({ buy: c.buy, qty: c.qty })
  return out
}

function overCap(plan: OrderPlan, sizes: SizeGuard, cap: string): boolean {
  const x = capExcess(sizes.position, cap, restingAfter(plan, sizes.live))
  return x.buys || x.sells
}

/** Drops creates (last first), then cancels modifies, on a side past the cap, until it fits. */
function trimToCap(plan: OrderPlan, sizes: SizeGuard, cap: string, dropped: string[]): void {
  for (const buy of [true, false]) {
    const over = (): boolean => {
      const x = capExcess(sizes.position, cap, restingAfter(plan, sizes.live))
      return buy ? x.buys : x.sells
    }
    const side = buy ? 'buy' : 'sell'
    for (let i = plan.create.length - 1; i >= 0 && over(); i--) {
      const c = plan.create[i]
      if (c === undefined || c.buy !== buy) continue
      plan.create.splice(i, 1)
      dropped.push(`create ${side} ${show(c.qty)}@${c.p ?? '?'}: would take the position past the cap ${cap}`)
    }
    for (let i = plan.modify.length - 1; i >= 0 && over(); i--) {
      const m = plan.modify[i]
      const o = m === undefined ? undefined : sizes.live.find((x) => x.oid === m.oid)
      if (m === undefined || o === undefined || o.buy !== buy) continue
      plan.modify.splice(i, 1)
      if (!plan.cancel.includes(m.oid)) plan.cancel.push(m.oid)
      dropped.push(
        `modify ${m.oid} to ${show(m.qty)}@${m.p}: would take the position past the cap ${cap} (cancelled instead)`,
      )
    }
  }
}
