import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { startPoller } from '../../../src/bot/shared/poller.ts'

const tick = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

describe('startPoller', () => {
  it('runs immediately, then every interval after each run finishes', async () => {
    const clock = new SimulatedClock()
    const runs: number[] = []
    const p = startPoller({
      name: 't',
      clock,
      intervalMs: () => 1_000,
      run: async () => {
        runs.push(clock.now())
      },
      onError: () => undefined,
    })
    await tick()
    clock.increment(999)
    await tick()
    expect(runs).toEqual([0])
    clock.increment(1)
    await tick()
    expect(runs).toEqual([0, 1_000])
    await p.stop()
    clock.increment(10_000)
    await tick()
    expect(runs).toHaveLength(2)
  })

  it('never overlaps runs and coalesces triggers during a run', async () => {
    const clock = new SimulatedClock()
    let active = 0
    let maxActive = 0
    let release: (() => void) | undefined
    let count = 0
    const p = startPoller({
      name: 't',
      clock,
      intervalMs: () => 1_000,
      run: () => {
        count++
        active++
        maxActive = Math.max(maxActive, active)
        return new Promise<void>((r) => {
          release = () => {
            active--
            r()
          }
        })
      },
      onError: () => undefined,
    })
    p.trigger()
    p.trigger()
    release?.()
    await tick()
    clock.increment(0)
    await tick()
    expect(count).toBe(2)
    expect(maxActive).toBe(1)
    release?.()
    await p.stop()
  })

  it('backs off exponentially on failures and recovers', async () => {
    const clock = new SimulatedClock()
    const errors: number[] = []
    const runs: number[] = []
    let fail = 2
    const p = startPoller({
      name: 't',
      clock,
      intervalMs: () => 100,
      run: async () => {
        runs.push(clock.now())
        if (fail-- > 0) throw new Error('down')
      },
      onError: (_e, n) => errors.push(n),
    })
    await tick()
    for (let i = 0; i < 10; i++) {
      clock.increment(100)
      await tick()
    }
    expect(errors).toEqual([1, 2])
    // 0 (fail) → +200 (fail) → +400 (ok) → +100 …
    expect(runs.slice(0, 4)).toEqual([0, 200, 600, 700])
    expect(p.failures).toBe(0)
    await p.stop()
  })

  it('retries a failure after retryMs (doubling), not a whole long interval later', async () => {
    const clock = new SimulatedClock()
    const runs: number[] = []
    let fail = 2
    const p = startPoller({
      name: 't',
      clock,
      intervalMs: () => 60_000,
      retryMs: 5_000,
      run: async () => {
        runs.push(clock.now())
        if (fail-- > 0) throw new Error('down')
      },
      onError: () => undefined,
    })
    await tick()
    for (let i = 0; i < 100; i++) {
      clock.increment(1_000)
      await tick()
    }
    // 0 (fail) → +10 s (fail) → +20 s (ok) → +60 s …
    expect(runs).toEqual([0, 10_000, 30_000, 90_000])
    await p.stop()
  })
})
