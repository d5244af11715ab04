import { describe, expect, it } from 'vitest'
import { OffsetClock } from '../../../src/clock.ts'
import { InputValidationError } from '../../../src/errors.ts'
import {
  defaultExp,
  estimateClockOffset,
  MAX_EXP_AHEAD_MS,
  validateExp,
} from '../../../src/perps/signing/timing.ts'

const NOW = 1_767_000_000_000

describe('estimateClockOffset', () => {
  it('uses the midpoint of send and receive', () => {
    // Sent at 1000, answered at 1200 local; the server read 5100 halfway (local 1100): offset +4000.
    expect(estimateClockOffset(1_000, 5_100, 1_200)).toBe(4_000)
    expect(estimateClockOffset(NOW, NOW - 250, NOW + 100)).toBe(-300)
  })

  it('rounds to whole ms so signed ts stay integers', () => {
    expect(estimateClockOffset(0, 10, 1)).toBe(10) // 10 - 0.5 = 9.5 -> 10
    expect(Number.isInteger(estimateClockOffset(3, 1_000, 4))).toBe(true)
  })

  it('feeds an OffsetClock', () => {
    const base = { now: () => 2_000, setTimeout: () => undefined, clearTimeout: () => undefined }
    const clock = new OffsetClock(base)
    clock.setOffset(estimateClockOffset(1_000, 7_000, 1_400))
    expect(clock.now()).toBe(2_000 + 5_800)
  })

  it('rejects a receive time before the send time and non-finite inputs', () => {
    expect(() => estimateClockOffset(10, 0, 9)).toThrow(InputValidationError)
    expect(() => estimateClockOffset(0, Number.NaN, 1)).toThrow(InputValidationError)
  })
})

describe('validateExp', () => {
  it.each([
    [NOW, false],
    [NOW - 1, false],
    [NOW + 1, true],
    [NOW + 5_000, true],
    [NOW + 5_001, false],
    [NOW + 1.5, false],
  ])('exp %d at now -> valid %s', (exp, ok) => {
    if (ok) expect(() => validateExp(exp, NOW)).not.toThrow()
    else expect(() => validateExp(exp, NOW)).toThrow(InputValidationError)
  })
})

describe('defaultExp', () => {
  it('is now + N clamped to the 5 s maximum', () => {
    expect(defaultExp(NOW, 2_000)).toBe(NOW + 2_000)
    expect(defaultExp(NOW, 60_000)).toBe(NOW + MAX_EXP_AHEAD_MS)
    expect(defaultExp(NOW)).toBe(NOW + 5_000)
    expect(() => validateExp(defaultExp(NOW, 10_000), NOW)).not.toThrow()
  })

  it('rejects a non-positive lead', () => {
    expect(() => defaultExp(NOW, 0)).toThrow(InputValidationError)
    expect(() => defaultExp(NOW, -5)).toThrow(InputValidationError)
  })
})
