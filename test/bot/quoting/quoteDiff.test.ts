import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DIFFABLE_ORDER_STATUSES,
  diffQuotes,
  isEmptyDiff,
  minCostAssignment,
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
import { InputValidationError } from '../../../src/errors.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { roundQtyTicks } from '../../../src/strategy/quoting.ts'
import type { DesiredQuote } from '../../../src/strategy/strategy.ts'

const NOW = 1_767_000_000_000
const INSTRUMENT = { id: 7, priceDecimals: 2, quantityDecimals: 3 }
const TOL: QuoteDiffTolerance = { priceTicks: 1, priceBps: 0, maxOrderAgeMs: 120_000 }

const order = (o: Partial<Order> & { oid: number }): Order => {
  const qty = o.qty ?? '1'
  const fill = o.fill ?? '0'
  return {
    iid: 7,
    buy: true,
    p: '99.9',
    tif: 'gtc',
    po: true,
    ro: false,
    cts: NOW - 1_000,
    uts: NOW - 1_000,
    status: 'open',
    ...o,
    qty,
    fill,
    rest: o.rest ?? subDecimal(qty, fill),
  }
}
const bid = (price: string, qty = '1', reduceOnly?: boolean): DesiredQuote => ({
  side: 'buy',
  price,
  qty,
  ...(reduceOnly ? { reduceOnly } : {}),
})
const ask = (price: string, qty = '1'): DesiredQuote => ({ side: 'sell', price, qty })
const diff = (
  desired: DesiredQuote[],
  live: Order[],
  tolerance: Partial<QuoteDiffTolerance> = {},
  now = NOW,
) => diffQuotes({ desired, live, instrument: INSTRUMENT, now, tolerance: { ...TOL, ...tolerance } })
const none: QuoteDiff = { modify: [], create: [], cancel: [] }

describe('quoteDiff', () => {
  it.each([
    [
      'unchanged quotes: nothing to do',
      [bid('99.9'), ask('100.1')],
      [order({ oid: 1 }), order({ oid: 2, buy: false, p: '100.1' })],
      {},
      none,
    ],
    ['within the tick tolerance: kept', [bid('99.9')], [order({ oid: 1, p: '99.91' })], {}, none],
    [
      'outside the tick tolerance: repriced in place',
      [bid('99.9')],
      [order({ oid: 1, p: '99.92' })],
      {},
      { modify: [{ oid: 1, p: '99.9', qty: '1' }], create: [], cancel: [] },
    ],
    // 2 bps of 99.90 = 0.01998 → 1 tick.
    [
      'bps tolerance: 1 tick at 2 bps of 99.9',
      [bid('99.9')],
      [order({ oid: 1, p: '99.91' })],
      { priceTicks: 0, priceBps: 2 },
      none,
    ],
    [
      'bps tolerance: 2 ticks exceed 2 bps of 99.9',
      [bid('99.9')],
      [order({ oid: 1, p: '99.92' })],
      { priceTicks: 0, priceBps: 2 },
      { modify: [{ oid: 1, p: '99.9', qty: '1' }], create: [], cancel: [] },
    ],
    [
      'the looser tolerance wins',
      [bid('99.9')],
      [order({ oid: 1, p: '99.95' })],
      { priceTicks: 5, priceBps: 2 },
      none,
    ],
    [
      'an order as old as maxOrderAgeMs is refreshed',
      [bid('99.9')],
      [order({ oid: 1, uts: NOW - 120_000 })],
      {},
      { modify: [{ oid: 1, p: '99.9', qty: '1' }], create: [], cancel: [] },
    ],
    [
      'maxOrderAgeMs 0 disables the age refresh',
      [bid('99.9')],
      [order({ oid: 1, uts: 0 })],
      { maxOrderAgeMs: 0 },
      none,
    ],
    [
      'a new size: total quantity modified',
      [bid('99.9', '2')],
      [order({ oid: 1 })],
      {},
      { modify: [{ oid: 1, p: '99.9', qty: '2' }], create: [], cancel: [] },
    ],
    [
      'partly filled: total = filled + desired, so the rest is the desired size',
      [bid('99.9', '1')],
      [order({ oid: 1, fill: '0.4' })],
      {},
      { modify: [{ oid: 1, p: '99.9', qty: '1.4' }], create: [], cancel: [] },
    ],
    [
      'partly filled within the quantity tolerance: kept',
      [bid('99.9', '1')],
      [order({ oid: 1, fill: '0.4' })],
      { qtyFraction: 0.5 },
      none,
    ],
    [
      'a total with more than 5 significant figures: cancel and create',
      [bid('99.9', '100.5')],
      [order({ oid: 1, qty: '1', fill: '0.123' })],
      {},
      {
        modify: [],
        create: [{ iid: 7, buy: true, p: '99.9', qty: '100.5', tif: 'gtc', po: true }],
        cancel: [1],
      },
    ],
    [
      'reduce-only cannot be modified in: cancel and create',
      [bid('99.9', '1', true)],
      [order({ oid: 1 })],
      {},
      {
        modify: [],
        create: [{ iid: 7, buy: true, p: '99.9', qty: '1', tif: 'gtc', po: true, ro: true }],
        cancel: [1],
      },
    ],
    [
      'unmatched live orders cancelled, unmatched quotes created',
      [ask('100.1')],
      [order({ oid: 3 }), order({ oid: 1, p: '99.8' })],
      {},
      {
        modify: [],
        create: [{ iid: 7, buy: false, p: '100.1', qty: '1', tif: 'gtc', po: true }],
        cancel: [1, 3],
      },
    ],
    [
      'other instruments and finished orders are left alone',
      [],
      [
        order({ oid: 1, iid: 8 }),
        order({ oid: 2, status: 'filled', fill: '1' }),
        order({ oid: 3, status: 'cancelled' }),
      ],
      {},
      none,
    ],
    [
      'levels pair level to level when the ladder moves',
      [bid('99.85'), bid('99.75')],
      [order({ oid: 2, p: '99.8' }), order({ oid: 1, p: '99.9' })],
      {},
      {
        modify: [
          { oid: 1, p: '99.85', qty: '1' },
          { oid: 2, p: '99.75', qty: '1' },
        ],
        create: [],
        cancel: [],
      },
    ],
    [
      'levels keep their orders when the ladder is unchanged',
      [bid('99.9'), bid('99.8')],
      [order({ oid: 2, p: '99.8' }), order({ oid: 1 })],
      {},
      none,
    ],
  ] as const)('%s', (_n, desired, live, tol, expected) => {
    expect(diff([...desired], [...live], tol)).toEqual(expected)
  })

  it('prefers keeping an order to repricing one (fewest actions)', () => {
    // Desired 99.9×1: oid 1 is nearer in price but the wrong size; oid 2 is within tolerance.
    expect(diff([bid('99.9')], [order({ oid: 1, qty: '2' }), order({ oid: 2, p: '99.91' })])).toEqual({
      modify: [],
      create: [],
      cancel: [1],
    })
  })

  it('pairs same-price quotes by size so that a second diff has nothing to do', () => {
    const instrument = { id: 7, priceDecimals: 0, quantityDecimals: 4 }
    const desired = [bid('1460', '0.0012'), bid('11', '0.0005'), bid('11', '34.483')]
    const live = [order({ oid: 100, p: '12', qty: '0.0005' })]
    const run = (l: Order[]) => diffQuotes({ desired, live: l, instrument, now: NOW, tolerance: TOL })
    const first = run(live)
    expect(first).toEqual({
      modify: [],
      create: [
        { iid: 7, buy: true, p: '1460', qty: '0.0012', tif: 'gtc', po: true },
        { iid: 7, buy: true, p: '11', qty: '34.483', tif: 'gtc', po: true },
      ],
      cancel: [],
    })
    const after = [
      ...live,
      order({ oid: 101, p: '1460', qty: '0.0012' }),
      order({ oid: 102, p: '11', qty: '34.483' }),
    ]
    expect(run(after)).toEqual(none)
  })

  it.each([
    [
      [
        [4, 1, 3],
        [2, 0, 5],
        [3, 2, 2],
      ],
      [1, 0, 2],
    ],
    [
      [
        [1, 2],
        [2, 1],
      ],
      [0, 1],
    ],
    [[[0]], [0]],
  ])('minCostAssignment(%j) = %j', (cost, expected) => {
    expect(minCostAssignment(cost)).toEqual(expected)
  })

  it('creates with the requested tif and post-only flag', () => {
    const d = diffQuotes({
      desired: [bid('99.9')],
      live: [],
      instrument: INSTRUMENT,
      now: NOW,
      tolerance: TOL,
      createOptions: { tif: 'ioc', postOnly: false },
    })
    expect(d.create).toEqual([{ iid: 7, buy: true, p: '99.9', qty: '1', tif: 'ioc', po: false }])
  })

  it('rejects desired quotes that are not valid for the instrument', () => {
    expect(() => diff([bid('99.905')], [])).toThrow(InputValidationError)
  })
})

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
