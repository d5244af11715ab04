import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DIFFABLE_ORDER_STATUSES,
  diffQuotes,
  isEmptyDiff,
  type QuoteDiff,
  type QuoteDiffTolerance,
} from '../../../src/bot/quoting/quoteDiff.ts'
import {
  compareDecimal,
  decimalPlaces,
  fromTicks,
  significantFigures,
  subDecimal,
  toTicks,
} from '../../../src/decimal.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { roundQtyTicks } from '../../../src/strategy/quoting.ts'
import type { DesiredQuote } from '../../../src/strategy/strategy.ts'
import { NOW, none, order } from './quoteDiffFixtures.ts'

// ---------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------

const STATUSES = ['open', 'partial', 'accepted', 'filled', 'cancelled'] as const

interface Case {
  pd: number
  qd: number
  desired: DesiredQuote[]
  live: Order[]
  tolerance: QuoteDiffTolerance
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({ pd: fc.integer({ min: 0, max: 4 }), qd: fc.integer({ min: 0, max: 4 }) })
  .chain(({ pd, qd }) => {
    const quote = fc
      .record({
        buy: fc.boolean(),
        ro: fc.boolean(),
        p: fc.integer({ min: 1, max: 2_000 }),
        q: fc.integer({ min: 1, max: 1_000_000 }),
      })
      .map(
        ({ buy, ro, p, q }): DesiredQuote => ({
          side: buy ? 'buy' : 'sell',
          price: fromTicks(BigInt(p), pd),
          qty: fromTicks(roundQtyTicks(BigInt(q), qd), qd),
          ...(ro ? { reduceOnly: true } : {}),
        }),
      )
    return fc
      .record({ pd: fc.constant(pd), qd: fc.constant(qd), desired: fc.array(quote, { maxLength: 8 }) })
      .chain((c) => {
        // Live orders: copies of desired quotes nudged in price/size/age, and unrelated ones.
        const near = c.desired.map((d) =>
          fc
            .record({
              dp: fc.integer({ min: -3, max: 3 }),
              fill: fc.integer({ min: 0, max: 3 }),
              dq: fc.integer({ min: -1, max: 1 }),
              age: fc.integer({ min: 0, max: 300_000 }),
              flipRo: fc.boolean(),
              keep: fc.boolean(),
            })
            .map((n) => ({ d, ...n })),
        )
        const stray = fc.record({
          buy: fc.boolean(),
          ro: fc.boolean(),
          p: fc.integer({ min: 1, max: 2_000 }),
          q: fc.integer({ min: 1, max: 1_000 }),
          fill: fc.integer({ min: 0, max: 1_000 }),
          status: fc.constantFrom(...STATUSES),
          iid: fc.constantFrom(7, 7, 7, 8),
          age: fc.integer({ min: 0, max: 300_000 }),
        })
        return fc.record({
          base: fc.constant(c),
          near: fc.tuple(...near),
          stray: fc.array(stray, { maxLength: 4 }),
          tolerance: fc.record({
            priceTicks: fc.integer({ min: 0, max: 3 }),
            priceBps: fc.constantFrom(0, 0.5, 2, 10),
            qtyFraction: fc.constantFrom(undefined, 0, 0.1),
            maxOrderAgeMs: fc.constantFrom(0, 60_000, 200_000),
          }),
        })
      })
  })
  .map(({ base, near, stray, tolerance }): Case => {
    const { pd, qd } = base
    let oid = 100
    const live: Order[] = []
    for (const n of near) {
      if (!n.keep) continue
      const p = toTicks(n.d.price, pd) + BigInt(n.dp)
      const rest = toTicks(n.d.qty, qd) + BigInt(n.dq)
      if (p <= 0n || rest <= 0n) continue
      const fill = BigInt(n.fill)
      live.push(
        order({
          oid: oid++,
          buy: n.d.side === 'buy',
          ro: (n.d.reduceOnly === true) !== n.flipRo,
          p: fromTicks(p, pd),
          qty: fromTicks(rest + fill, qd),
          fill: fromTicks(fill, qd),
          rest: fromTicks(rest, qd),
          status: fill > 0n ? 'partial' : 'open',
          uts: NOW - n.age,
        }),
      )
    }
    for (const s of stray) {
      const fill = BigInt(Math.min(s.fill, s.q))
      live.push(
        order({
          oid: oid++,
          iid: s.iid,
          buy: s.buy,
          ro: s.ro,
          p: fromTicks(BigInt(s.p), pd),
          qty: fromTicks(BigInt(s.q), qd),
          fill: fromTicks(fill, qd),
          status: fill === BigInt(s.q) ? 'filled' : s.status,
          uts: NOW - s.age,
        }),
      )
    }
    const tol: QuoteDiffTolerance = { ...tolerance, qtyFraction: tolerance.qtyFraction }
    return { pd, qd, desired: base.desired, live, tolerance: tol }
  })

const run = (c: Case, live = c.live, tolerance = c.tolerance) =>
  diffQuotes({
    desired: c.desired,
    live,
    instrument: { id: 7, priceDecimals: c.pd, quantityDecimals: c.qd },
    now: NOW,
    tolerance,
  })

const diffable = (o: Order) =>
  o.iid === 7 && DIFFABLE_ORDER_STATUSES.has(o.status) && compareDecimal(o.rest, '0') > 0

/** The venue's view after the actions: modified orders get the new price/total, creates rest in full. */
function apply(live: readonly Order[], d: QuoteDiff): Order[] {
  const cancelled = new Set(d.cancel)
  const mods = new Map(d.modify.map((m) => [m.oid, m]))
  let next = 10_000
  const out = live
    .filter((o) => !cancelled.has(o.oid))
    .map((o) => {
      const m = mods.get(o.oid)
      return m === undefined ? o : { ...o, p: m.p, qty: m.qty, rest: subDecimal(m.qty, o.fill), uts: NOW }
    })
  for (const c of d.create) {
    out.push(
      order({ oid: next++, buy: c.buy, ro: c.ro === true, p: c.p ?? '0', qty: c.qty, uts: NOW, cts: NOW }),
    )
  }
  return out
}

const key = (buy: boolean, ro: boolean, p: string, rest: string) =>
  `${buy ? 'B' : 'S'}${ro ? 'r' : ''}@${p}x${rest}`

describe('quoteDiff properties', () => {
  const opts = { numRuns: 300 }

  it('only touches live orders of the instrument, each at most once, never below their fill', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const d = run(c)
        const touched = [...d.modify.map((m) => m.oid), ...d.cancel]
        expect(new Set(touched).size).toBe(touched.length)
        const byOid = new Map(c.live.map((o) => [o.oid, o]))
        for (const oid of touched) expect(diffable(byOid.get(oid) as Order)).toBe(true)
        for (const m of d.modify) {
          const o = byOid.get(m.oid) as Order
          expect(compareDecimal(m.qty, o.fill)).toBeGreaterThanOrEqual(0)
          expect(compareDecimal(m.qty, o.fill)).toBeGreaterThan(0)
          expect(decimalPlaces(m.qty)).toBeLessThanOrEqual(c.qd)
          expect(significantFigures(m.qty)).toBeLessThanOrEqual(5)
          expect(decimalPlaces(m.p)).toBeLessThanOrEqual(c.pd)
        }
      }),
      opts,
    )
  })

  it('applying the diff yields the desired set (exactly, with zero tolerance)', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const exact = { priceTicks: 0, priceBps: 0, qtyFraction: 0, maxOrderAgeMs: c.tolerance.maxOrderAgeMs }
        const after = apply(c.live, run(c, c.live, exact)).filter(diffable)
        const got = after.map((o) => key(o.buy, o.ro, o.p, o.rest)).sort()
        const want = c.desired.map((q) => key(q.side === 'buy', q.reduceOnly === true, q.price, q.qty)).sort()
        expect(got).toEqual(want)
      }),
      opts,
    )
  })

  it('applying the diff yields the desired set modulo tolerance: same sides and flags, and nothing left to do', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const after = apply(c.live, run(c))
        const groups = (xs: string[]) => xs.sort().join(',')
        expect(groups(after.filter(diffable).map((o) => `${o.buy}${o.ro}`))).toBe(
          groups(c.desired.map((q) => `${q.side === 'buy'}${q.reduceOnly === true}`)),
        )
        expect(isEmptyDiff(run(c, after))).toBe(true)
        // Non-diffable orders are exactly as they were.
        expect(after.filter((o) => !diffable(o))).toEqual(c.live.filter((o) => !diffable(o)))
      }),
      opts,
    )
  })

  it('uses the fewest actions (checked against brute force over all pairings)', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const d = run(c)
        const actions = d.modify.length + d.create.length + d.cancel.length
        expect(actions).toBe(bruteForceActions(c))
      }),
      opts,
    )
  })

  it('unchanged input gives no actions', () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 0, max: 5 }), (c, fillTicks) => {
        const fill = fromTicks(BigInt(fillTicks), c.qd)
        const live = c.desired.map((q, i) =>
          order({
            oid: i + 1,
            buy: q.side === 'buy',
            ro: q.reduceOnly === true,
            p: q.price,
            fill,
            rest: q.qty,
            qty: fromTicks(toTicks(q.qty, c.qd) + BigInt(fillTicks), c.qd),
            status: fillTicks > 0 ? 'partial' : 'open',
            uts: NOW,
          }),
        )
        expect(run(c, live)).toEqual(none)
      }),
      opts,
    )
  })
})

/** Independent oracle: the fewest actions over every pairing within each (side, reduce-only) group. */
function bruteForceActions(c: Case): number {
  const live = c.live.filter(diffable)
  const cost = (q: DesiredQuote, o: Order): number => {
    const dp = toTicks(q.price, c.pd)
    const tol = BigInt(
      Math.max(c.tolerance.priceTicks, Math.floor((Number(dp) * c.tolerance.priceBps) / 10_000)),
    )
    const diff = dp - toTicks(o.p, c.pd)
    const dq = toTicks(q.qty, c.qd)
    const rest = toTicks(o.rest, c.qd)
    const qtyTol = (Number(dq) * (c.tolerance.qtyFraction ?? 0)) | 0
    const priceOk = (diff < 0n ? -diff : diff) <= tol
    const qtyOk = Math.abs(Number(rest - dq)) <= qtyTol
    const fresh = c.tolerance.maxOrderAgeMs <= 0 || NOW - o.uts < c.tolerance.maxOrderAgeMs
    if (priceOk && qtyOk && fresh) return 0
    const total = fromTicks(toTicks(o.fill, c.qd) + dq, c.qd)
    return significantFigures(total) <= 5 ? 1 : 2
  }
  let total = 0
  for (const buy of [true, false]) {
    for (const ro of [true, false]) {
      const ds = c.desired.filter((q) => (q.side === 'buy') === buy && (q.reduceOnly === true) === ro)
      const ls = live.filter((o) => o.buy === buy && o.ro === ro)
      // Memoized over (quote index, bitmask of live orders used).
      const memo = new Map<number, number>()
      const best = (i: number, used: number): number => {
        if (i === ds.length) return ls.length - popcount(used) // cancel the rest
        const k = i * 2 ** ls.length + used
        const hit = memo.get(k)
        if (hit !== undefined) return hit
        let m = 1 + best(i + 1, used) // create ds[i]
        ls.forEach((o, j) => {
          if ((used & (1 << j)) === 0)
            m = Math.min(m, cost(ds[i] as DesiredQuote, o) + best(i + 1, used | (1 << j)))
        })
        memo.set(k, m)
        return m
      }
      total += best(0, 0)
    }
  }
  return total
}

function popcount(x: number): number {
  let n = 0
  for (let v = x; v !== 0; v &= v - 1) n++
  return n
}
