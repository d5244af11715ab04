/**
 * WindowBudget's line: Bottleneck orders the jobs that wait (priority, FIFO within one), our code
 * accounts the weight and admits the head when it fits. Fake timers drive both the budget's window and
 * Bottleneck's internal `setTimeout(0)` hops.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { systemClock } from '../../../src/clock.ts'
import { LimiterAbortedError, StoppedError } from '../../../src/perps/throttle/limiterErrors.ts'
import {
  type Admission,
  type JobPriority,
  QUEUE_RANK,
  WindowBudget,
} from '../../../src/perps/throttle/windowBudget.ts'
import { seededRandom } from '../../../src/random.ts'
import { flushMicrotasks, tick } from './helpers.ts'

const WINDOW = 1_000
let budgets: WindowBudget[] = []
/** Shared part 10 (no reserve), a 1 s window. */
function budget(limit = 10, reserve = 0): WindowBudget {
  const b = new WindowBudget({ name: 'request', limit, reserve, windowMs: WINDOW, clock: systemClock })
  budgets.push(b)
  return b
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 })
})
afterEach(async () => {
  await Promise.all(budgets.map((b) => b.stop()))
  budgets = []
  await tick()
  vi.useRealTimers()
})

/** Queues a job and records the order of admissions; each admission is sent at once. */
function line(b: WindowBudget, order: string[]) {
  return (name: string, weight: number, priority: JobPriority, signal?: AbortSignal) =>
    b.admit(weight, priority, signal).then((a: Admission) => {
      order.push(name)
      a.release(true)
      return name
    })
}

describe('the line in Bottleneck', () => {
  it('admits waiting jobs by priority, FIFO within a priority, and a head that gave way stays ahead of its peers', async () => {
    const b = budget()
    b.tryTakeShared(10, 'read')?.release(true) // the whole window is spent
    const order: string[] = []
    const q = line(b, order)
    const jobs = [q('quote1', 2, 'quote')]
    await tick() // quote1 holds the turn, waiting for room
    jobs.push(q('quote2', 2, 'quote'), q('read1', 2, 'read'), q('risk1', 2, 'risk'), q('read2', 2, 'read'))
    await tick()
    expect(order).toEqual([])
    expect(b.queued()).toBe(5)
    await tick(WINDOW)
    await Promise.all(jobs)
    expect(order).toEqual(['risk1', 'read1', 'read2', 'quote1', 'quote2'])
    expect(b.state().used).toBe(10)
  })

  it('an aborted job inside the line rejects at once; its stale job takes no weight and does not hold the rest', async () => {
    const b = budget()
    b.tryTakeShared(10, 'read')?.release(true)
    const order: string[] = []
    const q = line(b, order)
    const controller = new AbortController()
    const first = q('first', 4, 'read')
    const aborted = q('aborted', 6, 'read', controller.signal).catch((e: unknown) => e)
    const last = q('last', 6, 'read')
    await tick()
    controller.abort()
    expect(await aborted).toBeInstanceOf(LimiterAbortedError)
    expect(b.queued()).toBe(2)
    await tick(WINDOW)
    await Promise.all([first, last])
    // 4 + 6: the aborted job's 6 was never taken.
    expect(order).toEqual(['first', 'last'])
    expect(b.state().used).toBe(10)
  })

  it('no synchronous shared take overtakes a job of the same or a higher priority in the line', async () => {
    const b = budget()
    b.tryTakeShared(8, 'read')?.release(true)
    const waiting = b.admit(5, 'read') // does not fit: lines up
    await tick()
    expect(b.tryTakeShared(2, 'quote')).toBeUndefined()
    expect(b.tryTakeShared(2, 'read')).toBeUndefined()
    const risk = b.tryTakeShared(2, 'risk') // a higher priority may use the room the head cannot
    expect(risk).toBeDefined()
    risk?.release(false)
    await tick(WINDOW)
    await waiting
  })

  it('a read holding the turn through a pause of reads gives way to risk work that needs shared weight', async () => {
    const b = budget()
    b.tryTakeShared(10, 'read')?.release(true)
    const order: string[] = []
    const q = line(b, order)
    const read = q('read', 2, 'read')
    await tick() // the read holds Bottleneck's turn, waiting for room
    b.setPaused('other', true)
    const risk = q('risk', 4, 'risk')
    await tick(WINDOW)
    await risk
    expect(order).toEqual(['risk']) // the read, paused, is still waiting; it did not hold risk
    b.setPaused('other', false)
    await read
    expect(order).toEqual(['risk', 'read'])
    expect(b.state().used).toBe(6)
  })

  it('stop rejects the head, the line and jobs parked by a pause with StoppedError', async () => {
    const b = budget()
    b.tryTakeShared(10, 'read')?.release(true)
    const head = b.admit(2, 'read').catch((e: unknown) => e)
    await tick()
    const lined = b.admit(2, 'quote').catch((e: unknown) => e)
    b.setPaused('risk', true)
    const parked = b.admit(2, 'risk').catch((e: unknown) => e)
    await flushMicrotasks()
    expect(b.queued()).toBe(3)
    await b.stop()
    for (const e of [await head, await lined, await parked]) expect(e).toBeInstanceOf(StoppedError)
    expect(b.queued()).toBe(0)
    await expect(b.admit(1, 'risk')).rejects.toBeInstanceOf(StoppedError)
  })
})

describe('order under random arrivals', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`seed ${seed}: jobs that all wait are admitted by priority, then arrival`, async () => {
      const rnd = seededRandom(seed)
      const b = budget(100)
      b.tryTakeShared(100, 'read')?.release(true)
      const order: string[] = []
      const q = line(b, order)
      const priorities: JobPriority[] = ['risk', 'read', 'quote']
      const arrivals: { name: string; rank: number; i: number }[] = []
      const jobs: Promise<string>[] = []
      for (let i = 0; i < 30; i++) {
        const priority = rnd.pick(priorities)
        const name = `${priority}${i}`
        arrivals.push({ name, rank: QUEUE_RANK[priority], i })
        jobs.push(q(name, 3, priority))
        if (rnd.next() < 0.5) await tick(rnd.int(0, 5))
      }
      await tick(2 * WINDOW) // the budget comes back at WINDOW; each admission from the line takes a few hops
      await Promise.all(jobs)
      expect(order).toEqual(arrivals.sort((x, y) => x.rank - y.rank || x.i - y.i).map((a) => a.name))
    })
  }
})
