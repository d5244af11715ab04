import { describe, expect, it } from 'vitest'
import { buildLadder } from '../../src/strategy/ladder.ts'
import { LadderParams } from '../../src/strategy/params.ts'
import { fundingSkewBps, imbalanceSkewBps } from '../../src/strategy/skews.ts'
import { bboAt, makeSnapshot, NOW } from './fixtures.ts'

const bbo = (bq: string, aq: string) => ({ bid: { price: '99', qty: bq }, ask: { price: '101', qty: aq } })

describe('ladder skews', () => {
  it.each([
    ['more bid than ask leans up', bbo('3', '1'), 10, 5],
    ['more ask than bid leans down', bbo('1', '3'), 10, -5],
    ['balanced: none', bbo('2', '2'), 10, 0],
    ['one side only: none', { bid: undefined, ask: { price: '101', qty: '1' } }, 10, 0],
    ['off', bbo('3', '1'), 0, 0],
  ])('book imbalance: %s', (_n, b, max, want) => {
    expect(imbalanceSkewBps(b, max)).toBe(want)
  })

  it.each([
    ['longs pay: lean down', '0.0001', -20],
    ['half the rate: half the lean', '0.00005', -10],
    ['shorts pay: lean up, clamped', '-0.01', 20],
    ['no rate', undefined, 0],
  ])('funding: %s', (_n, rate, want) => {
    expect(fundingSkewBps(rate, '0.0001', 20)).toBe(want)
  })

  it('moves the ladder by both signals and the inventory skew together', () => {
    const p = LadderParams.parse({
      size: '1',
      positionCap: '10',
      halfSpreadBps: 50,
      skewBps: 0,
      imbalanceSkewBps: 10,
      fundingSkewBps: 20,
      maxBboAgeMs: 5_000,
    })
    const plain = buildLadder(makeSnapshot(), p, { centre: '100' })
    expect(plain.map((q) => q.price)).toEqual(['99.5', '100.5'])
    // Imbalance +5 (bid 3 vs ask 1 → +0.5 × 10), funding −20: net −15 bps.
    const snap = makeSnapshot({
      index: { price: '100', ts: NOW - 1_000, fundingRate: '0.0002' },
      bbo: { ...bboAt('90', '110'), bid: { price: '90', qty: '3' }, ask: { price: '110', qty: '1' } },
    })
    const moved = buildLadder(snap, p, { centre: '100', bbo: snap.bbo })
    expect(moved.map((q) => q.price)).toEqual(['99.35', '100.35'])
  })
})
