import { describe, expect, it } from 'vitest'
import { strategy } from '../../strategies/indexPeg.ts'
import { bboAt, makeSnapshot, NOW, summarize } from '../strategy/fixtures.ts'

const base = { size: '1', positionCap: '10', halfSpreadBps: 10, skewBps: 0 }
const params = (over: Record<string, unknown> = {}) => strategy.paramsSchema.parse({ ...base, ...over })

describe('index-peg', () => {
  it.each([
    ['flat: one level each side at ±10 bps', {}, {}, ['buy@99.9x1', 'sell@100.1x1']],
    [
      'three levels 5 bps apart',
      { levels: 3 },
      {},
      ['buy@99.9x1', 'buy@99.85x1', 'buy@99.8x1', 'sell@100.1x1', 'sell@100.15x1', 'sell@100.2x1'],
    ],
    [
      'long half the cap skews both quotes down 5 bps',
      { skewBps: 10 },
      { positionSize: '5' },
      ['buy@99.85x1', 'sell@100.05x1'],
    ],
    [
      'short half the cap skews both quotes up 5 bps (rounding widens)',
      { skewBps: 10 },
      { positionSize: '-5' },
      ['buy@99.94x1', 'sell@100.16x1'],
    ],
    ['the skew saturates at the cap', { skewBps: 10 }, { positionSize: '-30' }, ['buy@99.99x1']],
    [
      'bid trimmed to the room left under the cap',
      {},
      { positionSize: '9.5' },
      ['buy@99.9x0.5', 'sell@100.1x1'],
    ],
    ['no bid at the cap', {}, { positionSize: '10' }, ['sell@100.1x1']],
    ['beyond the short cap only the bid remains', {}, { positionSize: '-12' }, ['buy@99.9x1']],
    ['widened: twice the spread, half the size', {}, { mode: 'widened' }, ['buy@99.8x0.5', 'sell@100.2x0.5']],
    [
      'reduce-only long: sells only, totalling |position|',
      { levels: 3 },
      { mode: 'reduce-only', positionSize: '2.5' },
      ['sell@100.1x1 ro', 'sell@100.15x1 ro', 'sell@100.2x0.5 ro'],
    ],
    [
      'reduce-only short: a bid for |position|',
      {},
      { mode: 'reduce-only', positionSize: '-0.4' },
      ['buy@99.9x0.4 ro'],
    ],
    ['reduce-only flat: nothing', {}, { mode: 'reduce-only' }, []],
    ['no index: nothing', {}, { index: undefined }, []],
    ['stale index: nothing', {}, { index: { price: '100', ts: NOW - 61_000 } }, []],
    [
      'maxIndexAgeMs 0 accepts any age',
      { maxIndexAgeMs: 0 },
      { index: { price: '100', ts: 0 } },
      ['buy@99.9x1', 'sell@100.1x1'],
    ],
    [
      'in liquidation: nothing',
      {},
      {
        margin: {
          accountValue: '1',
          initialMargin: '2',
          maintenanceMargin: '1',
          marginRatio: 1,
          inLiquidation: true,
        },
      },
      [],
    ],
    ['below min notional dropped', {}, { instrument: { minNotional: '100' } }, ['sell@100.1x1']],
    [
      '5 significant figures: bid down, ask up',
      {},
      { indexPrice: '12345.678', instrument: { priceDecimals: 4 } },
      ['buy@12333x1', 'sell@12359x1'],
    ],
    [
      'integer prices are exempt from the sig-fig rule',
      {},
      { indexPrice: '1234567', instrument: { priceDecimals: 2 } },
      ['buy@1233332x1', 'sell@1235802x1'],
    ],
    [
      'quantity rounded down to 5 significant figures',
      { size: '1.234567' },
      { instrument: { quantityDecimals: 8 } },
      ['buy@99.9x1.2345', 'sell@100.1x1.2345'],
    ],
    [
      'quantity rounded down to the quantity decimals',
      { size: '1.99' },
      { instrument: { quantityDecimals: 0 } },
      ['buy@99.9x1', 'sell@100.1x1'],
    ],
    [
      'levels outside the price bounds dropped',
      { levels: 3 },
      { instrument: { priceBounds: '0.0015' } },
      ['buy@99.9x1', 'buy@99.85x1', 'sell@100.1x1', 'sell@100.15x1'],
    ],
    ['all levels outside tight bounds: nothing', {}, { instrument: { priceBounds: '0.0005' } }, []],
    [
      'max order count trims the outermost levels',
      { levels: 2 },
      { instrument: { maxOrderCount: 3 } },
      ['buy@99.9x1', 'buy@99.85x1', 'sell@100.1x1'],
    ],
  ] as const)('%s', (_name, p, s, expected) => {
    expect(summarize(strategy.quote(makeSnapshot(s), params(p)))).toEqual(expected)
  })

  describe('behind the best bid and offer (index 100: bid 99.9, ask 100.1)', () => {
    it.each([
      ['inside the book: unchanged', {}, bboAt('99.5', '100.5'), ['buy@99.9x1', 'sell@100.1x1']],
      ['locked at the centre: unchanged', {}, bboAt('100', '100'), ['buy@99.9x1', 'sell@100.1x1']],
      [
        'a bid above the best ask moves one tick below it',
        {},
        bboAt('99.7', '99.85'),
        ['buy@99.84x1', 'sell@100.1x1'],
      ],
      [
        'a bid at the best ask moves one tick below it',
        {},
        bboAt('99.7', '99.9'),
        ['buy@99.89x1', 'sell@100.1x1'],
      ],
      [
        'an ask below the best bid moves one tick above it',
        {},
        bboAt('100.2', '100.3'),
        ['buy@99.9x1', 'sell@100.21x1'],
      ],
      [
        'an ask at the best bid moves one tick above it',
        {},
        bboAt('100.1', '100.3'),
        ['buy@99.9x1', 'sell@100.11x1'],
      ],
      ['crossed book: both sides behind it', {}, bboAt('100.3', '99.7'), ['buy@99.69x1', 'sell@100.31x1']],
      ['ask-only book limits the bids only', {}, bboAt(undefined, '99.5'), ['buy@99.49x1', 'sell@100.1x1']],
      ['bid-only book limits the asks only', {}, bboAt('100.5', undefined), ['buy@99.9x1', 'sell@100.51x1']],
      ['empty book: unchanged', {}, bboAt(undefined, undefined), ['buy@99.9x1', 'sell@100.1x1']],
      [
        'levels that land on the same price collapse into one',
        { levels: 3 },
        bboAt('99', '99.86'),
        ['buy@99.85x1', 'buy@99.8x1', 'sell@100.1x1', 'sell@100.15x1', 'sell@100.2x1'],
      ],
      [
        'stale (older than maxBboAgeMs 5 s): ignored',
        {},
        bboAt('100.3', '99.7', 5_001),
        ['buy@99.9x1', 'sell@100.1x1'],
      ],
      ['5 s old: still fresh', {}, bboAt('100.3', '99.7', 5_000), ['buy@99.69x1', 'sell@100.31x1']],
      [
        'maxBboAgeMs 0 trusts any age',
        { maxBboAgeMs: 0 },
        bboAt('100.3', '99.7', 3_600_000),
        ['buy@99.69x1', 'sell@100.31x1'],
      ],
      ['a moved bid outside the price bounds is dropped', {}, bboAt('90', '94'), ['sell@100.1x1']],
    ] as const)('%s', (_name, p, bbo, expected) => {
      expect(summarize(strategy.quote(makeSnapshot({ bbo }), params(p)))).toEqual(expected)
    })

    it('reduce-only quotes stay behind the book too', () => {
      const s = makeSnapshot({ mode: 'reduce-only', positionSize: '2', bbo: bboAt('100.4', '100.6') })
      expect(summarize(strategy.quote(s, params()))).toEqual(['sell@100.41x1 ro'])
    })
  })

  it('prices come out canonical and tagged by level', () => {
    const q = strategy.quote(makeSnapshot({ indexPrice: '100.00' }), params({ levels: 2 }))
    expect(q.map((x) => x.tag)).toEqual(['bid-0', 'bid-1', 'ask-0', 'ask-1'])
    expect(q[0]).toEqual({ side: 'buy', price: '99.9', qty: '1', tag: 'bid-0' })
  })

  it('requires size and positionCap and rejects unknown keys', () => {
    const r = strategy.paramsSchema.safeParse({ halfSpreadBps: 0, sise: '1' })
    expect(r.success).toBe(false)
    const paths = r.error?.issues.map((i) => i.path.join('.') || i.message) ?? []
    expect(paths).toEqual(expect.arrayContaining(['size', 'positionCap', 'halfSpreadBps']))
    expect(JSON.stringify(r.error?.issues)).toContain('sise')
  })

  it('accepts numbers for decimal params and normalizes them', () => {
    const p = params({ size: 0.25, positionCap: '010.50' })
    expect(p.size).toBe('0.25')
    expect(p.positionCap).toBe('10.5')
    expect(() => params({ size: 1e-7 })).toThrow(/plain decimal/)
  })
})
