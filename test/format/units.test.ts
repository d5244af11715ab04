import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  amount,
  BROWSER_FORMAT_JS,
  fillSide,
  grouped,
  percent,
  price,
  quantity,
  sig3,
  tickLabels,
} from '../../src/format/units.ts'

describe('units', () => {
  it('ratios as percentages with sensible precision', () => {
    expect(percent(1.083)).toBe('108.3%')
    expect(percent(0.8)).toBe('80%')
    expect(percent(0.0028950248059319943)).toBe('0.29%')
    expect(percent(0.05)).toBe('5%')
    expect(percent(undefined)).toBe('n/a')
    expect(percent(Number.POSITIVE_INFINITY)).toBe('n/a')
    expect(sig3(0.0028950248059319943)).toBe('0.0029')
    expect(sig3(1234.5678)).toBe('1,235')
  })

  it('prices at the instrument decimals, quantities signed', () => {
    expect(price('58123.456', 1)).toBe('58,123.5')
    expect(price(58_000, 2)).toBe('58,000.00')
    expect(price(null, 2)).toBe('n/a')
    expect(quantity('-0.005', 3)).toBe('-0.005')
    expect(quantity(-0.0001, 3)).toBe('0')
  })

  it('amounts with their currency; small ones not rounded to zero', () => {
    expect(amount(1234.567, 'USDC')).toBe('1,234.57 USDC')
    expect(amount('-12.3', 'pUSD')).toBe('-12.30 pUSD')
    expect(amount(0.00123, 'USDC')).toBe('0.00123 USDC')
    expect(amount(0, 'USDC')).toBe('0.00 USDC')
    expect(amount(5, undefined)).toBe('5.00')
  })

  it('fill sides as a person says them', () => {
    expect(fillSide('long')).toBe('buy')
    expect(fillSide('short')).toBe('sell')
    expect(fillSide('BUY')).toBe('buy')
    expect(fillSide('sell')).toBe('sell')
  })

  it('tick labels keep signs, separators and enough decimals', () => {
    expect(tickLabels([57_000, 57_500, 58_000], 500, 1, '')).toEqual(['57,000', '57,500', '58,000'])
    expect(tickLabels([-0.005, 0, 0.005], 0.005, 1, '')).toEqual(['-0.005', '0.000', '0.005'])
    expect(tickLabels([0.0008, 0.001, 0.0012], 0.0002, 100, '%')).toEqual(['0.08%', '0.10%', '0.12%'])
    expect(tickLabels([0, 0.25, 0.5], 0.25, 1, '')).toEqual(['0.00', '0.25', '0.50'])
  })

  it('runs the same in the browser (source text without bundler helpers)', () => {
    expect(BROWSER_FORMAT_JS).not.toContain('__name')
    const browser = new Function(`${BROWSER_FORMAT_JS}; return { percent, amount, tickLabels };`)() as {
      percent: typeof percent
      amount: typeof amount
      tickLabels: typeof tickLabels
    }
    expect(browser.percent(1.083)).toBe('108.3%')
    expect(browser.amount(0.00123, 'USDC')).toBe('0.00123 USDC')
    expect(browser.tickLabels([-0.005, 0], 0.005, 1, '')).toEqual(['-0.005', '0.000'])
  })
})

describe('grouped without ICU', () => {
  const viaIcu = (v: number, min: number, max: number): string => {
    const s = v.toLocaleString('en-US', { minimumFractionDigits: min, maximumFractionDigits: max })
    return /^-[0.,]+$/.test(s) ? s.slice(1) : s
  }

  it('writes what toLocaleString("en-US") writes, for any number and digit counts', () => {
    const digitCounts = fc
      .integer({ min: 0, max: 14 })
      .chain((min) => fc.tuple(fc.constant(min), fc.integer({ min, max: 20 })))
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), digitCounts, (v, [min, max]) => {
        expect(grouped(v, min, max)).toBe(viaIcu(v, min, max))
      }),
      { numRuns: 20_000 },
    )
  })

  it('agrees on ties: decimals cut one digit short of what they have', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2e12, max: 2e12 }), fc.integer({ min: 1, max: 9 }), (n, k) => {
        const v = n / 10 ** k
        expect(grouped(v, 0, k - 1)).toBe(viaIcu(v, 0, k - 1))
        expect(grouped(v, k - 1, k - 1)).toBe(viaIcu(v, k - 1, k - 1))
      }),
      { numRuns: 20_000 },
    )
  })

  it('rounds the shortest decimal half away from zero, carries, and pads', () => {
    const cases: [number, number, number][] = [
      [1.005, 0, 2],
      [2.675, 2, 2],
      [-2.675, 0, 2],
      [0.995, 0, 2],
      [999.9996, 2, 3],
      [999_999.5, 0, 0],
      [-0.0001, 0, 2],
      [-0, 2, 2],
      [0, 0, 0],
      [1e-7, 0, 8],
      [1.5e-7, 0, 7],
      [123_456_789.125, 2, 2],
      [9.999999999999999e20, 0, 2],
      [0.1 + 0.2, 0, 20],
      [5e-324, 0, 20],
      [Number.MAX_SAFE_INTEGER, 0, 2],
    ]
    for (const [v, min, max] of cases)
      expect(grouped(v, min, max), `${v} ${min} ${max}`).toBe(viaIcu(v, min, max))
  })

  it('leaves to ICU what it does not handle', () => {
    expect(grouped(Number.POSITIVE_INFINITY, 0, 2)).toBe('∞')
    expect(grouped(Number.NaN, 0, 2)).toBe('NaN')
    expect(grouped(1e21, 0, 0)).toBe('1,000,000,000,000,000,000,000')
    expect(() => grouped(1, 3, 2)).toThrow(RangeError)
  })
})
