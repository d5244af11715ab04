import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { type Clock, systemClock } from '../../src/clock.ts'
import { InputValidationError } from '../../src/errors.ts'
import { createEventLoopProbe, createWatchdog, type LoopDelayProbe } from '../../src/ops/watchdog.ts'

/** A probe the test drives: `stall(ms)` records one event-loop delay. */
function fakeProbe(): LoopDelayProbe & { stall(ms: number): void; enabled: boolean } {
  let max = 0
  const probe = {
    enabled: false,
    enable: () => {
      probe.enabled = true
    },
    disable: () => {
      probe.enabled = false
    },
    maxDelayMs: () => max,
    reset: () => {
      max = 0
    },
    stall: (ms: number) => {
      if (probe.enabled) max = Math.max(max, ms)
    },
  }
  return probe
}

function setup(stallMs = 4_000) {
  const clock = new SimulatedClock()
  const probe = fakeProbe()
  const dog = createWatchdog({ clock, stallMs, sampleMs: 1_000, probe })
  return { clock, probe, dog }
}

describe('createWatchdog', () => {
  it('is live while a loop beats within its bound, fails once it stops, and fails for good after stop(reason)', () => {
    const { clock, dog } = setup()
    dog.register('index:BTC', 5_000)
    clock.increment(5_000)
    expect(dog.check()).toEqual({ ok: true, reasons: [] })
    clock.increment(1)
    expect(dog.check()).toEqual({
      ok: false,
      reasons: ['loop "index:BTC" made no progress for 5001 ms (limit 5000 ms)'],
    })
    dog.beat('index:BTC')
    expect(dog.check().ok).toBe(true)
    expect(dog.state().loops).toEqual([{ name: 'index:BTC', silentMs: 0, maxSilenceMs: 5_000 }])
    dog.stop('operator')
    dog.beat('index:BTC')
    expect(dog.check()).toEqual({ ok: false, reasons: ['stopped: operator'] })
  })

  it('names every silent loop with its own bound, and forgets unregistered ones', () => {
    const { clock, dog } = setup()
    dog.register('portfolio', 10_000)
    dog.register('account-monitor', 60_000)
    clock.increment(30_000)
    expect(dog.check().reasons).toEqual(['loop "portfolio" made no progress for 30000 ms (limit 10000 ms)'])
    clock.increment(40_000)
    expect(dog.check().reasons).toHaveLength(2)
    dog.unregister('portfolio')
    dog.beat('account-monitor')
    dog.beat('never-registered')
    expect(dog.check()).toEqual({ ok: true, reasons: [] })
  })

  it('fails while the event loop stalled past the bound in the current or the last window', () => {
    const { clock, probe, dog } = setup(4_000)
    dog.start()
    expect(probe.enabled).toBe(true)
    probe.stall(4_000)
    expect(dog.check().ok).toBe(true)
    probe.stall(4_500)
    expect(dog.check()).toEqual({ ok: false, reasons: ['event loop stalled for 4500 ms (limit 4000 ms)'] })
    // The window closes: the stall is still reported for one more window, then forgotten.
    clock.increment(1_000)
    expect(dog.check().ok).toBe(false)
    expect(dog.state().eventLoopDelayMs).toBe(4_500)
    clock.increment(1_000)
    expect(dog.check()).toEqual({ ok: true, reasons: [] })
  })

  it('reports loop and event-loop failures together', () => {
    const { clock, probe, dog } = setup(1_000)
    dog.start()
    dog.register('feeds', 2_000)
    probe.stall(1_500)
    clock.increment(2_500)
    expect(dog.check().reasons).toEqual([
      'event loop stalled for 1500 ms (limit 1000 ms)',
      'loop "feeds" made no progress for 2500 ms (limit 2000 ms)',
    ])
  })

  it('measures nothing before start() or after stop(), and stop() without a reason stays live', () => {
    const { clock, probe, dog } = setup(1_000)
    probe.stall(9_000)
    expect(dog.check().ok).toBe(true)
    dog.start()
    dog.start()
    probe.stall(2_000)
    expect(dog.check().ok).toBe(false)
    dog.stop()
    expect(probe.enabled).toBe(false)
    expect(dog.check()).toEqual({ ok: true, reasons: [] })
    // No sampling timer is left behind.
    clock.increment(10_000)
    expect(dog.check().ok).toBe(true)
  })

  it('rejects a duplicate loop, a bound that is not positive and bad options', () => {
    const { dog } = setup()
    dog.register('a', 1)
    expect(() => dog.register('a', 1)).toThrow(InputValidationError)
    expect(() => dog.register('b', 0)).toThrow(/positive bound/)
    expect(() => dog.register('c', Number.POSITIVE_INFINITY)).toThrow(/positive bound/)
    expect(() => createWatchdog({ clock: new SimulatedClock(), stallMs: 0 })).toThrow(InputValidationError)
  })

  it('times the event-loop window on the wall clock with the real probe, not on a stepped bot clock', () => {
    const armed: string[] = []
    const counting = (name: string, base: Clock): Clock => ({
      now: () => base.now(),
      setTimeout: (fn, ms) => {
        armed.push(name)
        return base.setTimeout(fn, ms)
      },
      clearTimeout: (id) => base.clearTimeout(id),
    })
    const clock = counting('bot', new SimulatedClock())
    const real = createWatchdog({ clock, stallMs: 4_000, windowClock: counting('wall', systemClock) })
    real.start()
    real.stop()
    const faked = createWatchdog({ clock, stallMs: 4_000, probe: fakeProbe() })
    faked.start()
    faked.stop()
    expect(armed).toEqual(['wall', 'bot'])
    // Without a window clock the real probe's window runs on the wall clock: the bot's clock arms nothing.
    armed.length = 0
    const byDefault = createWatchdog({ clock, stallMs: 4_000 })
    byDefault.start()
    byDefault.stop()
    expect(armed).toEqual([])
  })

  it('the real probe reports 0 ms until it has samples (not the empty histogram sentinel)', () => {
    const probe = createEventLoopProbe()
    expect(probe.maxDelayMs()).toBe(0)
    probe.enable()
    probe.reset()
    expect(probe.maxDelayMs()).toBe(0)
    probe.disable()
  })
})
