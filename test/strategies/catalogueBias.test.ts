import { describe, expect, it } from 'vitest'
import { CatalogueQuerySchema, type StrategyCatalogue } from '../../src/strategy/strategy.ts'
import { catalogueBiasBps, strategy, yesProbability } from '../../strategies/catalogueBias.ts'
import { bboAt, makeSnapshot, NOW, summarize } from '../strategy/fixtures.ts'

const base = { size: '1', positionCap: '10', skewBps: 0, halfSpreadBps: 10, maxBiasBps: 20 }
const params = (over: Record<string, unknown> = {}) => strategy.paramsSchema.parse({ ...base, ...over })

const catalogue = (over: Partial<StrategyCatalogue> = {}): StrategyCatalogue => ({
  fetchedAt: NOW - 1_000,
  events: [
    {
      id: '1',
      slug: 'fed',
      markets: [
        { slug: 'cut', outcomePrices: [0.75, 0.25], volume24hr: 5_000 },
        { slug: 'hold', outcomePrices: [0.2, 0.8], volume24hr: 100 },
      ],
    },
  ],
  ...over,
})

describe('catalogue-bias: signal', () => {
  it.each([
    ['no catalogue: neutral', {}, undefined, 0],
    ['highest-volume market by default: YES 0.75 → +10 bps', {}, catalogue(), 10],
    ['chosen market: YES 0.2 → −12 bps', { marketSlug: 'hold' }, catalogue(), -12],
    ['inverted', { invert: true }, catalogue(), -10],
    ['chosen event', { eventSlug: 'fed' }, catalogue(), 10],
    ['chosen event absent: neutral', { eventSlug: 'ecb' }, catalogue(), 0],
    ['chosen market absent: neutral', { marketSlug: 'hike' }, catalogue(), 0],
    ['stale catalogue: neutral', {}, catalogue({ fetchedAt: NOW - 700_000 }), 0],
    ['maxCatalogueAgeMs 0 never goes stale', { maxCatalogueAgeMs: 0 }, catalogue({ fetchedAt: 0 }), 10],
    ['thin market: neutral', { minVolume24hr: 10_000 }, catalogue(), 0],
    ['no events: neutral', {}, catalogue({ events: [] }), 0],
    [
      'YES 1 gives the full bias',
      {},
      catalogue({ events: [{ id: '2', markets: [{ outcomePrices: [1, 0] }] }] }),
      20,
    ],
    [
      'YES 0 gives the full bias down',
      {},
      catalogue({ events: [{ id: '2', markets: [{ outcomePrices: [0, 1] }] }] }),
      -20,
    ],
    [
      'skips events without a priced market',
      {},
      catalogue({
        events: [
          { id: '2', markets: [{ outcomePrices: [1.5] }] },
          { id: '3', markets: [{ lastTradePrice: 0.9 }] },
        ],
      }),
      16,
    ],
  ] as const)('%s', (_n, p, cat, bps) => {
    expect(catalogueBiasBps(makeSnapshot({ catalogue: cat }), params(p))).toBe(bps)
  })

  it.each([
    [{ outcomePrices: [0.3, 0.7], bestBid: 0.9, bestAsk: 0.95 }, 0.3],
    [{ bestBid: 0.6, bestAsk: 0.7, lastTradePrice: 0.1 }, 0.65],
    [{ bestBid: 0.7, bestAsk: 0.6, lastTradePrice: 0.1 }, 0.1],
    [{ lastTradePrice: 0.9 }, 0.9],
    [{ outcomePrices: [Number.NaN], lastTradePrice: -0.1 }, undefined],
    [{}, undefined],
  ])('YES probability of %j is %s', (market, p) => {
    const got = yesProbability(market)
    if (p === undefined) expect(got).toBeUndefined()
    else expect(got).toBeCloseTo(p, 12)
  })
})

describe('catalogue-bias: quotes', () => {
  it.each([
    ['neutral without a catalogue', {}, {}, ['buy@99.9x1', 'sell@100.1x1']],
    ['centre shifted up 10 bps', {}, { catalogue: catalogue() }, ['buy@99.99x1', 'sell@100.21x1']],
    ['no index: nothing, whatever the catalogue says', {}, { catalogue: catalogue(), index: undefined }, []],
    [
      'reduce-only still only reduces',
      {},
      { catalogue: catalogue(), mode: 'reduce-only', positionSize: '0.5' },
      ['sell@100.21x0.5 ro'],
    ],
    [
      'the shifted ask stays above a fresh best bid',
      {},
      { catalogue: catalogue(), bbo: bboAt('100.25', '100.4') },
      ['buy@99.99x1', 'sell@100.26x1'],
    ],
    [
      'a stale best bid changes nothing',
      {},
      { catalogue: catalogue(), bbo: bboAt('100.25', '100.4', 60_000) },
      ['buy@99.99x1', 'sell@100.21x1'],
    ],
  ] as const)('%s', (_n, p, s, expected) => {
    expect(summarize(strategy.quote(makeSnapshot(s), params(p)))).toEqual(expected)
  })

  it('asks the catalogue for the chosen event, or the busiest open events of a tag', () => {
    const byEvent = strategy.catalogue?.(params({ eventSlug: 'fed', refreshMs: 30_000 }))
    expect(byEvent).toEqual({ slugs: ['fed'], refreshMs: 30_000 })
    const byTag = strategy.catalogue?.(params())
    expect(byTag).toEqual({
      tagSlug: 'crypto',
      closed: false,
      order: ['volume24hr'],
      ascending: false,
      limit: 10,
      refreshMs: 60_000,
    })
    expect(CatalogueQuerySchema.safeParse(byTag).success).toBe(true)
  })
})
