import { describe, expect, it } from 'vitest'
import { dueSteps, intervalGate, soakSteps } from '../../bench/soakPhases.ts'

const H = 3_600_000

describe('soakSteps', () => {
  it('is calm, trending, one crash episode per hour of the crash quarter (1..3), recovery', () => {
    const s = soakSteps(24 * H)
    expect(s.map((x) => x.phase)).toEqual(['calm', 'trending', 'crash', 'crash', 'crash', 'recovery'])
    expect(s.map((x) => x.at / H)).toEqual([0, 6, 12, 14, 16, 18])
    expect(soakSteps(H).filter((x) => x.phase === 'crash')).toHaveLength(1)
  })
})

describe('dueSteps', () => {
  const steps = soakSteps(4 * H)
  it('takes nothing before the next step', () => {
    expect(dueSteps(steps, 1, H - 1)).toEqual({ due: [], next: 1 })
  })
  it('takes a step at its virtual time, once', () => {
    const a = dueSteps(steps, 1, H)
    expect(a.due.map((x) => x.phase)).toEqual(['trending'])
    expect(dueSteps(steps, a.next, H + 1)).toEqual({ due: [], next: a.next })
  })
  it('takes every step a jump passed, in order', () => {
    const a = dueSteps(steps, 1, 3.5 * H)
    expect(a.due.map((x) => x.phase)).toEqual(['trending', 'crash', 'recovery'])
    expect(a.next).toBe(steps.length)
    expect(dueSteps(steps, a.next, 10 * H).due).toEqual([])
  })
})

describe('intervalGate', () => {
  it('fires once per interval, and once for a jump over several', () => {
    const gate = intervalGate(10, 100)
    expect([105, 110, 111, 119].map(gate)).toEqual([false, true, false, false])
    expect(gate(120)).toBe(true)
    expect(gate(155)).toBe(true)
    expect([159, 160].map(gate)).toEqual([false, true])
  })
})
