import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { addDecimal, compareDecimal, subDecimal } from '../../src/decimal.ts'
import { ladderParamsArbitrary } from '../../src/kit/arbitraries.ts'
import { ConformanceError, conformanceChecks, runConformance } from '../../src/kit/conformance.ts'
import { freshIndexPrice } from '../../src/strategy/ladder.ts'
import { defineStrategy, type Strategy } from '../../src/strategy/strategy.ts'
import { strategy as avellanedaStoikov } from '../../strategies/avellanedaStoikov.ts'
import { strategy as catalogueBias } from '../../strategies/catalogueBias.ts'
import { strategy as indexPeg } from '../../strategies/indexPeg.ts'
import { strategy as volSpread } from '../../strategies/volSpread.ts'

const volParams = ladderParamsArbitrary().chain((ladder) => {
  const { halfSpreadBps: _drop, ...rest } = ladder
  return fc
    .record({
      volWindow: fc.integer({ min: 2, max: 60 }),
      minSamples: fc.integer({ min: 2, max: 10 }),
      volMultiplier: fc.double({ min: 0.1, max: 20, noNaN: true }),
      minSpreadBps: fc.integer({ min: 1, max: 50 }),
      extraBps: fc.integer({ min: 0, max: 400 }),
      maxKlineAgeMs: fc.constantFrom(0, 120_000, 600_000),
    })
    .map(({ extraBps, ...v }) => ({ ...rest, ...v, maxSpreadBps: v.minSpreadBps + extraBps }))
})

const biasParams = ladderParamsArbitrary().chain((ladder) =>
  fc
    .record({
      eventSlug: fc.option(fc.constant('fed-decision'), { nil: undefined }),
      marketSlug: fc.option(fc.constant('fed-cut'), { nil: undefined }),
      maxBiasBps: fc.integer({ min: 0, max: 1_000 }),
      invert: fc.boolean(),
      minVolume24hr: fc.constantFrom(0, 1_000),
      maxCatalogueAgeMs: fc.constantFrom(0, 60_000, 600_000),
    })
    .map((b) => ({ ...ladder, ...Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)) })),
)

const asParams = ladderParamsArbitrary().chain((ladder) => {
  const { halfSpreadBps: _spread, skewBps: _skew, ...rest } = ladder
  return fc
    .record({
      gamma: fc.oneof(fc.double({ min: 0.01, max: 1_000, noNaN: true }), fc.constantFrom(40, 1e6)),
      horizonS: fc.constantFrom(1, 60, 3_600, 86_400),
      volHalfLifeMin: fc.constantFrom(1, 15, 240),
      minSamples: fc.integer({ min: 2, max: 20 }),
      intensityWindow: fc.integer({ min: 2, max: 120 }),
      fallbackVolBpsPerMin: fc.constantFrom(1, 15, 500),
      fallbackK: fc.constantFrom(1, 1_000, 1e9),
      minSpreadBps: fc.integer({ min: 1, max: 50 }),
      extraBps: fc.integer({ min: 0, max: 400 }),
      maxSkewBps: fc.constantFrom(0, 5, 50, 5_000),
      maxKlineAgeMs: fc.constantFrom(0, 120_000, 600_000),
    })
    .map(({ extraBps, ...v }) => ({ ...rest, ...v, maxSpreadBps: v.minSpreadBps + extraBps }))
})

describe.each([
  {
    strategy: avellanedaStoikov as Strategy<unknown>,
    paramsArbitrary: asParams,
    withoutIndex: 'empty' as const,
  },
  {
    strategy: indexPeg as Strategy<unknown>,
    paramsArbitrary: ladderParamsArbitrary(),
    withoutIndex: 'empty' as const,
  },
  { strategy: volSpread as Strategy<unknown>, paramsArbitrary: volParams, withoutIndex: 'fallback' as const },
  {
    strategy: catalogueBias as Strategy<unknown>,
    paramsArbitrary: biasParams,
    withoutIndex: 'empty' as const,
  },
])('conformance: $strategy.name', ({ strategy, paramsArbitrary, withoutIndex }) => {
  // 100 cases per property (the kit's default is 200): a fresh seed every run, so the cases add up
  // across runs; 56 properties at 200 were a minute of CPU under load.
  for (const check of conformanceChecks(strategy, {
    paramsArbitrary,
    withoutIndex,
    numRuns: 100,
    snapshot: { marketSlugs: ['fed-cut'] },
  })) {
    it(check.name, () => check.run())
  }
})

describe('conformance kit catches broken strategies', () => {
  const params = z.strictObject({ positionCap: z.string().default('1') })
  const base = { description: 'broken on purpose', paramsSchema: params }
  const price = (s: { index: { price: string } | undefined }) => s.index?.price ?? '1'

  it.each([
    [
      'crossing quotes',
      defineStrategy({
        ...base,
        name: 'crosser',
        quote: () => [
          { side: 'buy', price: '10', qty: '1' },
          { side: 'sell', price: '9', qty: '1' },
        ],
      }),
      'never crosses',
    ],
    [
      'uses the wall clock',
      defineStrategy({
        ...base,
        name: 'clocky',
        quote: () => (Date.now() % 2 === 0 ? [] : []),
      }),
      'deterministic',
    ],
    [
      'ignores the position cap',
      defineStrategy({
        ...base,
        name: 'greedy',
        quote: (s) => (s.index === undefined ? [] : [{ side: 'buy', price: '1', qty: '1000' }]),
      }),
      'position cap',
    ],
    [
      'quotes without an index',
      defineStrategy({ ...base, name: 'blind', quote: () => [{ side: 'buy', price: '1', qty: '1' }] }),
      'without an index',
    ],
    [
      'ignores the best bid and offer (quotes at the index)',
      defineStrategy({
        ...base,
        name: 'book-blind',
        quote: (s) =>
          s.index === undefined
            ? []
            : [
                { side: 'buy', price: s.index.price, qty: '0.001' },
                { side: 'sell', price: addDecimal(s.index.price, '1'), qty: '0.001' },
              ],
      }),
      'never crosses a fresh best bid or offer',
    ],
    [
      'trusts a stale best bid and offer',
      defineStrategy({
        name: 'stale-trusting',
        description: 'broken on purpose',
        paramsSchema: z.strictObject({
          positionCap: z.string().default('1'),
          maxBboAgeMs: z.number().default(1_000),
        }),
        quote: (s) => {
          const bid = s.bbo?.bid?.price
          return bid === undefined ? [] : [{ side: 'sell', price: addDecimal(bid, '1'), qty: '0.001' }]
        },
      }),
      'ignores a stale best bid or offer',
    ],
    [
      'has hidden state',
      (() => {
        let n = 0
        return defineStrategy({
          ...base,
          name: 'stateful',
          quote: (s) =>
            s.index === undefined || n++ % 2 === 0 ? [] : [{ side: 'buy', price: price(s), qty: '0' }],
        })
      })(),
      'deterministic',
    ],
    [
      'says time never changes its quotes, but drops an index older than a minute',
      defineStrategy({
        ...base,
        name: 'timeless',
        quote: (s) =>
          freshIndexPrice(s, 60_000) === undefined ? [] : [{ side: 'buy', price: price(s), qty: '0.001' }],
        revisitAt: () => undefined,
      }),
      'quotes the same until its revisitAt',
    ],
    [
      'says it reads only the BBO, but sizes by the account value',
      defineStrategy({
        ...base,
        name: 'equity-sizer',
        reads: ['bbo'],
        quote: (s) =>
          s.index === undefined || compareDecimal(s.margin.accountValue, '1000') < 0
            ? []
            : [{ side: 'buy', price: price(s), qty: '0.001' }],
      }),
      'whatever the inputs it does not read',
    ],
    [
      'says it reads nothing optional, but widens on 24-hour volume',
      defineStrategy({
        ...base,
        name: 'volume-blind',
        reads: [],
        quote: (s) =>
          s.index === undefined
            ? []
            : [
                {
                  side: 'buy',
                  price: s.statistics === undefined ? price(s) : subDecimal(price(s), '0.01'),
                  qty: '0.001',
                },
              ],
      }),
      'whatever the inputs it does not read',
    ],
    [
      'says it rests one order at most, but quotes a bid and an ask',
      defineStrategy({
        ...base,
        name: 'over-max',
        maxOrders: () => 1,
        quote: (s) =>
          s.index === undefined
            ? []
            : [
                { side: 'buy', price: subDecimal(price(s), '0.01'), qty: '0.001' },
                { side: 'sell', price: addDecimal(price(s), '0.01'), qty: '0.001' },
              ],
      }),
      'never asks to rest more orders than its maxOrders',
    ],
    [
      'names a revisit that is not after now',
      defineStrategy({ ...base, name: 'overdue', quote: () => [], revisitAt: (s) => s.now }),
      'quotes the same until its revisitAt',
    ],
  ])('%s', (_label, strategy, property) => {
    // Only the property the strategy breaks: the others pass all their cases, at a cost and proving nothing here.
    const checks = conformanceChecks(strategy, { params: {}, numRuns: 50, seed: 7 }).filter((c) =>
      c.name.includes(property),
    )
    expect(checks.length).toBeGreaterThan(0)
    const failures = checks
      .map((c) => {
        try {
          c.run()
          return undefined
        } catch (e) {
          return e
        }
      })
      .filter((e): e is ConformanceError => e instanceof ConformanceError)
    expect(failures.some((e) => e.property.includes(property))).toBe(true)
    expect(failures[0]?.message).toContain(`strategy "${strategy.name}" fails`)
  })

  it('runConformance reports params that do not parse', () => {
    expect(() => runConformance(indexPeg, { params: { size: '-1' }, numRuns: 5 })).toThrow(/params\.size/)
  })
})
