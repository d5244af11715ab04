import { describe, expect, it } from 'vitest'
import { InputValidationError } from '../../src/errors.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'

const T0 = 1_767_225_600_000

/** A controllable wall clock for the real and accelerated modes. */
function fakeWall(start = 1_000_000): VirtualClock {
  return new VirtualClock({ mode: 'stepped', startMs: start })
}

describe('VirtualClock (stepped)', () => {
  it('does not move unless advanced or set', () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: T0 })
    expect(clock.now()).toBe(T0)
    clock.advance(1_500)
    expect(clock.now()).toBe(T0 + 1_500)
    clock.set(T0 + 10_000)
    expect(clock.now()).toBe(T0 + 10_000)
    expect(clock.info()).toEqual({ mode: 'stepped', rate: 0, now: T0 + 10_000, pendingTimers: 0 })
  })

  it('fires timers in due order as time passes them, with now() at each due time', () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: T0 })
    const fired: [string, number][] = []
    clock.setTimeout(() => fired.push(['c', clock.now()]), 300)
    clock.setTimeout(() => fired.push(['a', clock.now()]), 100)
    clock.setTimeout(() => fired.push(['b', clock.now()]), 100)
    clock.advance(99)
    expect(fired).toEqual([])
    clock.advance(150)
    expect(fired).toEqual([
      ['a', T0 + 100],
      ['b', T0 + 100],
    ])
    expect(clock.now()).toBe(T0 + 249)
    clock.set(T0 + 300)
    expect(fired.at(-1)).toEqual(['c', T0 + 300])
  })

  it('fires timers that callbacks schedule inside the advanced window', () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const ticks: number[] = []
    const tick = (): void => {
      ticks.push(clock.now())
      clock.setTimeout(tick, 1_000)
    }
    clock.setTimeout(tick, 1_000)
    clock.advance(3_500)
    expect(ticks).toEqual([1_000, 2_000, 3_000])
    expect(clock.info().pendingTimers).toBe(1)
  })

  it('clearTimeout cancels a pending timer, and a zero or negative delay fires on the next advance', () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    let cancelled = false
    let immediate = 0
    const id = clock.setTimeout(() => {
      cancelled = true
    }, 10)
    clock.setTimeout(() => immediate++, -5)
    clock.clearTimeout(id)
    clock.advance(0)
    clock.advance(100)
    expect(cancelled).toBe(false)
    expect(immediate).toBe(1)
  })

  it('refuses to travel backwards or advance by a negative amount', () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: T0 })
    expect(() => clock.set(T0 - 1)).toThrow(InputValidationError)
    expect(() => clock.set(T0 - 1)).toThrow(/backwards/)
    expect(() => clock.advance(-1)).toThrow(InputValidationError)
    expect(clock.now()).toBe(T0)
  })

  it('dispose drops pending timers', () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    let fired = false
    clock.setTimeout(() => {
      fired = true
    }, 10)
    clock.dispose()
    clock.advance(20)
    expect(fired).toBe(false)
  })
})

describe('VirtualClock (real, accelerated) over an injected wall clock', () => {
  it('real mode is wall time plus the offset, and timers fire by wall time', () => {
    const wall = fakeWall(5_000)
    const clock = new VirtualClock({ mode: 'real', offsetMs: 250, base: wall })
    expect(clock.now()).toBe(5_250)
    let firedAt = -1
    clock.setTimeout(() => {
      firedAt = clock.now()
    }, 100)
    wall.advance(99)
    expect(firedAt).toBe(-1)
    wall.advance(1)
    expect(firedAt).toBe(5_350)
    expect(clock.info()).toMatchObject({ mode: 'real', rate: 1 })
  })

  it('accelerated mode starts at the given time and runs factor times faster, timers included', () => {
    const wall = fakeWall(0)
    const clock = new VirtualClock({ mode: 'accelerated', startMs: T0, factor: 60, base: wall })
    wall.advance(1_000)
    expect(clock.now()).toBe(T0 + 60_000)
    const fired: number[] = []
    clock.setTimeout(() => fired.push(clock.now()), 60_000)
    wall.advance(999)
    expect(fired).toEqual([])
    wall.advance(1)
    expect(fired).toEqual([T0 + 120_000])
    expect(clock.factor).toBe(60)
  })

  it('advance in a wall-driven mode jumps time forward and fires what fell due', () => {
    const wall = fakeWall(0)
    const clock = new VirtualClock({ mode: 'accelerated', startMs: 0, factor: 2, base: wall })
    const fired: number[] = []
    clock.setTimeout(() => fired.push(clock.now()), 10_000)
    clock.advance(10_000)
    expect(fired).toEqual([10_000])
    wall.advance(5)
    expect(clock.now()).toBe(10_010)
    expect(() => clock.set(0)).toThrow(/backwards/)
    // The wall timer for the fired timer was dropped with it.
    expect(wall.info().pendingTimers).toBe(0)
  })

  it('rejects a non-positive factor', () => {
    expect(() => new VirtualClock({ mode: 'accelerated', factor: 0 })).toThrow(InputValidationError)
  })
})
