import { describe, expect, it } from 'vitest'
import { createRouteQueue } from '../../../../src/bot/inputs/streams/routeQueue.ts'

type Ev = { type: 'INDEX' | 'BBO' | 'ACCOUNT'; v: number }

/** `stepMs`: how long each routed event takes on the queue's monotonic clock (0: never past the budget). */
function setup(chunk = 2, stepMs = 0) {
  const due: (() => void)[] = []
  const routed: string[] = []
  let t = 0
  const queue = createRouteQueue<Ev>({
    route: (ids, e) => {
      t += stepMs
      routed.push(`${e.type}:${ids.join(',')}=${e.v}`)
    },
    schedule: (fn) => void due.push(fn),
    chunk,
    budgetMs: 0.5,
    elapsed: () => t,
  })
  const turn = (): void => {
    for (const fn of due.splice(0)) fn()
  }
  return { queue, routed, turn, due }
}

describe('the route queue', () => {
  it('ends a turn once it has run past its budget, at least one event a turn', () => {
    const { queue, routed, turn } = setup(9, 0.3)
    for (const id of [1, 2, 3, 4, 5]) queue.later([id], { type: 'BBO', v: 1 })
    turn()
    // 0.3 ms, then 0.6 ms: past the 0.5 ms budget after the second.
    expect(routed).toEqual(['BBO:1=1', 'BBO:2=1'])
    turn()
    expect(routed).toHaveLength(4)
    turn()
    expect(routed).toHaveLength(5)
    const slow = setup(9, 2)
    for (const id of [1, 2]) slow.queue.later([id], { type: 'BBO', v: 1 })
    slow.turn()
    expect(slow.routed).toEqual(['BBO:1=1'])
  })

  it('routes now at once and later after, a chunk per turn, oldest first', () => {
    const { queue, routed, turn } = setup(2)
    queue.later([1], { type: 'BBO', v: 1 })
    queue.later([2], { type: 'BBO', v: 1 })
    queue.later([3], { type: 'BBO', v: 1 })
    queue.now([7], { type: 'INDEX', v: 9 })
    expect(routed).toEqual(['INDEX:7=9'])
    turn()
    expect(routed).toEqual(['INDEX:7=9', 'BBO:1=1', 'BBO:2=1'])
    turn()
    expect(routed.at(-1)).toBe('BBO:3=1')
    expect(queue.pending).toBe(0)
  })

  it('keeps the newest queued event per instrument and type, and fans a multi-instrument event out', () => {
    const { queue, routed, turn } = setup(10)
    queue.later([1, 2], { type: 'ACCOUNT', v: 1 })
    queue.later([1], { type: 'ACCOUNT', v: 2 })
    queue.later([1], { type: 'BBO', v: 3 })
    expect(queue.pending).toBe(3)
    turn()
    expect(routed).toEqual(['ACCOUNT:1=2', 'ACCOUNT:2=1', 'BBO:1=3'])
  })

  it('an event routed now drops the older queued one of its instrument and type (no going back in time)', () => {
    const { queue, routed, turn } = setup(10)
    queue.later([1], { type: 'INDEX', v: 1 })
    queue.later([2], { type: 'INDEX', v: 1 })
    queue.now([1], { type: 'INDEX', v: 2 })
    turn()
    expect(routed).toEqual(['INDEX:1=2', 'INDEX:2=1'])
  })

  it('clear drops everything queued; a turn booked before does nothing', () => {
    const { queue, routed, turn, due } = setup(10)
    queue.later([1], { type: 'BBO', v: 1 })
    queue.clear()
    turn()
    expect(routed).toEqual([])
    queue.later([1], { type: 'BBO', v: 2 })
    expect(due).toHaveLength(1)
    turn()
    expect(routed).toEqual(['BBO:1=2'])
  })
})
