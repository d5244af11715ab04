import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { pacedTimers } from '../../../src/bot/actors/pacedTimers.ts'
import type { Clock } from '../../../src/clock.ts'

/** A base clock stepped by hand, and a schedule whose turns run by hand. */
/** `stepMs`: how long each timer callback takes on the pacer's monotonic clock (0: never past the budget). */
function harness(perTurn: number, stepMs = 0) {
  const sim = new SimulatedClock()
  const base: Clock = {
    now: () => sim.now(),
    setTimeout: (fn, ms) => sim.setTimeout(fn, ms),
    clearTimeout: (id) => {
      if (typeof id === 'number') sim.clearTimeout(id)
    },
  }
  const turns: (() => void)[] = []
  let t = 0
  const clock = pacedTimers(base, {
    perTurn,
    schedule: (fn) => void turns.push(fn),
    budgetMs: 0.5,
    elapsed: () => t,
  })
  const spend = (): void => {
    t += stepMs
  }
  const turn = (): void => {
    const fn = turns.shift()
    if (fn === undefined) throw new Error('no turn booked')
    fn()
  }
  return { sim, clock, turns, turn, spend }
}

describe('paced timers (the actors on the wall clock)', () => {
  it('ends a turn once it has run past its budget, at least one timer a turn', () => {
    const h = harness(8, 0.3)
    const ran: string[] = []
    for (const name of ['a', 'b', 'c']) {
      h.clock.setTimeout(() => {
        h.spend()
        ran.push(name)
      }, 10)
    }
    h.sim.increment(10)
    h.turn()
    expect(ran).toEqual(['a', 'b'])
    h.turn()
    expect(ran).toEqual(['a', 'b', 'c'])
    expect(h.turns).toHaveLength(0)
  })

  it('runs timers that came due in their order, a few per turn, the rest on the next turns', () => {
    const h = harness(2)
    const ran: string[] = []
    for (const name of ['a', 'b', 'c', 'd', 'e']) h.clock.setTimeout(() => ran.push(name), 10)
    h.sim.increment(9)
    expect(h.turns).toHaveLength(0)
    h.sim.increment(1)
    // Due, but nothing runs inside the timers phase: the socket reads go first.
    expect(ran).toEqual([])
    expect(h.turns).toHaveLength(1)
    h.turn()
    expect(ran).toEqual(['a', 'b'])
    h.turn()
    expect(ran).toEqual(['a', 'b', 'c', 'd'])
    h.turn()
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(h.turns).toHaveLength(0)
  })

  it('never runs a cleared timer, whether it was still waiting or already due and queued', () => {
    const h = harness(1)
    const ran: string[] = []
    const waiting = h.clock.setTimeout(() => ran.push('waiting'), 20)
    h.clock.setTimeout(() => ran.push('first'), 10)
    const queued = h.clock.setTimeout(() => ran.push('queued'), 10)
    h.clock.setTimeout(() => ran.push('last'), 10)
    h.sim.increment(10)
    h.clock.clearTimeout(queued)
    h.clock.clearTimeout(waiting)
    h.turn()
    h.turn()
    h.sim.increment(20)
    expect(h.turns).toHaveLength(0)
    expect(ran).toEqual(['first', 'last'])
  })

  it('a timer set by a running one waits for its own time; the clock reads through', () => {
    const h = harness(8)
    const ran: number[] = []
    h.clock.setTimeout(() => {
      ran.push(h.clock.now())
      h.clock.setTimeout(() => ran.push(h.clock.now()), 5)
    }, 10)
    h.sim.increment(10)
    h.turn()
    expect(ran).toEqual([10])
    expect(h.turns).toHaveLength(0)
    h.sim.increment(5)
    h.turn()
    expect(ran).toEqual([10, 15])
  })
})
