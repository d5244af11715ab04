/**
 * The research commands' small parts: time arguments, the counted progress line with its estimate,
 * the replay flags' engine.
 */
import { describe, expect, it } from 'vitest'
import { parseReplayFlags } from '../../src/cli/research/simulateReplay.ts'
import { countLine, createCountProgress } from '../../src/research/progress.ts'
import { parseTimeArg } from '../../src/research/timeArg.ts'

const NOW = Date.UTC(2026, 0, 5, 12)

describe('time arguments', () => {
  it('reads ISO times, now, and durations back from now', () => {
    expect(parseTimeArg('now', NOW, '--to')).toBe(NOW)
    expect(parseTimeArg('6h', NOW, '--from')).toBe(NOW - 6 * 3_600_000)
    expect(parseTimeArg('2d', NOW, '--from')).toBe(NOW - 2 * 86_400_000)
    expect(parseTimeArg('2026-01-05T00:00Z', NOW, '--from')).toBe(Date.UTC(2026, 0, 5))
    expect(parseTimeArg('2026-01-05T03:00', NOW, '--from')).toBe(Date.UTC(2026, 0, 5, 3))
    expect(parseTimeArg('2026-01-05', NOW, '--from')).toBe(Date.UTC(2026, 0, 5))
    expect(() => parseTimeArg('yesterday', NOW, '--from')).toThrow(/--from must be an ISO time/)
  })
})

describe('counted progress', () => {
  it('shows done of total and an estimate from the rate so far', () => {
    expect(countLine(25, 100, 10_000, 'chunks', 4)).toBe('[#...]  25.0 %  25/100 chunks  ETA 30s')
    expect(countLine(0, 100, 10_000, 'chunks', 4)).toContain('ETA ?')
  })

  it('redraws in place on a TTY at most every 100 ms, and always writes the last line', () => {
    const out: string[] = []
    let now = 0
    const p = createCountProgress({ write: (t) => out.push(t), isTty: true, now: () => now, unit: 'points' })
    p.update(1, 4)
    now = 150
    p.update(2, 4)
    p.update(3, 4)
    p.done(4, 4)
    expect(out).toHaveLength(2)
    expect(out[0]?.startsWith('\r')).toBe(true)
    expect(out[1]?.endsWith('\n')).toBe(true)
  })
})

describe('replay engine flag', () => {
  it('runs the fast engine unless --engine bot; refuses others, and --engine without --data', () => {
    // parseArgs's defaults for the other flags.
    const base = { data: 'd', participation: '100', 'order-latency': '0', 'feed-latency': '0' }
    expect(parseReplayFlags(base)?.engine).toBe('fast')
    expect(parseReplayFlags({ ...base, engine: 'bot' })?.engine).toBe('bot')
    expect(() => parseReplayFlags({ ...base, engine: 'turbo' })).toThrow(/--engine must be fast or bot/)
    expect(() => parseReplayFlags({ engine: 'bot' })).toThrow(/--engine needs --data/)
  })
})
