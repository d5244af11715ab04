/**
 * Quote diff: the fewest venue actions that turn this instrument's live orders into the desired
 * quotes. Pure: the caller passes `now`.
 *
 * Matching. Live orders take part only when they belong to the instrument, rest > 0 and their status
 * is `open`, `partial` or `accepted`; any other order is left alone. Desired quotes and live orders are
 * grouped by (side, reduce-only): modifyOrders cannot change the reduce-only flag, so an order is only
 * ever reused for a quote with the same flag. Within a group the pairing is an exact minimum-action
 * assignment (keep 0, modify 1, cancel+create 2, create or cancel 1), ties broken by the smaller price
 * distances (inner levels, then lower oids first), so it pairs level to level, is stable when prices
 * move together, and is idempotent: applying a diff leaves nothing for the next one to do.
 *
 * Keep, modify or replace. A paired order is kept when all hold:
 * - price: |live − desired| ≤ max(priceTicks, ⌊desired × priceBps / 10000⌋) ticks (the looser wins);
 * - quantity: |rest − desired qty| ≤ desired qty × qtyFraction (default 0: exact);
 * - age: now − uts < maxOrderAgeMs (maxOrderAgeMs ≤ 0 disables the age refresh).
 * Otherwise it is modified to the desired price with total quantity = fill + desired qty, so its
 * resting quantity becomes the desired qty and the total never drops below the filled quantity. When
 * that total is not a valid quantity (more decimals or significant figures than allowed) the order is
 * cancelled and the quote created anew. Unpaired desired quotes are created; unpaired live orders are
 * cancelled.
 */
import {
  type DecimalFacts,
  decimalFacts,
  type Fixed,
  fromTicks,
  pow10,
  rescale,
  toTicks,
} from '../../decimal.ts'
import { InputValidationError } from '../../errors.ts'
import type { ModifyOrderInput, Order, TimeInForce } from '../../perps/schemas/orders.ts'
import { maxBigint } from '../../strategy/quoting.ts'
import type { DesiredQuote } from '../../strategy/strategy.ts'
import { itemAt } from '../shared/itemAt.ts'
import { minCostAssignment } from './assignment.ts'
import type { OrderPlan, PlannedCreate } from './orderPlan.ts'

export { minCostAssignment } from './assignment.ts'

/** Statuses of orders the diff may reuse or cancel. */
export const DIFFABLE_ORDER_STATUSES: ReadonlySet<string> = new Set(['open', 'partial', 'accepted'])

const MAX_QTY_SIG_FIGS = 5

export interface QuoteDiffTolerance {
  /** A live price within this many ticks of the desired price is kept. */
  priceTicks: number
  /** …or within this many bps of the desired price (fractions allowed, to 0.01 bps), whichever is looser. */
  priceBps: number
  /** Keep when |rest − desired| ≤ desired × qtyFraction; default 0 (exact). */
  qtyFraction?: number | undefined
  /** Orders whose last update (`uts`) is at least this old are refreshed by a modify; ≤ 0 disables. */
  maxOrderAgeMs: number
}

export interface QuoteDiffInstrument {
  readonly id: number
  readonly priceDecimals: number
  readonly quantityDecimals: number
}

export interface QuoteDiffInput {
  readonly desired: readonly DesiredQuote[]
  /** Live orders (others' instruments and non-live statuses are ignored). */
  readonly live: readonly Order[]
  readonly instrument: QuoteDiffInstrument
  /** Unix ms. */
  readonly now: number
  readonly tolerance: QuoteDiffTolerance
  /** Fields of created orders; default GTC post-only (a maker quote must never take). */
  readonly createOptions?: { tif?: TimeInForce | undefined; postOnly?: boolean | undefined } | undefined
}

/** The plan itself: items are the client's own parameters (a quote's `coid` rides on its create). */
export interface QuoteDiff extends OrderPlan {
  modify: ModifyOrderInput[]
  create: PlannedCreate[]
  /** Order ids, ascending. */
  cancel: number[]
}

interface DesiredItem {
  index: number
  quote: DesiredQuote
  price: bigint
  qty: bigint
}

interface LiveItem {
  order: Order
  price: bigint
  rest: bigint
  fill: bigint
}

/** Computes the actions that make `live` match `desired`; see the module comment for the rules. */
export function diffQuotes(input: QuoteDiffInput): QuoteDiff {
  const { instrument, tolerance, now } = input
  const pd = instrument.priceDecimals
  const qd = instrument.quantityDecimals
  // Work at scales that hold both the instrument's decimals and any extra digits live orders carry.
  // (Loops, not spreads of mapped arrays: this runs for every plan.)
  // Each live decimal parsed once (its facts hold its places too).
  const live: { order: Order; p: Fixed; rest: Fixed; fill: Fixed }[] = []
  let ps = pd
  let qs = qd
  for (const o of input.live) {
    if (o.iid !== instrument.id || !DIFFABLE_ORDER_STATUSES.has(o.status)) continue
    const rest = facts(o.rest)
    if (rest.units <= 0n) continue
    const p = facts(o.p)
    const fill = facts(o.fill)
    live.push({ order: o, p, rest, fill })
    ps = Math.max(ps, p.places)
    qs = Math.max(qs, rest.places, fill.places)
  }
  const priceUnit = pow10(ps - pd)
  const bpsHundredths = BigInt(Math.max(0, Math.floor(tolerance.priceBps * 100)))
  const tickTol = BigInt(Math.max(0, Math.floor(tolerance.priceTicks)))
  const qtyPpm = BigInt(Math.max(0, Math.floor((tolerance.qtyFraction ?? 0) * 1_000_000)))

  const desired: DesiredItem[] = input.desired.map((quote, index) => ({
    index,
    quote,
    // Exact: desired quotes must already be valid for the instrument.
    price: toTicks(quote.price, pd) * priceUnit,
    qty: toTicks(quote.qty, qd) * pow10(qs - qd),
  }))
  const liveItems: LiveItem[] = live.map((l) => ({
    order: l.order,
    price: rescale(l.p, ps),
    rest: rescale(l.rest, qs),
    fill: rescale(l.fill, qs),
  }))

  const scales: DiffScales = {
    pd,
    qd,
    qs,
    priceUnit,
    qtyUnit: pow10(qs - qd),
    bpsHundredths,
    tickTol,
    qtyPpm,
    maxOrderAgeMs: tolerance.maxOrderAgeMs,
    now,
  }
  // By (side, reduce-only); the order of the groups does not matter, every output list is sorted.
  const groups: Group[] = [newGroup(true), newGroup(true), newGroup(false), newGroup(false)]
  for (const d of desired)
    groupOf(groups, d.quote.side === 'buy', d.quote.reduceOnly === true).desired.push(d)
  for (const l of liveItems) groupOf(groups, l.order.buy, l.order.ro).live.push(l)

  const modifies: { index: number; mod: ModifyOrderInput }[] = []
  const creates: DesiredItem[] = []
  const cancels: number[] = []
  for (const g of groups) {
    if (g.desired.length === 0 && g.live.length === 0) continue
    const pairing = pairGroup(g.desired, g.live, g.buy, scales)
    for (const { d, l, c } of pairing.pairs) {
      if (c === KEEP) continue
      if (c === REPLACE) {
        cancels.push(l.order.oid)
        creates.push(d)
      } else {
        modifies.push({
          index: d.index,
          mod: { oid: l.order.oid, p: fromTicks(d.price / priceUnit, pd), qty: c },
        })
      }
    }
    for (const d of pairing.unpairedDesired) creates.push(d)
    for (const l of pairing.unpairedLive) cancels.push(l.order.oid)
  }

  const tif = input.createOptions?.tif ?? 'gtc'
  const po = input.createOptions?.postOnly ?? true
  return {
    modify: modifies.sort((a, b) => a.index - b.index).map((m) => m.mod),
    create: creates
      .sort((a, b) => a.index - b.index)
      .map((d) => ({
        iid: instrument.id,
        buy: d.quote.side === 'buy',
        p: fromTicks(d.price / priceUnit, pd),
        qty: fromTicks(d.qty / scales.qtyUnit, qd),
        tif,
        po,
        ...(d.quote.reduceOnly === true ? { ro: true } : {}),
        ...(d.quote.coid !== undefined ? { coid: d.quote.coid } : {}),
      })),
    cancel: cancels.sort((a, b) => a - b),
  }
}

/**
 * A live order's decimal parsed (as `parseDecimal`, which throws on a non-decimal). Module-level, as
 * every helper on this path: under tsx (`keepNames`) a named closure costs an `Object.defineProperty`
 * each time it is created.
 */
const facts = (s: string): DecimalFacts => {
  const f = decimalFacts(s)
  if (f === undefined) throw new InputValidationError(`not a decimal string: ${JSON.stringify(s)}`)
  return f
}

/** The scales and tolerances one diff works at. */
interface DiffScales {
  pd: number
  qd: number
  /** Quantity scale (≥ qd: live orders may carry extra digits). */
  qs: number
  /** 10^(price scale − pd) and 10^(qs − qd). */
  priceUnit: bigint
  qtyUnit: bigint
  bpsHundredths: bigint
  tickTol: bigint
  qtyPpm: bigint
  maxOrderAgeMs: number
  now: number
}

type Group = { buy: boolean; desired: DesiredItem[]; live: LiveItem[] }

const newGroup = (buy: boolean): Group => ({ buy, desired: [], live: [] })

/** The group of (buy, ro) in `newGroup`'s order: buy plain, buy ro, sell plain, sell ro. */
const groupOf = (groups: readonly Group[], buy: boolean, ro: boolean): Group =>
  itemAt(groups, (buy ? 0 : 2) + (ro ? 1 : 0))

/** What turning a live order into a desired quote takes: keep, replace, or a modify to this total qty. */
type Classified = typeof KEEP | typeof REPLACE | string
const KEEP = 0
const REPLACE = 1

function classify(d: DesiredItem, l: LiveItem, x: DiffScales): Classified {
  const tolTicks =
    maxBigint(x.tickTol, ((d.price / x.priceUnit) * x.bpsHundredths) / 1_000_000n) * x.priceUnit
  const priceOk = abs(d.price - l.price) <= tolTicks
  const qtyOk = abs(l.rest - d.qty) * 1_000_000n <= d.qty * x.qtyPpm
  const fresh = x.maxOrderAgeMs <= 0 || x.now - l.order.uts < x.maxOrderAgeMs
  if (priceOk && qtyOk && fresh) return KEEP
  const total = fromTicks(l.fill + d.qty, x.qs)
  const t = facts(total)
  return t.places <= x.qd && t.figures <= MAX_QTY_SIG_FIGS ? total : REPLACE
}

/** Action cost of a classification: keep 0, modify 1, cancel+create 2. */
const actionCost = (c: Classified): number => (c === KEEP ? 0 : c === REPLACE ? 2 : 1)

/** True when the diff has nothing to do. */
export function isEmptyDiff(diff: QuoteDiff): boolean {
  return diff.modify.length === 0 && diff.create.length === 0 && diff.cancel.length === 0
}

/**
 * Pairs one (side, reduce-only) group with the fewest actions: an exact min-cost assignment where a
 * kept pair costs 0, a modify 1, a cancel+create 2, an unpaired quote (create) or order (cancel) 1.
 * Ties go to the smaller price distances (inner levels, then lower oids first), so pairing is level
 * to level and stable. Minimality makes the diff idempotent: once applied, every quote has an order
 * it keeps, so the next diff is empty.
 */
function pairGroup(
  desired: readonly DesiredItem[],
  live: readonly LiveItem[],
  buy: boolean,
  x: DiffScales,
): {
  pairs: { d: DesiredItem; l: LiveItem; c: Classified }[]
  unpairedDesired: DesiredItem[]
  unpairedLive: LiveItem[]
} {
  if (desired.length === 0 || live.length === 0) {
    return { pairs: [], unpairedDesired: [...desired], unpairedLive: [...live] }
  }
  // One quote and one order (a one-level ladder's side): pairing them is optimal. A keep or modify
  // beats create + cancel; a replace is the same cancel and create either way.
  const [d0] = desired
  const [l0] = live
  if (desired.length === 1 && live.length === 1 && d0 !== undefined && l0 !== undefined) {
    return { pairs: [{ d: d0, l: l0, c: classify(d0, l0, x) }], unpairedDesired: [], unpairedLive: [] }
  }
  // Inner levels first: best bid is the highest price, best ask the lowest.
  const ds = [...desired].sort((a, b) =>
    a.price === b.price ? a.index - b.index : a.price > b.price === buy ? -1 : 1,
  )
  // The common case, every quote already resting within tolerance: a pairing that keeps every order
  // costs no action, which no assignment beats, so the group has nothing to do whichever such pairing
  // the solver would pick. Level by level in price order finds it when it exists in the usual ladder.
  if (ds.length === live.length) {
    const byPrice = [...live].sort((a, b) =>
      a.price === b.price ? a.order.oid - b.order.oid : a.price > b.price === buy ? -1 : 1,
    )
    const pairs: { d: DesiredItem; l: LiveItem; c: Classified }[] = []
    for (let i = 0; i < ds.length; i++) {
      const d = itemAt(ds, i)
      const l = itemAt(byPrice, i)
      if (classify(d, l, x) !== KEEP) break
      pairs.push({ d, l, c: KEEP })
    }
    if (pairs.length === ds.length) return { pairs, unpairedDesired: [], unpairedLive: [] }
  }
  const ls = [...live].sort((a, b) => a.order.oid - b.order.oid)
  // Secondary cost: the rank of each pair's price distance (ties by level, then oid).
  const ranked = ds
    .flatMap((d, i) => ls.map((l, j) => ({ i, j, dist: abs(d.price - l.price) })))
    .sort((a, b) => (a.dist !== b.dist ? (a.dist < b.dist ? -1 : 1) : a.i - b.i || a.j - b.j))
  const distRank = ds.map(() => new Array<number>(ls.length).fill(0))
  ranked.forEach((r, rank) => {
    itemAt(distRank, r.i)[r.j] = rank
  })
  // Each pair is classified once, for its cost and for the action it becomes.
  const kinds = ds.map((d) => ls.map((l) => classify(d, l, x)))
  // Actions dominate: the sum of ranks over any assignment stays below one action's weight.
  const n = ds.length + ls.length
  const weight = (ranked.length + 1) * n
  const cost: number[][] = []
  for (let r = 0; r < n; r++) {
    const row: number[] = []
    for (let c = 0; c < n; c++) {
      const d = ds[r]
      const l = ls[c]
      if (d !== undefined && l !== undefined) {
        row.push(actionCost(itemAt(itemAt(kinds, r), c)) * weight + (distRank[r]?.[c] ?? 0))
      } else if (d !== undefined || l !== undefined) {
        row.push(weight) // create d or cancel l
      } else {
        row.push(0)
      }
    }
    cost.push(row)
  }
  const assignment = minCostAssignment(cost)
  const pairs: { d: DesiredItem; l: LiveItem; c: Classified }[] = []
  const unpairedDesired: DesiredItem[] = []
  const pairedLive = new Set<number>()
  ds.forEach((d, r) => {
    const c = assignment[r] ?? -1
    const l = ls[c]
    if (l === undefined) unpairedDesired.push(d)
    else {
      pairs.push({ d, l, c: itemAt(itemAt(kinds, r), c) })
      pairedLive.add(c)
    }
  })
  return { pairs, unpairedDesired, unpairedLive: ls.filter((_, c) => !pairedLive.has(c)) }
}

function abs(x: bigint): bigint {
  return x < 0n ? -x : x
}
