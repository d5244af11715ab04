import { describe, expect, it } from 'vitest'
import { RecentCache } from '../src/recentCache.ts'

describe('RecentCache', () => {
  it('keeps a key in use however many others pass by, and holds at most two generations', () => {
    const c = new RecentCache<number>(4)
    c.set('bounds', 1)
    for (let i = 0; i < 1_000; i++) {
      c.set(`price ${i}`, i)
      // Read as every plan reads the instrument's bounds: it moves back to the young generation.
      expect(c.get('bounds')).toBe(1)
      expect(c.size).toBeLessThanOrEqual(8)
    }
    // A key not read for two generations is gone.
    expect(c.get('price 0')).toBeUndefined()
    expect(c.get('price 999')).toBe(999)
  })

  it('finds a key of the old generation until a second turnover', () => {
    const c = new RecentCache<string>(2)
    c.set('a', 'A')
    c.set('b', 'B')
    c.set('c', 'C') // a, b become the old generation
    expect(c.get('a')).toBe('A') // moved back: the young generation is c, a
    c.set('d', 'D') // c, a old; b dropped
    expect(c.get('b')).toBeUndefined()
    expect(c.get('a')).toBe('A')
    expect(c.get('c')).toBe('C')
  })
})
