/**
 * Conformance kit: property checks every strategy must pass, over random snapshots (see
 * `arbitraries.ts`) and random or fixed params. Usable from vitest:
 *
 *   for (const check of conformanceChecks(strategy, { paramsArbitrary })) it(check.name, check.run)
 *
 * or `runConformance(strategy, options)` to run them all. Each check runs `numRuns` (default 200)
 * cases and throws `ConformanceError` with fast-check's counterexample and seed on failure.
 *
 * Properties:
 * - valid quotes: `validateQuotes` finds nothing (side, decimals, 5 significant figures with integer
 *   prices exempt, positive, min notional, order count, no crossing, reduce-only rules);
 * - never crosses its own quotes: max bid < min ask;
 * - position cap: `positionCapProblems` finds nothing (the cap is read by `positionCapOf`, i.e. the
 *   parsed params' `positionCap`, unless `positionCapOf` is given);
 * - reduce-only: only reducing quotes, flagged reduceOnly, total ≤ |position|; [] when flat;
 * - deterministic and pure: deep-frozen snapshot, `Date.now`/`Math.random` unavailable during the
 *   call, same snapshot → same quotes even after quoting a different snapshot in between;
 * - without an index: [] (or, with `withoutIndex: 'fallback'`, [] when statistics are missing too);
 * - price bounds: with a fresh index every price lies within index × (1 ± priceBounds);
 * - behind the book: with a fresh best bid/offer (age within `bboMaxAgeOf(params)`, by default the
 *   params' `maxBboAgeMs`; received at `now` when the params name none) no bid is at or above the best
 *   ask and no ask at or below the best bid — normal, locked, crossed and one-sided books alike, since
 *   every order is post-only;
 * - a stale best bid/offer (older than that bound) changes nothing: the same quotes as without one;
 * - revisit: a strategy that says when its quotes can change by time alone (`revisitAt`) names a time
 *   after `now` (or none), and quotes the same at every moment before it, the last millisecond included;
 * - reads: a strategy that lists the optional inputs it reads (`reads`) quotes the same when the others
 *   are taken from another random snapshot (equity keeps its `inLiquidation`);
 * - price guard: whatever the strategy quotes (its prices scaled by arbitrary factors, from ×0.5 and ×3
 *   to 31 digits), the plan after the bot's price guard (`guardPlan`, applied before the gateway) has
 *   no create or modify priced outside index × (1 ± priceBounds), and every quote inside still passes;
 * - size guard: whatever quantities the strategy quotes (its sizes scaled from ×0.00001 to ×10^42,
 *   against instruments with and without a maximum limit notional), no create or modify the guard
 *   lets through breaks the venue's size rules (`orderSizeProblem`) or leaves orders resting that
 *   could take the position past its cap (`capExcess`), and the strategy's own sizes all pass.
 *
 * Test-only: imports fast-check (a devDependency).
 */
import fc from 'fast-check'
import { addDecimal, compareDecimal, mulDecimal, parseDecimal, subDecimal } from '../decimal.ts'
import { BotError } from '../errors.ts'
import { positionCapProblems, validateQuotes } from '../strategy/quoting.ts'
import { formatIssues, positionCapOf } from '../strategy/registry.ts'
import {
  type DesiredQuote,
  OPTIONAL_INPUTS,
  type Strategy,
  type StrategySnapshot,
} from '../strategy/strategy.ts'
import { type SnapshotArbitraryOptions, snapshotArbitrary } from './arbitraries.ts'
import type { CaseOptions, CheckContext, ConformanceCheck } from './checkContext.ts'
import { guardChecks } from './guardChecks.ts'
import { deepFreeze, guarded } from './purity.ts'

export class ConformanceError extends BotError {
  override name = 'ConformanceError' as const
  readonly strategy: string
  readonly property: string
  constructor(strategy: string, property: string, detail: string, options: { cause?: unknown } = {}) {
    super(`strategy "${strategy}" fails "${property}"`, { details: [detail], cause: options.cause })
    this.strategy = strategy
    this.property = property
  }
}

export interface ConformanceOptions<P> {
  /** Raw params (parsed with the strategy's schema). Ignored when `paramsArbitrary` is given. */
  params?: unknown
  /** Raw params to draw from; each draw must parse. Default: `params`, else the schema's defaults. */
  paramsArbitrary?: fc.Arbitrary<unknown> | undefined
  /** How to read the position cap from parsed params (default: `positionCapOf`, i.e. `params.positionCap`). */
  positionCapOf?: ((params: P) => string | undefined) | undefined
  /** `'empty'` (default): no index → []. `'fallback'`: the strategy documents a fallback; no index and no statistics → []. */
  withoutIndex?: 'empty' | 'fallback' | undefined
  /** Check that prices stay within the instrument's bounds around a fresh index (default true). */
  checkPriceBounds?: boolean | undefined
  /**
   * How old a best bid/offer the strategy still trusts, ms, from parsed params (default: the params'
   * `maxBboAgeMs` when it is a number; 0 = any age). Undefined: fresh BBOs are received at `now` and
   * the stale check is skipped.
   */
  bboMaxAgeOf?: ((params: P) => number | undefined) | undefined
  /** Check that quotes stay behind a fresh best bid/offer and ignore a stale one (default true). */
  checkBbo?: boolean | undefined
  /** Check that the bot's price guard stops any out-of-bounds price this strategy could quote (default true). */
  checkPriceGuard?: boolean | undefined
  /** Check that the bot's size guard stops any size this strategy could quote beyond the venue's rules or the cap (default true). */
  checkSizeGuard?: boolean | undefined
  /** Cases per property (default 200). */
  numRuns?: number | undefined
  seed?: number | undefined
  /** Passed to `snapshotArbitrary` (catalogue slugs and the like). */
  snapshot?:
    | Omit<SnapshotArbitraryOptions, 'positionCap' | 'modes' | 'index' | 'bbo' | 'bboMaxAgeMs'>
    | undefined
}

export type { ConformanceCheck } from './checkContext.ts'

/** The conformance properties for one strategy, ready to hand to `it(name, run)`. */
export function conformanceChecks<P>(
  strategy: Strategy<P>,
  options: ConformanceOptions<P> = {},
): ConformanceCheck[] {
  const parse = (raw: unknown): P => {
    const r = strategy.paramsSchema.safeParse(raw ?? {})
    if (!r.success) {
      throw new ConformanceError(
        strategy.name,
        'params parse',
        formatIssues('params', r.error.issues).join('; ') || 'invalid params',
      )
    }
    return deepFreeze(r.data)
  }
  const paramsArb: fc.Arbitrary<P> = (options.paramsArbitrary ?? fc.constant(options.params)).map(parse)
  const capOf = (p: P): string | undefined => (options.positionCapOf ?? positionCapOf)(p)
  const slugsOf = (p: P): readonly string[] => strategy.catalogue?.(p)?.slugs ?? []
  const bboAgeOf = (p: P): number | undefined => (options.bboMaxAgeOf ?? maxBboAgeOf)(p)

  /** Snapshots for these params: positions relative to their cap, their catalogue events, BBO ages. */
  const snapshotsFor = (params: P, snap: CaseOptions = {}): fc.Arbitrary<StrategySnapshot> => {
    const age = bboAgeOf(params)
    return snapshotArbitrary({
      ...options.snapshot,
      ...snap,
      positionCap: capOf(params),
      eventSlugs: [...(options.snapshot?.eventSlugs ?? []), ...slugsOf(params)],
      // Without a known bound only a BBO received this very moment is surely fresh.
      bboMaxAgeMs: age ?? 0,
      ...(age === undefined ? { bbo: snap.bbo === 'fresh' ? 'fresh' : 'never' } : {}),
    }).map((s) =>
      age === undefined && s.bbo !== undefined ? { ...s, bbo: { ...s.bbo, receivedAt: s.now } } : s,
    )
  }
  const cases = (snap: CaseOptions = {}): fc.Arbitrary<[P, StrategySnapshot]> =>
    paramsArb.chain((params) => snapshotsFor(params, snap).map((s): [P, StrategySnapshot] => [params, s]))

  const assertProperty = <T extends unknown[]>(
    name: string,
    arb: fc.Arbitrary<T>,
    check: (...args: T) => void,
  ): ConformanceCheck => ({
    name,
    run(): void {
      const details = fc.check(
        fc.property(arb, (args) => {
          check(...args)
        }),
        { numRuns: options.numRuns ?? 200, ...(options.seed === undefined ? {} : { seed: options.seed }) },
      )
      if (details.failed) {
        const detail =
          fc.defaultReportMessage(details) ?? `counterexample ${JSON.stringify(details.counterexample)}`
        throw new ConformanceError(strategy.name, name, detail, { cause: details.errorInstance })
      }
    },
  })

  const quote = (s: StrategySnapshot, p: P): DesiredQuote[] =>
    strategy.quote(deepFreeze(structuredClone(s)), p)
  const fail = (msg: string, quotes: readonly DesiredQuote[]): never => {
    throw new Error(`${msg}\n  quotes: ${JSON.stringify(quotes)}`)
  }

  const ctx: CheckContext<P> = {
    params: paramsArb,
    snapshotsFor,
    capOf,
    quote,
    fail,
    property: assertProperty,
  }
  const checks: ConformanceCheck[] = [
    assertProperty('returns valid quotes for the instrument and mode', cases(), (p, s) => {
      const quotes = quote(s, p)
      const issues = validateQuotes(s, quotes)
      if (issues.length > 0) fail(issues.join('; '), quotes)
    }),
    assertProperty(
      'never asks to rest more orders than its maxOrders (when it declares one)',
      cases(),
      (p, s) => {
        const max = strategy.maxOrders?.(p)
        if (max === undefined) return
        if (!Number.isInteger(max) || max < 0)
          throw new Error(`maxOrders gave ${max}, not a whole number ≥ 0`)
        const quotes = quote(s, p)
        if (quotes.length > max) fail(`${quotes.length} quotes > maxOrders ${max}`, quotes)
      },
    ),
    assertProperty('never crosses its own quotes (max bid < min ask)', cases(), (p, s) => {
      const quotes = quote(s, p)
      const bids = quotes.filter((q) => q.side === 'buy').map((q) => q.price)
      const asks = quotes.filter((q) => q.side === 'sell').map((q) => q.price)
      const maxBid = bids.reduce<string | undefined>(
        (m, x) => (m === undefined || compareDecimal(x, m) > 0 ? x : m),
        undefined,
      )
      const minAsk = asks.reduce<string | undefined>(
        (m, x) => (m === undefined || compareDecimal(x, m) < 0 ? x : m),
        undefined,
      )
      if (maxBid !== undefined && minAsk !== undefined && compareDecimal(maxBid, minAsk) >= 0) {
        fail(`bid ${maxBid} ≥ ask ${minAsk}`, quotes)
      }
    }),
    assertProperty(
      'keeps |position + buys| and |position − sells| within its position cap',
      cases(),
      (p, s) => {
        const cap = capOf(p)
        if (cap === undefined) throw new Error('params have no positionCap (pass positionCapOf)')
        const quotes = quote(s, p)
        const issues = positionCapProblems(s, quotes, cap)
        if (issues.length > 0) fail(issues.join('; '), quotes)
      },
    ),
    assertProperty(
      'in reduce-only mode quotes only reduce the position',
      cases({ modes: ['reduce-only'] }),
      (p, s) => {
        const quotes = quote(s, p)
        const pos = parseDecimal(s.position?.size ?? '0').units
        if (pos === 0n && quotes.length > 0) fail('quotes while flat in reduce-only mode', quotes)
        const reducing = pos > 0n ? 'sell' : 'buy'
        let total = '0'
        for (const q of quotes) {
          if (q.reduceOnly !== true) fail('a quote without reduceOnly: true', quotes)
          if (q.side !== reducing) fail(`a ${q.side} does not reduce position ${s.position?.size}`, quotes)
          total = addDecimal(total, q.qty)
        }
        const absPos = (s.position?.size ?? '0').replace(/^-/, '')
        if (compareDecimal(total, absPos) > 0) fail(`total ${total} exceeds |position| ${absPos}`, quotes)
      },
    ),
    assertProperty(
      'is deterministic and pure (same snapshot → same quotes; no clock, randomness or mutation)',
      paramsArb.chain((params) => fc.tuple(fc.constant(params), snapshotsFor(params), snapshotsFor(params))),
      (p, s, other) => {
        const first = guarded(() => quote(s, p))
        guarded(() => quote(other, p))
        const again = guarded(() => quote(s, p))
        if (JSON.stringify(first) !== JSON.stringify(again)) {
          fail(`second call differs: ${JSON.stringify(again)}`, first)
        }
      },
    ),
    assertProperty(
      'without an index quotes nothing (or only via its documented fallback)',
      cases({ index: 'never' }),
      (p, s) => {
        const snapshot = options.withoutIndex === 'fallback' ? { ...s, statistics: undefined } : s
        const quotes = quote(snapshot, p)
        if (quotes.length > 0) fail('quoted without an index', quotes)
      },
    ),
  ]
  if (options.checkPriceBounds ?? true) {
    checks.push(
      assertProperty(
        'keeps prices within the instrument price bounds around a fresh index',
        cases({ index: 'always' }),
        (p, s) => {
          const quotes = quote(s, p)
          const index = s.index?.price
          const b = s.instrument.priceBounds
          if (index === undefined || compareDecimal(b, '0') <= 0) return
          const low = mulDecimal(index, subDecimal('1', b))
          const high = mulDecimal(index, addDecimal('1', b))
          for (const q of quotes) {
            if (compareDecimal(q.price, low) < 0 || compareDecimal(q.price, high) > 0) {
              fail(`price ${q.price} outside ${index} ± ${b}`, quotes)
            }
          }
        },
      ),
    )
  }
  if (options.checkBbo ?? true) {
    checks.push(
      assertProperty(
        'never crosses a fresh best bid or offer (post-only: bids below the ask, asks above the bid)',
        cases({ bbo: 'fresh' }),
        (p, s) => {
          const quotes = quote(s, p)
          const bid = s.bbo?.bid?.price
          const ask = s.bbo?.ask?.price
          for (const q of quotes) {
            if (q.side === 'buy' && ask !== undefined && compareDecimal(q.price, ask) >= 0) {
              fail(`bid ${q.price} at or above the best ask ${ask} (bbo ${JSON.stringify(s.bbo)})`, quotes)
            }
            if (q.side === 'sell' && bid !== undefined && compareDecimal(q.price, bid) <= 0) {
              fail(`ask ${q.price} at or below the best bid ${bid} (bbo ${JSON.stringify(s.bbo)})`, quotes)
            }
          }
        },
      ),
      assertProperty(
        'ignores a stale best bid or offer (same quotes as without one)',
        cases({ bbo: 'stale' }),
        (p, s) => {
          if (s.bbo === undefined) return // no staleness bound: nothing is stale
          const withStale = quote(s, p)
          const without = quote({ ...s, bbo: undefined }, p)
          if (JSON.stringify(withStale) !== JSON.stringify(without)) {
            fail(
              `a BBO ${s.now - s.bbo.receivedAt} ms old changed the quotes from ${JSON.stringify(without)}`,
              withStale,
            )
          }
        },
      ),
    )
  }
  const revisitAt = strategy.revisitAt?.bind(strategy)
  if (revisitAt !== undefined) {
    checks.push(
      assertProperty(
        'quotes the same until its revisitAt (time alone changes nothing before)',
        paramsArb.chain((params) =>
          fc.tuple(
            fc.constant(params),
            snapshotsFor(params),
            fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 3 }),
          ),
        ),
        (p, s, fractions) => {
          const at = guarded(() => revisitAt(deepFreeze(structuredClone(s)), p))
          if (at !== undefined && !(Number.isFinite(at) && at > s.now)) {
            throw new Error(`revisitAt ${at} is not after now ${s.now}`)
          }
          // Without a revisit, quotes must hold for any later time: probe up to 30 days ahead.
          const horizon = at ?? s.now + 30 * 86_400_000
          const first = quote(s, p)
          for (const later of [
            horizon - 1,
            ...fractions.map((f) => s.now + Math.floor(f * (horizon - s.now))),
          ]) {
            const again = quote({ ...s, now: later }, p)
            if (JSON.stringify(again) !== JSON.stringify(first)) {
              fail(
                `at ${later - s.now} ms later (revisitAt ${at === undefined ? 'none' : `+${at - s.now} ms`}) quotes ${JSON.stringify(again)}`,
                first,
              )
            }
          }
        },
      ),
    )
  }
  const declared = strategy.reads
  const unread = OPTIONAL_INPUTS.filter((i) => declared !== undefined && !declared.includes(i))
  if (unread.length > 0) {
    checks.push(
      assertProperty(
        `quotes the same whatever the inputs it does not read (${unread.join(', ')})`,
        paramsArb.chain((params) =>
          fc.tuple(fc.constant(params), snapshotsFor(params), snapshotsFor(params)),
        ),
        (p, s, other) => {
          const mixed: StrategySnapshot = {
            ...s,
            ...(unread.includes('equity')
              ? { margin: { ...other.margin, inLiquidation: s.margin.inLiquidation } }
              : {}),
            ...(unread.includes('statistics') ? { statistics: other.statistics } : {}),
            ...(unread.includes('bbo') ? { bbo: other.bbo } : {}),
            ...(unread.includes('catalogue') ? { catalogue: other.catalogue } : {}),
          }
          const first = quote(s, p)
          const again = quote(mixed, p)
          if (JSON.stringify(again) !== JSON.stringify(first)) {
            fail(`with the unread inputs of another snapshot it quotes ${JSON.stringify(again)}`, first)
          }
        },
      ),
    )
  }
  checks.push(
    ...guardChecks(ctx, { price: options.checkPriceGuard ?? true, size: options.checkSizeGuard ?? true }),
  )
  return checks
}

/** The params' `maxBboAgeMs` when it is a number (the shared ladder param), else undefined. */
export function maxBboAgeOf(params: unknown): number | undefined {
  if (params === null || typeof params !== 'object' || !('maxBboAgeMs' in params)) return undefined
  const age = params.maxBboAgeMs
  return typeof age === 'number' && Number.isFinite(age) && age >= 0 ? age : undefined
}

/** Runs every conformance check; throws the first `ConformanceError`. */
export function runConformance<P>(strategy: Strategy<P>, options: ConformanceOptions<P> = {}): void {
  for (const check of conformanceChecks(strategy, options)) check.run()
}
