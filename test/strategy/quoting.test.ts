import { describe, expect, it } from 'vitest'
import { capacityTicks, inventorySkewBps, priceBoundTicks } from '../../src/strategy/ladder.ts'
import {
  meetsMinNotional,
  positionCapProblems,
  roundPriceTicks,
  roundQtyTicks,
  validateQuotes,
} from '../../src/strategy/quoting.ts'
import { computeMarginRatio, type DesiredQuote } from '../../src/strategy/strategy.ts'
import { INSTRUMENT, makeSnapshot } from './fixtures.ts'

const q = (side: 'buy' | 'sell', price: string, qty = '1', reduceOnly?: boolean): DesiredQuote => ({
  side,
  price,
  qty,
  ...(reduceOnly === undefined ? {} : { reduceOnly }),
})

describe('rounding', () => {
  it.each([
    // ticks, decimals, side → ticks
    [123456789n, 4, 'buy', 123450000n], // 12345.6789 → 12345
    [123456789n, 4, 'sell', 123460000n], // → 12346
    [123451n, 4, 'buy', 123450n], // 12.3451 → 12.345
    [123451n, 4, 'sell', 123460n], // → 12.346
    [12345678n, 2, 'buy', 12345600n], // 123456.78 → 123456 (integer, exempt)
    [12345678n, 2, 'sell', 12345700n], // → 123457
    [99999n, 0, 'sell', 99999n],
  ] as const)('roundPriceTicks(%s, %i, %s) = %s', (ticks, d, side, out) => {
    expect(roundPriceTicks(ticks, d, side)).toBe(out)
  })

  it.each([
    [123456n, 3, 123450n], // 123.456 → 123.45
    [123456n, 0, 123450n], // quantities are not exempt: 123456 → 123450
    [99n, 2, 99n],
  ])('roundQtyTicks(%s, %i) = %s', (ticks, d, out) => {
    expect(roundQtyTicks(ticks, d)).toBe(out)
  })

  it('compares notional exactly', () => {
    const inst = { ...INSTRUMENT, minNotional: '10' }
    expect(meetsMinNotional(1000n, 1000n, inst)).toBe(true) // 10.00 × 1.000
    expect(meetsMinNotional(999n, 1000n, inst)).toBe(false)
  })
})

describe('validateQuotes', () => {
  it('accepts well-formed quotes', () => {
    expect(
      validateQuotes(makeSnapshot(), [q('buy', '99.9'), q('sell', '100.1'), q('sell', '123456', '0.001')]),
    ).toEqual([])
  })

  it.each([
    [[q('buy', '99.999')], 'more than 2 decimals'],
    [[q('buy', '1234.56')], 'more than 5 significant figures'],
    [[q('buy', '0')], 'not positive'],
    [[q('buy', '1e3')], 'not a decimal string'],
    [[q('buy', '99', '0.0001')], 'qty 0.0001 has more than 3 decimals'],
    [[q('buy', '99', '123.456')], 'qty 123.456 has more than 5 significant figures'],
    [[q('buy', '99', '0')], 'qty 0 is not positive'],
    [[q('buy', '100'), q('sell', '100')], 'quotes cross'],
    [[{ side: 'bid', price: '1', qty: '1' } as unknown as DesiredQuote], 'side must be'],
  ])('%j → %s', (quotes, message) => {
    expect(validateQuotes(makeSnapshot(), quotes).join('\n')).toContain(message)
  })

  it('checks min notional and the order count', () => {
    const s = makeSnapshot({ instrument: { minNotional: '100', maxOrderCount: 1 } })
    const issues = validateQuotes(s, [q('buy', '99.9'), q('sell', '100.1')])
    expect(issues.join('\n')).toContain('below the minimum 100')
    expect(issues.join('\n')).toContain('exceed the instrument')
  })

  it('in reduce-only mode checks the flag, the side and the total', () => {
    const s = makeSnapshot({ mode: 'reduce-only', positionSize: '1.5' })
    expect(validateQuotes(s, [q('sell', '100.1', '1', true), q('sell', '100.2', '0.5', true)])).toEqual([])
    expect(validateQuotes(s, [q('sell', '100.1', '1')]).join()).toContain('reduceOnly: true')
    expect(validateQuotes(s, [q('buy', '99.9', '1', true)]).join()).toContain('does not reduce')
    expect(validateQuotes(s, [q('sell', '100.1', '2', true)]).join()).toContain('more than |position|')
    expect(
      validateQuotes(makeSnapshot({ mode: 'reduce-only' }), [q('buy', '99', '1', true)]).join(),
    ).toContain('does not reduce')
  })
})

describe('position cap', () => {
  it.each([
    ['flat, within', undefined, [q('buy', '1', '10'), q('sell', '2', '10')], 0],
    ['flat, buys over', undefined, [q('buy', '1', '6'), q('buy', '1', '4.001')], 1],
    ['long 4, sells to −10', '4', [q('sell', '2', '14')], 0],
    ['long 4, sells past −10', '4', [q('sell', '2', '14.5')], 1],
    ['short 12 beyond the cap: no sells', '-12', [q('sell', '2', '0.001')], 1],
    ['short 12 beyond the cap: buys up to +10', '-12', [q('buy', '1', '22')], 0],
    ['short 12 beyond the cap: buys past +10', '-12', [q('buy', '1', '22.5')], 1],
  ] as const)('%s', (_n, size, quotes, problems) => {
    expect(positionCapProblems(makeSnapshot({ positionSize: size }), quotes, '10')).toHaveLength(problems)
  })
})

describe('ladder helpers', () => {
  it.each([
    ['0', '10', 3, 10_000n, 10_000n],
    ['4', '10', 3, 6_000n, 14_000n],
    ['-12', '10', 0, 22n, 0n],
    ['12', '10', 0, 0n, 22n],
    ['0.0005', '1', 3, 999n, 1_000n], // room rounds down
  ])('capacity(pos %s, cap %s, qd %i) = buy %s, sell %s', (pos, cap, qd, buy, sell) => {
    expect(capacityTicks(pos, cap, qd)).toEqual({ buy, sell })
  })

  it.each([
    ['5', '10', 10, -5],
    ['-5', '10', 10, 5],
    ['30', '10', 10, -10],
    ['0.99', '10', 10, 0], // truncated toward zero
    ['5', '10', 0, 0],
  ])('skew(pos %s, cap %s, %i bps) = %i', (pos, cap, bps, out) => {
    expect(inventorySkewBps(pos, cap, bps)).toBe(out)
  })

  it('price bounds round inward and are off without a reference or a fraction', () => {
    expect(priceBoundTicks('100.005', '0.05', 2)).toEqual({ low: 9501n, high: 10500n })
    expect(priceBoundTicks(undefined, '0.05', 2)).toBeUndefined()
    expect(priceBoundTicks('100', '0', 2)).toBeUndefined()
  })
})

describe('computeMarginRatio', () => {
  it.each([
    ['1000', '0', 0],
    ['1000', '250', 0.25],
    ['100', '100', 1],
    ['0', '10', Number.POSITIVE_INFINITY],
    ['-5', '10', Number.POSITIVE_INFINITY],
  ])('account %s, maintenance %s → %s', (av, mm, r) => {
    expect(computeMarginRatio(av, mm)).toBe(r)
  })
})
