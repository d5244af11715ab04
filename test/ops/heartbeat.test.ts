import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { createHeartbeat } from '../../src/ops/heartbeat.ts'

describe('createHeartbeat', () => {
  it('is live while beats arrive within the limit, fails once they stop, and fails for good after stop()', () => {
    const clock = new SimulatedClock()
    const hb = createHeartbeat({ clock, staleAfterMs: 5_000 })
    clock.increment(5_000)
    expect(hb.check().ok).toBe(true)
    clock.increment(1)
    expect(hb.check()).toEqual({ ok: false, reason: 'no heartbeat for 5001 ms (limit 5000 ms)' })
    hb.beat()
    expect(hb.check().ok).toBe(true)
    expect(hb.lastBeatAt).toBe(5_001)
    hb.stop('operator')
    hb.beat()
    expect(hb.check()).toEqual({ ok: false, reason: 'stopped: operator' })
  })
})
