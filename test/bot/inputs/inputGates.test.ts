import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { createInputGates, gatedRun } from '../../../src/bot/inputs/inputGates.ts'
import { createPollerHealth, startHealthyPoller } from '../../../src/bot/inputs/pollerHealth.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import { createWatchdog } from '../../../src/ops/watchdog.ts'

const microtasks = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

/** A 3 s poller behind the portfolio gate, recording the clock time of every REST read. */
function setup(enabled = true) {
  const clock = new SimulatedClock()
  const sources = createInputGates({ clock, enabled })
  const gate = sources.gate('portfolio')
  const reads: number[] = []
  let hold: Promise<void> | undefined
  const watchdog = createWatchdog({
    clock,
    stallMs: 4_000,
    probe: { enable: () => {}, disable: () => {}, maxDelayMs: () => 0, reset: () => {} },
  })
  const health = createPollerHealth({ watchdog, graceMs: 1_000, clock })
  const poller = startHealthyPoller({
    name: 'portfolio',
    clock,
    logger: createLogger({ pretty: 'never', destination: { write: () => {} } }),
    health,
    intervalMs: () => 3_000,
    run: gatedRun(gate, async () => {
      reads.push(clock.now())
      await hold
    }),
  })
  gate.onResume(() => poller.trigger())
  /** Runs what is due now (a triggered poller's zero-delay timer) and the promises it settles. */
  const flush = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      await microtasks()
      clock.increment(0)
    }
    await microtasks()
  }
  const step = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 100) {
      clock.increment(100)
      await flush()
    }
  }
  return {
    clock,
    sources,
    gate,
    reads,
    poller,
    watchdog,
    step,
    flush,
    holdReads: (p: Promise<void> | undefined) => {
      hold = p
    },
  }
}

describe('input gates', () => {
  it('polls until the stream is healthy, resyncs once, then stands down while the loop keeps beating', async () => {
    const t = setup()
    await t.flush()
    await t.step(6_000)
    expect(t.reads).toEqual([0, 3_000, 6_000])
    t.sources.setHealthy('portfolio', true)
    await t.flush()
    // Back on the stream: one resync read at once, then nothing.
    expect(t.reads).toEqual([0, 3_000, 6_000, 6_000])
    expect(t.sources.snapshot().portfolio).toMatchObject({ source: 'stream', standDowns: 1 })
    await t.step(30_000)
    expect(t.reads).toHaveLength(4)
    // Standing down is not silence: the watchdog still hears the loop.
    expect(t.watchdog.check().ok).toBe(true)
    await t.poller.stop()
  })

  it('resumes polling at once when the stream goes stale, and stands down again when it is back', async () => {
    const t = setup()
    await t.flush()
    t.sources.setHealthy('portfolio', true)
    await t.flush()
    await t.step(10_000)
    const before = t.reads.length
    t.sources.setHealthy('portfolio', false)
    await t.flush()
    // No wait for the 3 s interval.
    expect(t.reads.length).toBe(before + 1)
    expect(t.reads.at(-1)).toBe(10_000)
    await t.step(6_000)
    expect(t.reads.slice(before)).toEqual([10_000, 13_000, 16_000])
    expect(t.sources.snapshot().portfolio).toMatchObject({ source: 'poll', resumes: 1 })
    t.sources.setHealthy('portfolio', true)
    await t.flush()
    const back = t.reads.length
    await t.step(20_000)
    expect(t.reads.length).toBe(back)
    expect(t.sources.snapshot().portfolio).toMatchObject({ source: 'stream', standDowns: 2 })
    await t.poller.stop()
  })

  it('after a gap, only a read that began after it resyncs', async () => {
    const t = setup()
    await t.flush()
    t.sources.setHealthy('portfolio', true)
    await t.flush()
    expect(t.gate.standingDown()).toBe(true)
    // A read in flight when the gap is reported may have missed what the gap lost.
    let release: () => void = () => {}
    t.holdReads(
      new Promise<void>((r) => {
        release = r
      }),
    )
    t.gate.want()
    await t.flush()
    const inFlight = t.reads.length
    t.sources.gap('portfolio')
    t.holdReads(undefined)
    release()
    await t.flush()
    // The in-flight read ended (not a resync); the trigger queued during it reads again.
    expect(t.reads.length).toBe(inFlight + 1)
    expect(t.gate.standingDown()).toBe(true)
    expect(t.sources.snapshot().portfolio).toMatchObject({ source: 'stream', resyncs: 2 })
    await t.step(10_000)
    expect(t.reads.length).toBe(inFlight + 1)
    await t.poller.stop()
  })

  it('a failed resync keeps polling', async () => {
    const clock = new SimulatedClock()
    const sources = createInputGates({ clock, enabled: true })
    const gate = sources.gate('fills')
    sources.setHealthy('fills', true)
    const failing = gatedRun(gate, async () => {
      throw new Error('503')
    })
    await expect(failing(new AbortController().signal)).rejects.toThrow('503')
    expect(gate.standingDown()).toBe(false)
    await gatedRun(gate, async () => {})(new AbortController().signal)
    expect(gate.standingDown()).toBe(true)
  })

  it('with streams off every input polls, whatever the stream side says', async () => {
    const t = setup(false)
    await t.flush()
    t.sources.setHealthy('portfolio', true)
    t.sources.gap('portfolio')
    await t.step(9_000)
    expect(t.reads).toEqual([0, 3_000, 6_000, 9_000])
    expect(t.sources.snapshot().portfolio?.source).toBe('poll')
    await t.poller.stop()
  })
})
