/**
 * The conformance kit's guard properties: whatever a strategy quotes (its prices and sizes scaled by
 * arbitrary factors), the bot's price and size guards (`guardPlan`, applied before the gateway) let
 * nothing through that breaks the price bounds, the venue's size rules or the position cap, and stop
 * nothing the strategy itself quoted within them. Test-only (fast-check).
 */
import fc from 'fast-check'
import { createPlanFn } from '../bot/quoting/planFunction.ts'
import { guardPlan, priceBand } from '../bot/quoting/priceGuard.ts'
import { compareDecimal, fromTicks, mulDecimal, toTicks } from '../decimal.ts'
import { capExcess, orderSizeProblem } from '../strategy/orderSize.ts'
import type { DesiredQuote } from '../strategy/strategy.ts'
import type { CheckContext, ConformanceCheck } from './checkContext.ts'

/** The price guard's and the size guard's properties, as asked. */
export function guardChecks<P>(
  ctx: CheckContext<P>,
  o: { price: boolean; size: boolean },
): ConformanceCheck[] {
  const checks: ConformanceCheck[] = []
  if (o.price) {
    checks.push(
      ctx.property(
        'lets nothing outside the price bounds through the price guard, whatever it quotes',
        ctx.params.chain((params) =>
          fc.tuple(
            fc.constant(params),
            ctx.snapshotsFor(params, { index: 'always' }),
            fc.array(priceFactorArbitrary, { minLength: 1, maxLength: 4 }),
          ),
        ),
        (p, s, factors) => {
          const quotes = scaleQuotes(ctx.quote(s, p), factors, s.instrument.priceDecimals)
          const plan = createPlanFn(
            { quote: () => quotes },
            { priceTicks: 0, priceBps: 0, maxOrderAgeMs: 120_000 },
          )(s)
          const index = s.index?.price
          const guarded = guardPlan(plan, index, s.instrument.priceBounds).plan
          const band = index === undefined ? undefined : priceBand(index, s.instrument.priceBounds)
          const inside = (price: string | undefined): boolean =>
            price !== undefined &&
            index !== undefined &&
            compareDecimal(price, '0') > 0 &&
            (band === undefined ||
              (compareDecimal(price, band.low) >= 0 && compareDecimal(price, band.high) <= 0))
          for (const item of [...guarded.create, ...guarded.modify]) {
            if (!inside(item.p)) ctx.fail(`price ${item.p} got through the guard (index ${index})`, quotes)
          }
          const keptCreates = plan.create.filter((c) => inside(c.p)).length
          const keptModifies = plan.modify.filter((m) => inside(m.p)).length
          if (guarded.create.length !== keptCreates || guarded.modify.length !== keptModifies) {
            ctx.fail('the guard dropped a price inside the bounds', quotes)
          }
        },
      ),
    )
  }
  if (o.size) {
    checks.push(
      ctx.property(
        'lets no size beyond the venue rules or the position cap through the size guard, whatever it quotes',
        ctx.params.chain((params) =>
          fc.tuple(
            fc.constant(params),
            ctx.snapshotsFor(params, { index: 'always' }),
            fc.array(qtyFactorArbitrary, { minLength: 1, maxLength: 4 }),
            fc.constantFrom(undefined, '0', '1000', '1000000'),
          ),
        ),
        (p, s0, factors, maxLimitNotional) => {
          const s = { ...s0, instrument: { ...s0.instrument, maxLimitNotional } }
          const quotes = scaleQuantities(ctx.quote(s0, p), factors, s.instrument.quantityDecimals)
          const plan = createPlanFn(
            { quote: () => quotes },
            { priceTicks: 0, priceBps: 0, maxOrderAgeMs: 120_000 },
          )(s)
          const index = s.index?.price
          const cap = ctx.capOf(p)
          const sizes = {
            limits: s.instrument,
            positionCap: cap,
            position: s.position?.size,
            live: s.openOrders,
          }
          const guarded = guardPlan(plan, index, s.instrument.priceBounds, sizes).plan
          for (const c of guarded.create) {
            const why = orderSizeProblem(c.qty, c.p, index, s.instrument, c.ro === true)
            if (why !== undefined)
              ctx.fail(`create ${c.qty}@${c.p} got through the size guard: ${why}`, quotes)
          }
          for (const m of guarded.modify) {
            const ro = s.openOrders.find((o) => o.oid === m.oid)?.ro === true
            const why = orderSizeProblem(m.qty, m.p, index, s.instrument, ro)
            if (why !== undefined)
              ctx.fail(`modify ${m.qty}@${m.p} got through the size guard: ${why}`, quotes)
          }
          if (cap !== undefined) {
            const cancelled = new Set(guarded.cancel)
            const modified = new Map(guarded.modify.map((m) => [m.oid, m.qty]))
            const resting = [
              ...s.openOrders
                .filter((o) => !cancelled.has(o.oid))
                .map((o) => ({ buy: o.buy, qty: modified.get(o.oid) ?? o.rest })),
              ...guarded.create.map((c) => ({ buy: c.buy, qty: c.qty })),
            ]
            const x = capExcess(s.position?.size, cap, resting)
            const before = capExcess(
              s.position?.size,
              cap,
              s.openOrders.map((o) => ({ buy: o.buy, qty: o.rest })),
            )
            // Orders already resting past the cap that the plan leaves alone are not the guard's doing.
            if ((x.buys && !before.buys) || (x.sells && !before.sells))
              ctx.fail(`the orders resting after the guard could pass the cap ${cap}`, quotes)
          }
        },
      ),
    )
  }
  return checks
}

/** Quantity factors: mostly none, also tiny (finer than any instrument) and absurd (10^42). */
const qtyFactorArbitrary: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant('1'), weight: 3 },
  { arbitrary: fc.constantFrom('0.00001', '0.5', '3', '1000', `1${'0'.repeat(42)}`), weight: 2 },
)

/**
 * The quotes with the i-th quantity scaled by factors[i mod n], rounded down to the quantity decimals
 * (the plan's diff takes no finer quantity; zero quantities dropped).
 */
function scaleQuantities(
  quotes: readonly DesiredQuote[],
  factors: readonly string[],
  quantityDecimals: number,
): DesiredQuote[] {
  const out: DesiredQuote[] = []
  quotes.forEach((q, i) => {
    const ticks = toTicks(mulDecimal(q.qty, factors[i % factors.length] ?? '1'), quantityDecimals, 'down')
    if (ticks > 0n) out.push({ ...q, qty: fromTicks(ticks, quantityDecimals) })
  })
  return out
}

/** Price factors: mostly mild, also ×0.5, ×3 and absurd (31 digits). */
const priceFactorArbitrary: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant('1'), weight: 2 },
  { arbitrary: fc.constantFrom('0.5', '3', '0.9', '1.1', '0.999', '1.001', `1${'0'.repeat(30)}`), weight: 2 },
  {
    arbitrary: fc.integer({ min: -9_999, max: 30_000 }).map((bps) => fromTicks(10_000n + BigInt(bps), 4)),
    weight: 3,
  },
)

/** The quotes with the i-th price scaled by factors[i mod n], rounded down to the price decimals (zero prices dropped). */
function scaleQuotes(
  quotes: readonly DesiredQuote[],
  factors: readonly string[],
  priceDecimals: number,
): DesiredQuote[] {
  const out: DesiredQuote[] = []
  quotes.forEach((q, i) => {
    const f = factors[i % factors.length] ?? '1'
    const ticks = toTicks(mulDecimal(q.price, f), priceDecimals, 'down')
    if (ticks > 0n) out.push({ ...q, price: fromTicks(ticks, priceDecimals) })
  })
  return out
}
