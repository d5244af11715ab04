import { describe, expect, it } from 'vitest'
import { TokenBucket } from '../../src/mock/tokenBucket.ts'

function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start
  return { now: () => t, advance: (ms) => (t += ms) }
}

describe('TokenBucket', () => {
  it('admits up to capacity, then refuses with a whole-second Retry-After', () => {
    const clock = manualClock()
    const b = new TokenBucket(clock, 1000, 60_000)
    expect(b.take(600).ok).toBe(true)
    expect(b.take(400).ok).toBe(true)
    const refused = b.take(10)
    expect(refused.ok).toBe(false)
    // 10 tokens at 1000/60s take 0.6 s: rounded up to 1 s.
    expect(refused.retryAfterSeconds).toBe(1)
  })

  it('refills continuously so waiting Retry-After admits the request', () => {
    const clock = manualClock()
    const b = new TokenBucket(clock, 1000, 60_000)
    b.take(1000)
    const r = b.take(100)
    expect(r.ok).toBe(false)
    expect(r.retryAfterSeconds).toBe(6)
    clock.advance(r.retryAfterSeconds * 1000)
    expect(b.take(100).ok).toBe(true)
  })

  it('never exceeds capacity after a long idle period', () => {
    const clock = manualClock()
    const b = new TokenBucket(clock, 50, 1000)
    clock.advance(1_000_000)
    expect(b.available).toBe(50)
    expect(b.take(51).ok).toBe(false)
  })
})
