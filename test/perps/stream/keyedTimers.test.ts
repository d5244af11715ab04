import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { KeyedTimers } from '../../../src/perps/stream/socket/keyedTimers.ts'

describe('KeyedTimers', () => {
  it('keeps one timer per key: rescheduling replaces, clearing cancels, a fired one may reschedule', () => {
    const clock = new SimulatedClock()
    const t = new KeyedTimers<'a' | 'b'>(clock)
    const fired: string[] = []
    t.schedule('a', 100, () => fired.push('a1'))
    t.schedule('a', 200, () => fired.push('a2'))
    t.schedule('b', 50, () => {
      fired.push('b')
      t.schedule('b', 50, () => fired.push('b again'))
    })
    clock.increment(50)
    expect(fired).toEqual(['b'])
    clock.increment(100)
    expect(fired).toEqual(['b', 'b again'])
    t.clear('a')
    clock.increment(500)
    expect(fired).toEqual(['b', 'b again'])
  })
})
