import { describe, expect, it } from 'vitest'
import { realizedVol, strategy, volHalfSpreadBps } from '../../strategies/volSpread.ts'
import { bboAt, klines, makeSnapshot, NOW, summarize } from '../strategy/fixtures.ts'

const base = { size: '1', positionCap: '10', skewBps: 0 }
const params = (over: Record<string, unknown> = {}) => strategy.paramsSchema.parse({ ...base, ...over })
const stats = (closes: readonly string[], endMs?: number) => ({
  volume: '1000',
  openPrice: closes[0] ?? '0',
  klines: klines(closes, endMs),
})
const flat = Array.from({ length: 10 }, () => '100')
/** 11 closes alternating 100/101: 10 log returns ±ln(1.01), mean 0, σ = ln(1.01)·√(10/9) ≈ 0.010489. */
const zigzag = Array.from({ length: 11 }, (_, i) => (i % 2 === 0 ? '100' : '101'))

describe('vol-spread: realized volatility', () => {
  it.each([
    ['constant closes', flat.map(Number), 30, 5, 0],
    ['zigzag', zigzag.map(Number), 30, 5, Math.log(1.01) * Math.sqrt(10 / 9)],
    ['window keeps only the last returns', [1, 1000, 100, 100, 100], 2, 2, 0],
  ])('%s', (_n, closes, window, minSamples, sigma) => {
    expect(realizedVol(closes, window, minSamples)).toBeCloseTo(sigma, 12)
  })

  it('is unknown with fewer returns than minSamples, or non-positive closes', () => {
    expect(realizedVol([100, 101, 102], 30, 5)).toBeUndefined()
    expect(realizedVol([0, 0, 0, 0, 0, 0], 30, 2)).toBeUndefined()
  })

  it.each([
    [undefined, 200],
    [0, 5],
    [0.001, 20],
    [0.00101, 21],
    [1, 200],
  ])('σ %s → half-spread %i bps (multiplier 2, floor 5, ceiling 200)', (sigma, bps) => {
    expect(volHalfSpreadBps(sigma, params())).toBe(bps)
  })
})

describe('vol-spread: quotes', () => {
  it.each([
    [
      'calm klines: floor spread around the index',
      {},
      { statistics: stats(flat) },
      ['buy@99.95x1', 'sell@100.05x1'],
    ],
    ['no klines: ceiling spread', {}, { statistics: undefined }, ['buy@98x1', 'sell@102x1']],
    [
      'stale klines: ceiling spread',
      {},
      { statistics: stats(flat, NOW - 400_000) },
      ['buy@98x1', 'sell@102x1'],
    ],
    [
      'zigzag klines: 210 bps',
      { maxSpreadBps: 500 },
      { statistics: stats(zigzag) },
      ['buy@97.9x1', 'sell@102.1x1'],
    ],
    ['zigzag klines clamped to the ceiling', {}, { statistics: stats(zigzag) }, ['buy@98x1', 'sell@102x1']],
    [
      'no index: centred on the last close',
      {},
      { index: undefined, statistics: stats([...flat.slice(1), '50']) },
      // σ of nine flat returns and one −69% move is large → ceiling 200 bps around 50.
      ['buy@49x1', 'sell@51x1'],
    ],
    [
      'no index, calm klines: floor spread around the last close',
      {},
      { index: undefined, statistics: stats(Array.from({ length: 10 }, () => '50')) },
      ['buy@49.97x1', 'sell@50.03x1'],
    ],
    [
      'no index and stale klines: nothing',
      {},
      { index: undefined, statistics: stats(flat, NOW - 400_000) },
      [],
    ],
    ['no index and no klines: nothing', {}, { index: undefined }, []],
    [
      'widened doubles the vol spread',
      {},
      { statistics: stats(flat), mode: 'widened' },
      ['buy@99.9x0.5', 'sell@100.1x0.5'],
    ],
    ['position cap applies', {}, { statistics: stats(flat), positionSize: '-10' }, ['buy@99.95x1']],
  ] as const)('%s', (_n, p, s, expected) => {
    expect(summarize(strategy.quote(makeSnapshot(s), params(p)))).toEqual(expected)
  })

  it('keeps its quotes behind a fresh best bid/offer and ignores a stale one', () => {
    const s = (ageMs: number) => makeSnapshot({ statistics: stats(flat), bbo: bboAt('100.1', '99.9', ageMs) })
    expect(summarize(strategy.quote(s(1_000), params()))).toEqual(['buy@99.89x1', 'sell@100.11x1'])
    expect(summarize(strategy.quote(s(6_000), params()))).toEqual(['buy@99.95x1', 'sell@100.05x1'])
    expect(summarize(strategy.quote(s(6_000), params({ maxBboAgeMs: 10_000 })))).toEqual([
      'buy@99.89x1',
      'sell@100.11x1',
    ])
  })

  it('orders klines by open time before using them', () => {
    const s = stats([...flat.slice(1), '50'])
    const shuffled = { ...s, klines: [...s.klines].reverse() }
    const a = strategy.quote(makeSnapshot({ index: undefined, statistics: s }), params())
    const b = strategy.quote(makeSnapshot({ index: undefined, statistics: shuffled }), params())
    expect(b).toEqual(a)
  })

  it('rejects a floor above the ceiling', () => {
    const r = strategy.paramsSchema.safeParse({ ...base, minSpreadBps: 300, maxSpreadBps: 200 })
    expect(r.success).toBe(false)
    expect(r.error?.issues[0]?.path).toEqual(['minSpreadBps'])
  })
})
