import { describe, expect, it } from 'vitest'
import { SequenceTracker } from '../../../src/perps/stream/sequenceTracker.ts'
import { MessageWindow } from '../../../src/perps/stream/socket/messageWindow.ts'
import { DEFAULT_BACKOFF, reconnectDelay } from '../../../src/perps/stream/socket/reconnectBackoff.ts'
import { seededRandom } from '../../../src/random.ts'

describe('SequenceTracker', () => {
  it('reports gaps, duplicates and steps back once each, per channel', () => {
    const t = new SequenceTracker()
    expect(t.observe('a', 5)).toEqual({ gap: false })
    expect(t.observe('a', 6)).toEqual({ gap: false })
    expect(t.observe('b', 0)).toEqual({ gap: false })
    expect(t.observe('a', 8)).toEqual({ gap: true, previous: 6 })
    expect(t.observe('a', 9)).toEqual({ gap: false })
    expect(t.observe('a', 9)).toEqual({ gap: true, previous: 9 })
    expect(t.observe('a', 3)).toEqual({ gap: true, previous: 9 })
    t.reset()
    expect(t.observe('a', 100)).toEqual({ gap: false })
  })
})

describe('reconnectDelay', () => {
  it('is full jitter under a capped exponential', () => {
    const r = seededRandom(3)
    for (let attempt = 0; attempt < 20; attempt++) {
      const ceiling = Math.min(250 * 2 ** attempt, 30_000)
      for (let i = 0; i < 50; i++) {
        const d = reconnectDelay(attempt, DEFAULT_BACKOFF, r)
        expect(d).toBeGreaterThanOrEqual(0)
        expect(d).toBeLessThan(ceiling)
      }
    }
    expect(reconnectDelay(10_000, DEFAULT_BACKOFF, { ...r, next: () => 0.999 })).toBeLessThan(30_000)
  })
})

describe('MessageWindow', () => {
  it('admits at most the limit in any 60 s window', () => {
    const w = new MessageWindow(3)
    expect([w.tryTake(0), w.tryTake(10), w.tryTake(20), w.tryTake(30)]).toEqual([true, true, true, false])
    expect(w.nextFreeAt(30)).toBe(60_000)
    expect(w.tryTake(59_999)).toBe(false)
    expect(w.tryTake(60_000)).toBe(true)
    expect(w.used(60_000)).toBe(3)
    expect(() => new MessageWindow(0)).toThrow(RangeError)
  })
})
