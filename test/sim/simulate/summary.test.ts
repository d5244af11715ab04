import { describe, expect, it } from 'vitest'
import { EventSample, gridAfter, Series, thin } from '../../../src/sim/simulate/downsample.ts'
import type { InstrumentRecord, SimRecord } from '../../../src/sim/simulate/model.ts'
import { createProgress, formatDuration, progressLine } from '../../../src/sim/simulate/progress.ts'
import {
  activityOf,
  haltReasonKey,
  makerShare,
  maxDrawdown,
  StateTimer,
  summarize,
} from '../../../src/sim/simulate/summary.ts'

describe('maxDrawdown', () => {
  it('is the largest fall from a previous peak', () => {
    expect(maxDrawdown([0, 5, 3, 8, 2, 6, 1])).toBe(7)
  })
  it('is 0 for a series that never falls, and for an empty one', () => {
    expect(maxDrawdown([1, 2, 2, 3])).toBe(0)
    expect(maxDrawdown([])).toBe(0)
  })
  it('counts a fall below the start (a loss from the first value)', () => {
    expect(maxDrawdown([0, -4, -1])).toBe(4)
  })
  it('skips values that are not finite', () => {
    expect(maxDrawdown([3, Number.NaN, 1])).toBe(2)
  })
})

describe('makerShare', () => {
  it('is maker fills over fills, undefined without fills', () => {
    expect(makerShare({ fills: 4, makerFills: 3 })).toBe(0.75)
    expect(makerShare({ fills: 0, makerFills: 0 })).toBeUndefined()
  })
})

describe('time quoting and halted', () => {
  it('attributes each interval to the state sampled at its start', () => {
    const timer = new StateTimer()
    timer.observe(0, 'active.quoting', undefined)
    timer.observe(10_000, 'halted.risk', 'index stale (16 s old)')
    timer.observe(15_000, 'halted.risk', 'index stale (21 s old)')
    timer.observe(20_000, 'starting', undefined)
    timer.observe(25_000, 'active.widened', undefined)
    const t = timer.timesUntil(30_000)
    expect(t).toEqual({
      quotingMs: 15_000,
      haltedMs: 10_000,
      otherMs: 5_000,
      haltedBy: { 'index stale': 10_000 },
    })
  })
  it('classifies states and strips details from reasons', () => {
    expect(activityOf('active.normal.idle')).toBe('quoting')
    expect(activityOf('halted')).toBe('halted')
    expect(activityOf('stopped')).toBe('other')
    expect(haltReasonKey('index stale (16 s old); margin stale (31 s old)')).toBe('index stale; margin stale')
    expect(haltReasonKey(undefined)).toBe('unspecified')
  })
})

function instrument(over: Partial<InstrumentRecord>): InstrumentRecord {
  return {
    symbol: 'X',
    id: 1,
    series: [],
    fills: [],
    fillStride: 1,
    totals: { fills: 0, makerFills: 0, volume: 0, realizedPnl: 0, fees: 0 },
    time: { quotingMs: 0, haltedMs: 0, otherMs: 0, haltedBy: {} },
    ...over,
  }
}

describe('summarize', () => {
  it('adds the instruments, separates fees and funding, and shares time over instrument-time', () => {
    const r: SimRecord = {
      meta: { strategy: 's', scenario: 'calm', seed: 1, hours: 1, startMs: 0, endMs: 1, perpbotVersion: 'v' },
      instruments: [
        instrument({
          totals: { fills: 3, makerFills: 3, volume: 300, realizedPnl: 10, fees: 1 },
          time: { quotingMs: 3_000, haltedMs: 1_000, otherMs: 0, haltedBy: { 'index stale': 1_000 } },
        }),
        instrument({
          id: 2,
          totals: { fills: 1, makerFills: 0, volume: 100, realizedPnl: -2, fees: 0.5 },
          time: {
            quotingMs: 2_000,
            haltedMs: 2_000,
            otherMs: 0,
            haltedBy: { 'index stale': 500, margin: 1_500 },
          },
        }),
      ],
      account: [
        { t: 0, v: [0] },
        { t: 1, v: [6] },
        { t: 2, v: [1] },
      ],
      weights: [],
      alerts: [],
      alertsTotal: 2,
      funding: 0.25,
      unrealizedPnl: 4,
    }
    const s = summarize(r)
    expect(s).toMatchObject({
      fills: 4,
      makerFills: 3,
      makerShare: 0.75,
      volume: 400,
      fees: 1.5,
      funding: 0.25,
    })
    expect(s.netPnl).toBeCloseTo(8 + 4 - 1.5 - 0.25)
    expect(s.maxDrawdown).toBe(5)
    expect(s.quotingShare).toBeCloseTo(5 / 8)
    expect(s.haltedShare).toBeCloseTo(3 / 8)
    expect(s.haltedBy).toEqual([
      ['index stale', 1_500],
      ['margin', 1_500],
    ])
    expect(s.alerts).toBe(2)
  })
})

describe('downsampling', () => {
  it('keeps a series on its grid and halves it when full, staying bounded', () => {
    const s = new Series(1_000, 8)
    for (let t = 0; t < 100_000; t += 250) s.push(t, [t])
    expect(s.points().length).toBeLessThan(8)
    expect(s.stepMs).toBeGreaterThan(1_000)
    const ts = s.points().map((p) => p.t)
    expect([...ts].sort((a, b) => a - b)).toEqual(ts)
  })
  it('forces the last point in', () => {
    const s = new Series(1_000, 8)
    s.push(0, [1])
    s.push(10, [2], true)
    expect(s.points().map((p) => p.t)).toEqual([0, 10])
  })
  it('thins to every other point and keeps the last', () => {
    expect(thin([1, 2, 3, 4])).toEqual([1, 3, 4])
    expect(thin([1, 2, 3])).toEqual([1, 3])
    expect(gridAfter(1_500, 1_000)).toBe(2_000)
  })
  it('samples events evenly in bounded memory and says how many each stands for', () => {
    const e = new EventSample<number>(4)
    for (let i = 0; i < 20; i++) e.add(i)
    expect(e.items().length).toBeLessThan(4)
    expect(e.seen).toBe(20)
    expect(e.items().every((x) => x % e.stride === 0)).toBe(true)
  })
})

describe('progress line', () => {
  it('shows the bar, the share, virtual time done and the speed', () => {
    expect(formatDuration(3_725_000)).toBe('1h 02m')
    expect(progressLine(1_800_000, 3_600_000, 1_000, 10)).toBe(
      '[#####.....]  50.0 %  30m 00s / 1h 00m virtual  1800× real time',
    )
  })
  it('redraws in place on a terminal, at most every 100 ms', () => {
    const out: string[] = []
    let now = 0
    const p = createProgress({ write: (t) => void out.push(t), isTty: true, now: () => now })
    now = 50
    p.update(1, 10)
    now = 150
    p.update(2, 10)
    p.done(10, 10)
    expect(out).toHaveLength(2)
    expect(out[0]?.startsWith('\r[#')).toBe(true)
    expect(out[0]?.endsWith('\u001b[K')).toBe(true)
    expect(out[1]?.endsWith('\n')).toBe(true)
  })
  it('writes plain lines off a terminal, every 10 s by default', () => {
    const out: string[] = []
    let now = 0
    const p = createProgress({ write: (t) => void out.push(t), isTty: false, now: () => now })
    for (now = 0; now <= 25_000; now += 1_000) p.update(now, 100_000)
    expect(out).toHaveLength(2)
    expect(out.every((l) => !l.includes('\r') && l.endsWith('\n'))).toBe(true)
  })
})
