/**
 * The calm market's premium (mark − index) mean-reverts around zero within seconds, so a market maker
 * quoting around the index is hit on both sides (issue 39.2): a premium that sits a few bps above the
 * index for minutes fills only asks.
 */
import { describe, expect, it } from 'vitest'
import { REGIME_PARAMS, stepConstants, stepPrice } from '../../../src/mock/perps/market/priceProcess.ts'
import { seededRandom } from '../../../src/random.ts'

function calmPremiumPath(seed: number, seconds: number): number[] {
  const state = { price: 3_200, basis: 0 }
  const k = stepConstants(1)
  const rng = seededRandom(seed)
  const out: number[] = []
  for (let i = 0; i < seconds; i++) {
    stepPrice(state, REGIME_PARAMS.calm, 0.0002, k, rng)
    out.push(state.basis)
  }
  return out
}

describe('the calm premium', () => {
  it.each([1, 2, 3, 4, 5])(
    'averages about zero and crosses it often within each 10 minutes (seed %i)',
    (seed) => {
      const path = calmPremiumPath(seed, 3_600)
      const mean = path.reduce((s, b) => s + b, 0) / path.length
      expect(Math.abs(mean)).toBeLessThan(0.0001) // 1 bp
      for (let from = 0; from < path.length; from += 600) {
        const window = path.slice(from, from + 600)
        expect(window.some((b) => b > 0.0002)).toBe(true)
        expect(window.some((b) => b < -0.0002)).toBe(true)
        let crossings = 0
        for (let i = 1; i < window.length; i++)
          if (Math.sign(window[i]!) !== Math.sign(window[i - 1]!)) crossings++
        expect(crossings).toBeGreaterThanOrEqual(5)
      }
    },
  )

  it('forgets a shock within a minute', () => {
    const state = { price: 3_200, basis: 0.002 }
    const k = stepConstants(1)
    const rng = seededRandom(7)
    for (let i = 0; i < 90; i++) stepPrice(state, REGIME_PARAMS.calm, 0.0002, k, rng)
    expect(Math.abs(state.basis)).toBeLessThan(0.0015)
    expect(REGIME_PARAMS.calm.basisTarget).toBe(0)
  })

  it('the calm-slow-premium regime (the market before 2026-12-06) keeps its premium for minutes, about 1 bp over the index', () => {
    const path = (regime: 'calm' | 'calm-slow-premium'): number[] => {
      const state = { price: 3_200, basis: REGIME_PARAMS[regime].basisTarget }
      const k = stepConstants(1)
      const rng = seededRandom(3)
      return Array.from({ length: 3_600 }, () => {
        stepPrice(state, REGIME_PARAMS[regime], 0.0002, k, rng)
        return state.basis
      })
    }
    const crossings = (p: number[]): number =>
      p.filter((b, i) => i > 0 && Math.sign(b) !== Math.sign(p[i - 1] ?? b)).length
    const slow = path('calm-slow-premium')
    expect(crossings(slow)).toBeLessThan(crossings(path('calm')) / 4)
    expect(slow.reduce((s, b) => s + b, 0) / slow.length).toBeGreaterThan(0)
  })
})
