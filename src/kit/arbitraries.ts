/**
 * fast-check arbitraries for strategy snapshots and ladder params, used by the conformance kit and by
 * tests. Instruments get 0–8 price and quantity decimals; index prices span 1e-12 to 1e12, both as
 * realistic 5-figure prices and as arbitrary digit strings; positions are drawn relative to the
 * position cap (including beyond it); klines are a random walk of 1-minute closes, fresh or stale; the
 * best bid/offer lies around the index (within a few bps to ±6%), normal, locked, crossed, one-sided or
 * empty, fresh or stale.
 * Test-only: imports fast-check (a devDependency).
 */
import fc from 'fast-check'
import { divRound, fromTicks, mulDecimal, parseDecimal, toTicks } from '../decimal.ts'
import type { Kline } from '../perps/schemas/info.ts'
import type { Order } from '../perps/schemas/orders.ts'
import {
  type CatalogueSignalEvent,
  type CatalogueSignalMarket,
  computeMarginRatio,
  QUOTE_MODES,
  type QuoteMode,
  type StrategyBbo,
  type StrategyBookLevel,
  type StrategyCatalogue,
  type StrategyIndex,
  type StrategyInstrument,
  type StrategyPosition,
  type StrategySnapshot,
  type StrategySnapshotBbo,
  type StrategyStatistics,
} from '../strategy/strategy.ts'

export interface SnapshotArbitraryOptions {
  /** Positions are drawn as cap × r, r ∈ [−2.5, 2.5] (plus flat); without a cap, as random sizes. */
  positionCap?: string | undefined
  /** Modes to draw from (default all three). */
  modes?: readonly QuoteMode[] | undefined
  /** `'never'` / `'always'` force the index out or in (always = fresh, ts = now). Default: mixed. */
  index?: 'mixed' | 'never' | 'always' | undefined
  /** Event slugs the catalogue may contain (plus an unrelated one). */
  eventSlugs?: readonly string[] | undefined
  /** Market slugs the catalogue may contain (plus an unrelated one). */
  marketSlugs?: readonly string[] | undefined
  /** Whether statistics may be absent (default true). */
  allowMissingStatistics?: boolean | undefined
  /**
   * The best bid/offer: `'fresh'` (age ≤ `bboMaxAgeMs`), `'stale'` (older; none when that bound is 0),
   * `'never'`, or `'mixed'` (default: absent, fresh or stale).
   */
  bbo?: 'mixed' | 'fresh' | 'stale' | 'never' | undefined
  /** The age up to which a BBO counts as fresh, ms (default 5,000; 0 = no bound, every age is fresh). */
  bboMaxAgeMs?: number | undefined
}

const NOW_MIN = 1_700_000_000_000
const NOW_MAX = 1_900_000_000_000

/** A positive decimal string of `units × 10^-scale`. */
function decimalArb(maxUnits: bigint, maxScale: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.bigInt({ min: 1n, max: maxUnits }), fc.integer({ min: 0, max: maxScale }))
    .map(([u, s]) => fromTicks(u, s))
}

/**
 * Prices from 1e-12 to 1e12: mostly 5-significant-figure prices of at least ~100 ticks of
 * `priceDecimals` (what a venue lists); also coarse prices of a few ticks with sub-tick digits (where
 * rounding can make a narrow quote cross), any magnitude, and arbitrary digit strings.
 */
export function priceArbitrary(priceDecimals = 8): fc.Arbitrary<string> {
  const fiveFigures = (minExp: number) =>
    fc
      .tuple(fc.integer({ min: 10_000, max: 99_999 }), fc.integer({ min: minExp, max: 7 }))
      .map(([m, e]) => (e >= 0 ? `${m}${'0'.repeat(e)}` : fromTicks(BigInt(m), -e)))
  const coarse = fc
    .tuple(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 0, max: 999 }))
    .map(([ticks, sub]) => fromTicks(BigInt(ticks) * 1_000n + BigInt(sub), priceDecimals + 3))
  return fc.oneof(
    { arbitrary: fiveFigures(Math.min(7, -priceDecimals - 2)), weight: 6 },
    { arbitrary: coarse, weight: 2 },
    { arbitrary: fiveFigures(-16), weight: 1 },
    { arbitrary: decimalArb(10n ** 12n, 12), weight: 1 },
  )
}

export function instrumentArbitrary(): fc.Arbitrary<StrategyInstrument> {
  return fc.record({
    id: fc.integer({ min: 0, max: 4_294_967_295 }),
    symbol: fc.constantFrom('BTC-USDC', 'ETH-USDC', 'NVDA-USDC', 'X'),
    priceDecimals: fc.integer({ min: 0, max: 8 }),
    quantityDecimals: fc.integer({ min: 0, max: 8 }),
    priceBounds: fc.oneof(
      { arbitrary: fc.constantFrom('0', '0.05', '0.1', '0.5'), weight: 4 },
      { arbitrary: fc.constantFrom('0.003', '0.01'), weight: 1 },
    ),
    minNotional: fc.constantFrom('0', '0.01', '1', '10', '100'),
    maxOrderCount: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 }), fc.constant(200)),
  })
}

function klinesArbitrary(now: number, start: string | undefined): fc.Arbitrary<Kline[]> {
  return fc
    .record({
      returnsBps: fc.array(fc.integer({ min: -300, max: 300 }), { maxLength: 60 }),
      // How far each minute's prints reached above and below its open (estimators.ts reads them).
      reachBps: fc.array(fc.tuple(fc.nat(200), fc.nat(200)), { maxLength: 60 }),
      first: start === undefined ? priceArbitrary() : fc.constant(start),
      lagMs: fc.oneof(fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 60_000, max: 3_600_000 })),
    })
    .map(({ returnsBps, reachBps, first, lagMs }) => {
      const scale = 12
      let close = toTicks(first, scale, 'down')
      if (close <= 0n) close = 1n
      const n = returnsBps.length
      return returnsBps.map((r, i): Kline => {
        close = (close * BigInt(10_000 + r)) / 10_000n
        if (close <= 0n) close = 1n
        const c = fromTicks(close, scale)
        const [up, down] = reachBps[i] ?? [0, 0]
        const h = fromTicks((close * BigInt(10_000 + up)) / 10_000n, scale)
        const l = fromTicks((close * BigInt(10_000 - Math.min(down, 9_999))) / 10_000n, scale)
        return [now - lagMs - (n - i) * 60_000, c, h, l, c, '1', 1]
      })
    })
}

function ordersArbitrary(instrumentId: number, near: string): fc.Arbitrary<Order[]> {
  return fc
    .array(fc.record({ buy: fc.boolean(), ro: fc.boolean(), ageMs: fc.integer({ min: 0, max: 600_000 }) }), {
      maxLength: 5,
    })
    .chain((rows) =>
      fc.constant(
        rows.map(
          (r, i): Order => ({
            oid: 1_000 + i,
            iid: instrumentId,
            buy: r.buy,
            p: near,
            qty: '1',
            tif: 'gtc',
            po: true,
            ro: r.ro,
            rest: '1',
            fill: '0',
            cts: NOW_MIN,
            uts: NOW_MIN + r.ageMs,
            status: 'open',
          }),
        ),
      ),
    )
}

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined })

function catalogueArbitrary(
  now: number,
  eventSlugs: readonly string[],
  marketSlugs: readonly string[],
): fc.Arbitrary<StrategyCatalogue | undefined> {
  const prob = fc.double({ min: -0.2, max: 1.2, noNaN: true })
  const market: fc.Arbitrary<CatalogueSignalMarket> = fc.record({
    slug: maybe(fc.constantFrom(...marketSlugs, 'unrelated-market')),
    question: maybe(fc.constant('Will it?')),
    outcomePrices: maybe(fc.double({ min: 0, max: 1, noNaN: true }).map((p) => [p, 1 - p])),
    bestBid: maybe(prob),
    bestAsk: maybe(prob),
    lastTradePrice: maybe(prob),
    volume24hr: maybe(fc.double({ min: 0, max: 1e7, noNaN: true })),
  })
  const event: fc.Arbitrary<CatalogueSignalEvent> = fc.record({
    id: fc.nat().map(String),
    slug: maybe(fc.constantFrom(...eventSlugs, 'unrelated-event')),
    title: maybe(fc.constant('An event')),
    volume24hr: maybe(fc.double({ min: 0, max: 1e7, noNaN: true })),
    markets: fc.array(market, { maxLength: 3 }),
  })
  return maybe(
    fc.record({
      events: fc.array(event, { maxLength: 3 }),
      fetchedAt: fc.oneof(
        fc.integer({ min: now - 60_000, max: now }),
        fc.integer({ min: now - 86_400_000, max: now }),
      ),
    }),
  )
}

/** Ticks of `centre × (1 + bps/10⁴)` at `priceDecimals`, half-even, at least one tick. */
function ticksAt(centre: string, bps: number, priceDecimals: number): bigint {
  const f = parseDecimal(mulDecimal(centre, fromTicks(BigInt(10_000 + bps), 4)))
  const ticks = divRound(f.units * 10n ** BigInt(priceDecimals), 10n ** BigInt(f.scale), 'half-even')
  return ticks > 0n ? ticks : 1n
}

const BBO_SHAPES = ['normal', 'locked', 'crossed', 'bid-only', 'ask-only', 'empty'] as const

/** A touch around `centre`: bid/ask offsets mostly within ±30 bps, sometimes up to ±600 bps. */
export function bboArbitrary(
  centre: string,
  priceDecimals: number,
  quantityDecimals: number,
): fc.Arbitrary<StrategyBbo> {
  const offset = fc.oneof(
    { arbitrary: fc.integer({ min: -30, max: 30 }), weight: 3 },
    { arbitrary: fc.integer({ min: -600, max: 600 }), weight: 1 },
  )
  const qty = decimalArb(10n ** 6n, quantityDecimals)
  return fc
    .record({
      shape: fc.oneof(
        { arbitrary: fc.constant('normal' as const), weight: 5 },
        { arbitrary: fc.constantFrom(...BBO_SHAPES), weight: 3 },
      ),
      a: offset,
      b: offset,
      bq: qty,
      aq: qty,
    })
    .map(({ shape, a, b, bq, aq }): StrategyBbo => {
      const lo = ticksAt(centre, Math.min(a, b), priceDecimals)
      const hi = ticksAt(centre, Math.max(a, b), priceDecimals)
      const level = (ticks: bigint, q: string): StrategyBookLevel => ({
        price: fromTicks(ticks, priceDecimals),
        qty: q,
      })
      switch (shape) {
        case 'normal':
          return { bid: level(lo, bq), ask: level(hi > lo ? hi : lo + 1n, aq) }
        case 'locked':
          return { bid: level(lo, bq), ask: level(lo, aq) }
        case 'crossed':
          return { bid: level(hi + 1n, bq), ask: level(lo, aq) }
        case 'bid-only':
          return { bid: level(lo, bq), ask: undefined }
        case 'ask-only':
          return { bid: undefined, ask: level(hi, aq) }
        default:
          return { bid: undefined, ask: undefined } // empty
      }
    })
}

/** A BBO of the wanted age (see `SnapshotArbitraryOptions.bbo`), or undefined. */
function snapshotBboArbitrary(
  now: number,
  centre: string,
  instrument: StrategyInstrument,
  options: SnapshotArbitraryOptions,
): fc.Arbitrary<StrategySnapshotBbo | undefined> {
  const maxAge = options.bboMaxAgeMs ?? 5_000
  const touch = bboArbitrary(centre, instrument.priceDecimals, instrument.quantityDecimals)
  const aged = (age: fc.Arbitrary<number>) =>
    fc.tuple(touch, age).map(([t, a]): StrategySnapshotBbo => ({ ...t, receivedAt: now - a }))
  const fresh = aged(
    maxAge > 0
      ? fc.oneof(fc.integer({ min: 0, max: Math.min(maxAge, 1_000) }), fc.integer({ min: 0, max: maxAge }))
      : fc.integer({ min: 0, max: 3_600_000 }),
  )
  const stale =
    maxAge > 0
      ? aged(
          fc.oneof(
            fc.integer({ min: maxAge + 1, max: maxAge + 1_000 }),
            fc.integer({ min: maxAge + 1, max: maxAge + 3_600_000 }),
          ),
        )
      : fc.constant(undefined)
  switch (options.bbo ?? 'mixed') {
    case 'never':
      return fc.constant(undefined)
    case 'fresh':
      return fresh
    case 'stale':
      return stale
    case 'mixed':
      return fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 2 },
        { arbitrary: fresh, weight: 3 },
        { arbitrary: stale, weight: 1 },
      )
  }
}

function positionArbitrary(
  positionCap: string | undefined,
  qd: number,
): fc.Arbitrary<StrategyPosition | undefined> {
  const size: fc.Arbitrary<string> =
    positionCap === undefined
      ? fc.tuple(fc.boolean(), decimalArb(10n ** 9n, qd)).map(([neg, s]) => (neg ? `-${s}` : s))
      : fc.integer({ min: -250, max: 250 }).map((r) => {
          // cap × r/100, rounded toward zero to the instrument's quantity decimals.
          const exact = parseDecimal(mulDecimal(positionCap, fromTicks(BigInt(r), 2)))
          const t = toTicks(fromTicks(exact.units < 0n ? -exact.units : exact.units, exact.scale), qd, 'down')
          return fromTicks(exact.units < 0n ? -t : t, qd)
        })
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 1 },
    {
      arbitrary: size.map((s) =>
        s === '0' ? undefined : { size: s, entryPrice: '1', liquidationPrice: '0' },
      ),
      weight: 4,
    },
  )
}

/** Random snapshots (see the module comment). */
export function snapshotArbitrary(options: SnapshotArbitraryOptions = {}): fc.Arbitrary<StrategySnapshot> {
  const modes = options.modes ?? QUOTE_MODES
  return fc
    .record({
      now: fc.integer({ min: NOW_MIN, max: NOW_MAX }),
      instrument: instrumentArbitrary(),
      indexAge: fc.oneof(
        { arbitrary: fc.integer({ min: 0, max: 5_000 }), weight: 4 },
        { arbitrary: fc.integer({ min: 0, max: 3_600_000 }), weight: 1 },
      ),
      hasIndex:
        options.index === 'never'
          ? fc.constant(false)
          : options.index === 'always'
            ? fc.constant(true)
            : fc.oneof(
                { arbitrary: fc.constant(true), weight: 4 },
                { arbitrary: fc.constant(false), weight: 1 },
              ),
      mode: fc.constantFrom(...modes),
      // The venue's funding estimate on the index (tickers), sometimes absent.
      fundingRate: fc.option(fc.constantFrom('0', '0.0000125', '-0.0003', '0.002', '-0.04'), {
        nil: undefined,
      }),
    })
    .chain((head) =>
      priceArbitrary(head.instrument.priceDecimals).map((indexPrice) => ({ ...head, indexPrice })),
    )
    .chain(({ now, instrument, indexPrice, indexAge, hasIndex, mode, fundingRate }) => {
      // Drawn around the index price even when the snapshot has no index (a fallback centre is near it).
      const index: StrategyIndex | undefined = hasIndex
        ? {
            price: indexPrice,
            ts: options.index === 'always' ? now : now - indexAge,
            ...(fundingRate === undefined ? {} : { fundingRate }),
          }
        : undefined
      const statistics: fc.Arbitrary<StrategyStatistics | undefined> = klinesArbitrary(now, index?.price).map(
        (klines) => ({ volume: '1000', openPrice: klines[0]?.[4] ?? '1', klines }),
      )
      return fc.record({
        statistics:
          options.allowMissingStatistics === false
            ? statistics
            : fc.oneof(statistics, fc.constant(undefined)),
        position: positionArbitrary(options.positionCap, instrument.quantityDecimals),
        margin: fc
          .record({
            accountValue: fc.integer({ min: 0, max: 1_000_000 }).map(String),
            maintenanceMargin: fc.integer({ min: 0, max: 100_000 }).map(String),
            inLiquidation: fc.oneof(
              { arbitrary: fc.constant(false), weight: 29 },
              { arbitrary: fc.constant(true), weight: 1 },
            ),
          })
          .map((m) => ({
            accountValue: m.accountValue,
            initialMargin: mulDecimal(m.maintenanceMargin, '2'),
            maintenanceMargin: m.maintenanceMargin,
            marginRatio: computeMarginRatio(m.accountValue, m.maintenanceMargin),
            inLiquidation: m.inLiquidation,
          })),
        openOrders: ordersArbitrary(instrument.id, index?.price ?? '1'),
        catalogue: catalogueArbitrary(now, options.eventSlugs ?? [], options.marketSlugs ?? []),
        bbo: snapshotBboArbitrary(now, indexPrice, instrument, options),
        now: fc.constant(now),
        instrument: fc.constant(instrument),
        index: fc.constant(index),
        mode: fc.constant(mode),
      })
    })
}

/** Raw (config-shaped) params for the shared ladder knobs, including widened-mode factors. */
export function ladderParamsArbitrary(): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({
    size: fc.oneof(decimalArb(10n ** 6n, 4), fc.constantFrom('0.01', '1', '2.5', '100')),
    positionCap: fc.oneof(decimalArb(10n ** 7n, 4), fc.constantFrom('0.2', '4', '40', '1000')),
    halfSpreadBps: fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 2 },
      { arbitrary: fc.integer({ min: 1, max: 50 }), weight: 3 },
      { arbitrary: fc.integer({ min: 1, max: 500 }), weight: 1 },
    ),
    levels: fc.integer({ min: 1, max: 6 }),
    levelSpacingBps: fc.integer({ min: 0, max: 200 }),
    skewBps: fc.integer({ min: 0, max: 300 }),
    maxIndexAgeMs: fc.constantFrom(0, 15_000, 60_000),
    maxBboAgeMs: fc.constantFrom(0, 1_000, 5_000),
    widenedSpreadFactor: fc.constantFrom('1', '1.5', '2', '3'),
    widenedSizeFactor: fc.constantFrom('0.25', '0.5', '1'),
    imbalanceSkewBps: fc.constantFrom(0, 0, 3, 25, 400),
    fundingSkewBps: fc.constantFrom(0, 0, 2, 30, 500),
    fundingRateAtFull: fc.constantFrom('0.0001', '0.00001', '0.01'),
  })
}
