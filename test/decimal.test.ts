import { describe, expect, it } from 'vitest'
import {
  addDecimal,
  compareDecimal,
  decimalPlaces,
  divDecimal,
  divRound,
  fromTicks,
  mulDecimal,
  negateDecimal,
  normalizeDecimal,
  roundTicksToSigFigs,
  significantFigures,
  subDecimal,
  toTicks,
} from '../src/decimal.ts'
import { InputValidationError } from '../src/errors.ts'

describe('decimal', () => {
  it.each([
    ['100.5', 2, 10050n],
    ['-0.01', 2, -1n],
    ['3', 0, 3n],
    ['0.10', 1, 1n],
  ])('toTicks(%s, %i) = %s', (s, d, t) => {
    expect(toTicks(s, d)).toBe(t)
  })

  it('rejects precision loss unless a rounding mode is given', () => {
    expect(() => toTicks('1.005', 2)).toThrow(InputValidationError)
    expect(toTicks('1.005', 2, 'down')).toBe(100n)
    expect(toTicks('1.005', 2, 'up')).toBe(101n)
    expect(toTicks('1.005', 2, 'half-even')).toBe(100n)
    expect(toTicks('1.015', 2, 'half-even')).toBe(102n)
    expect(toTicks('-1.005', 2, 'down')).toBe(-101n)
  })

  it('formats ticks canonically', () => {
    expect(fromTicks(10050n, 2)).toBe('100.5')
    expect(fromTicks(-1n, 3)).toBe('-0.001')
    expect(fromTicks(300n, 2)).toBe('3')
    expect(fromTicks(0n, 4)).toBe('0')
    expect(normalizeDecimal('0100.500')).toBe('100.5')
  })

  it('rejects non-decimal strings', () => {
    for (const bad of ['1e5', '', '.5', '1.', 'NaN', '0x10', ' 1']) expect(() => toTicks(bad, 2)).toThrow()
  })

  it.each([
    ['100.5', 4],
    ['1200.0', 2],
    ['0.00123', 3],
    ['123.45', 5],
    ['123.456', 6],
    ['100', 1],
    ['0', 0],
  ])('significantFigures(%s) = %i', (s, n) => {
    expect(significantFigures(s)).toBe(n)
  })

  it('counts decimal places ignoring trailing zeros', () => {
    expect(decimalPlaces('1.50')).toBe(1)
    expect(decimalPlaces('7')).toBe(0)
  })

  it('answers the same when asked again, also after its cache of spellings filled and was cleared', () => {
    const spellings = Array.from({ length: 5_000 }, (_, i) => `${i}.${String(i % 1000).padStart(3, '0')}0`)
    const first = spellings.map((s) => [significantFigures(s), decimalPlaces(s)])
    expect(spellings.map((s) => [significantFigures(s), decimalPlaces(s)])).toEqual(first)
    expect(first[1234]).toEqual([7, 3])
    expect(first[2000]).toEqual([1, 0])
    expect(() => significantFigures('1e5')).toThrow(InputValidationError)
    expect(() => significantFigures('1e5')).toThrow(InputValidationError)
  })

  it('does exact arithmetic', () => {
    expect(addDecimal('0.1', '0.2')).toBe('0.3')
    expect(subDecimal('1', '1.25')).toBe('-0.25')
    expect(mulDecimal('1.5', '-2.25')).toBe('-3.375')
    expect(divDecimal('1', '3', 4, 'down')).toBe('0.3333')
    expect(divDecimal('2', '3', 4, 'half-even')).toBe('0.6667')
    expect(compareDecimal('1.10', '1.1')).toBe(0)
    expect(compareDecimal('-2', '1')).toBe(-1)
  })

  it('subtracts as the sum with the negated spelling did, and refuses what is not a decimal', () => {
    const spellings = [
      '0',
      '0.00',
      '-0',
      '-0.0',
      '1',
      '1.25',
      '-1.250',
      '0.001',
      '123456789.123456789',
      '-7',
      '10',
    ]
    for (const a of spellings)
      for (const b of spellings) expect(subDecimal(a, b)).toBe(addDecimal(a, negateDecimal(b)))
    expect(subDecimal('-0.10', '0.1')).toBe('-0.2')
    expect(() => subDecimal('1', '--1')).toThrow(InputValidationError)
    expect(() => subDecimal('1', 'x')).toThrow(InputValidationError)
    expect(() => subDecimal('x', '1')).toThrow(InputValidationError)
  })

  it('rounds integer division in every mode', () => {
    expect(divRound(7n, 2n, 'down')).toBe(3n)
    expect(divRound(-7n, 2n, 'down')).toBe(-4n)
    expect(divRound(-7n, 2n, 'up')).toBe(-3n)
    expect(divRound(5n, 2n, 'half-even')).toBe(2n)
    expect(divRound(7n, 2n, 'half-even')).toBe(4n)
  })

  it('rounds ticks to five significant figures, integers exempt', () => {
    // 123.456 with 3 decimals -> 123.46 (down: 123.45)
    expect(roundTicksToSigFigs(123456n, 3, 5, 'down')).toBe(123450n)
    expect(roundTicksToSigFigs(123456n, 3, 5, 'up')).toBe(123460n)
    // 123456.7 with 1 decimal -> the nearest integer price is valid (integers are exempt)
    expect(roundTicksToSigFigs(1234567n, 1, 5, 'down')).toBe(1234560n)
    expect(roundTicksToSigFigs(999n, 2, 5, 'down')).toBe(999n)
  })
})
