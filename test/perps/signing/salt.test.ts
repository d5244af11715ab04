import { describe, expect, it } from 'vitest'
import { DEFAULT_SALT_MEMORY_MS, SaltSource } from '../../../src/perps/signing/salt.ts'
import type { Random } from '../../../src/random.ts'
import { seededRandom } from '../../../src/random.ts'

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const B = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const T0 = 1_767_000_000_000

/** Draws follow `values` cyclically; `int` ignores its bounds like a badly-behaved source would not. */
function cyclingRandom(values: readonly number[]): Random & { draws: number } {
  const r = {
    draws: 0,
    next: () => 0,
    int: (_min: number, _max: number) => values[r.draws++ % values.length] ?? 0,
    normal: () => 0,
    pick: <T>(items: readonly T[]): T => items[0] as T,
  }
  return r
}

describe('SaltSource', () => {
  it('draws uint32 values from the injected Random', () => {
    const src = new SaltSource(seededRandom(11))
    for (let i = 0; i < 200; i++) {
      const s = src.next(A, T0)
      expect(Number.isInteger(s) && s >= 0 && s <= 0xffff_ffff).toBe(true)
    }
  })

  it('redraws on collision', () => {
    const rnd = cyclingRandom([5, 5, 5, 8])
    const src = new SaltSource(rnd)
    expect(src.next(A, T0)).toBe(5)
    expect(src.next(A, T0)).toBe(8) // 5 (used) -> 5 -> 8
  })

  it('stays unique under a Random that always returns the same value (probes upward, wraps at 2^32)', () => {
    const src = new SaltSource(cyclingRandom([0xffff_fffe]))
    const got = Array.from({ length: 5 }, () => src.next(A, T0))
    expect(got).toStrictEqual([0xffff_fffe, 0xffff_ffff, 0, 1, 2])
  })

  it('keeps salts per signer (case-insensitive): another signer may reuse a value', () => {
    const src = new SaltSource(cyclingRandom([3]))
    expect(src.next(A, T0)).toBe(3)
    expect(src.next(B, T0)).toBe(3)
    expect(src.next(A.toLowerCase(), T0)).toBe(4)
  })

  it('forgets salts older than the memory window (by ts), and not before', () => {
    const src = new SaltSource(cyclingRandom([9]))
    expect(src.next(A, T0)).toBe(9)
    expect(src.next(A, T0 + DEFAULT_SALT_MEMORY_MS)).toBe(10) // 9 still remembered at the edge
    expect(src.next(A, T0 + DEFAULT_SALT_MEMORY_MS + 1)).toBe(9) // 9 (ts T0) expired; 10 not yet
    expect(src.size(A)).toBe(2)
  })

  it('bounds memory per signer', () => {
    const src = new SaltSource(seededRandom(5), { maxPerSigner: 100 })
    for (let i = 0; i < 1_000; i++) src.next(A, T0 + i)
    expect(src.size(A)).toBeLessThanOrEqual(100)
  })
})
