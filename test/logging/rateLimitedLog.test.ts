import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { createLogger } from '../../src/logging/logger.ts'
import { createRateLimitedLog, OVERFLOW_KIND, RateLimitedGate } from '../../src/logging/rateLimitedLog.ts'

describe('RateLimitedGate', () => {
  it('lets one line per kind through per interval and counts the rest', () => {
    const gate = new RateLimitedGate({ intervalMs: 1_000 })
    expect(gate.note('gap', 0)).toEqual({ kind: 'gap', suppressed: 0 })
    expect(gate.note('gap', 10)).toBeUndefined()
    expect(gate.note('gap', 999)).toBeUndefined()
    expect(gate.note('gap', 1_000)).toEqual({ kind: 'gap', suppressed: 2 })
    expect(gate.totals()).toEqual({ written: 2, suppressed: 2 })
  })

  it('alternating kinds do not reset each other (a rotation of malformed frames)', () => {
    const gate = new RateLimitedGate({ intervalMs: 1_000 })
    const kinds = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']
    let written = 0
    for (let t = 0; t < 10_000; t++) if (gate.note(kinds[t % kinds.length] ?? 'a', t) !== undefined) written++
    // 9 kinds, a line each per second over 10 s.
    expect(written).toBe(9 * 10)
  })

  it('holds at most maxKinds kinds; later ones share the overflow slot', () => {
    const gate = new RateLimitedGate({ intervalMs: 1_000, maxKinds: 3 })
    for (let i = 0; i < 1_000; i++) gate.note(`kind-${i}`, 0)
    expect(gate.size).toBe(3)
    expect(gate.note('kind-5000', 1)).toBeUndefined()
    expect(gate.drain(1_000).find((v) => v.kind === OVERFLOW_KIND)?.suppressed).toBe(1_000 - 2)
  })

  it('drain reports the tail of a burst once its interval is over, then forgets quiet kinds', () => {
    const gate = new RateLimitedGate({ intervalMs: 1_000 })
    gate.note('gap', 0)
    gate.note('gap', 1)
    gate.note('gap', 2)
    expect(gate.drain(500)).toEqual([])
    expect(gate.drain(1_000)).toEqual([{ kind: 'gap', suppressed: 2 }])
    expect(gate.size).toBe(1)
    expect(gate.drain(2_000)).toEqual([])
    expect(gate.size).toBe(0)
    expect(gate.note('gap', 2_001)).toEqual({ kind: 'gap', suppressed: 0 })
  })

  it('property: lines per kind ≤ ⌈span / interval⌉ + 1, and every event is written or counted', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 50 })), {
          maxLength: 300,
        }),
        fc.integer({ min: 1, max: 200 }),
        (events, interval) => {
          const gate = new RateLimitedGate({ intervalMs: interval })
          let now = 0
          const lines: Record<string, number> = {}
          let counted = 0
          for (const [kind, dt] of events) {
            now += dt
            const v = gate.note(kind, now)
            if (v !== undefined) {
              lines[kind] = (lines[kind] ?? 0) + 1
              counted += 1 + v.suppressed
            }
          }
          for (const v of gate.drain(now, true)) counted += v.suppressed
          expect(counted).toBe(events.length)
          for (const n of Object.values(lines)) expect(n).toBeLessThanOrEqual(Math.ceil(now / interval) + 1)
        },
      ),
    )
  })
})

describe('createRateLimitedLog', () => {
  it("keeps a kind's level in its summary line (an expected info event does not become a warning)", () => {
    const lines: string[] = []
    const clock = new SimulatedClock()
    const logger = createLogger({
      destination: { write: (s: string) => void lines.push(s) },
      pretty: 'never',
    })
    const log = createRateLimitedLog({ logger, clock, intervalMs: 1_000 })
    for (let i = 0; i < 5; i++) log.log('info', 'foreign_instrument', {}, 'dropped')
    log.warn('gap', {}, 'gap')
    log.warn('gap', {}, 'gap')
    clock.increment(1_000)
    const summaries = lines.map((l) => JSON.parse(l)).filter((l) => l.suppressed !== undefined)
    expect(summaries).toEqual([
      expect.objectContaining({ kind: 'foreign_instrument', suppressed: 4, level: 30 }),
      expect.objectContaining({ kind: 'gap', suppressed: 1, level: 40 }),
    ])
  })

  it('writes a line with the suppressed count, and a summary for the tail on its timer', () => {
    const lines: string[] = []
    const clock = new SimulatedClock()
    const logger = createLogger({
      destination: { write: (s: string) => void lines.push(s) },
      pretty: 'never',
    })
    const log = createRateLimitedLog({ logger, clock, intervalMs: 5_000 })
    for (let i = 0; i < 100; i++) {
      log.warn('stream gap', { expected: i }, 'stream gap')
      clock.increment(10)
    }
    expect(lines).toHaveLength(1)
    clock.increment(5_000)
    expect(lines).toHaveLength(2)
    expect(JSON.parse(lines[1] ?? '{}')).toMatchObject({ kind: 'stream gap', suppressed: 99 })
    // A quiet interval: the kind is forgotten, the next event is written at once.
    clock.increment(5_000)
    expect(lines).toHaveLength(2)
    log.warn('stream gap', {}, 'stream gap')
    expect(JSON.parse(lines[2] ?? '{}')).toMatchObject({ kind: 'stream gap' })
    log.warn('stream gap', {}, 'stream gap')
    log.stop()
    expect(JSON.parse(lines[3] ?? '{}')).toMatchObject({ suppressed: 1 })
  })
})
