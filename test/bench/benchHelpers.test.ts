import { describe, expect, it } from 'vitest'
import { AlertEpisodes, countsSince } from '../../bench/alertEpisodes.ts'
import { replaceRegion } from '../../bench/docRegions.ts'
import { soakSteps } from '../../bench/soakPhases.ts'
import { pausedMs } from '../../bench/stats.ts'
import type { Alert } from '../../src/alerts/alert.ts'

const alert = (
  key: string,
  severity: Alert['severity'],
  at: number,
  resolved = false,
  remaining?: Alert['severity'],
): Alert => ({
  key,
  severity,
  title: key,
  message: key,
  at,
  ...(resolved ? { resolved } : {}),
  ...(remaining === undefined ? {} : { remaining }),
})

describe('soak phases', () => {
  it('24 h: calm, trending, three crash episodes, recovery, a quarter each', () => {
    const h = 3_600_000
    expect(soakSteps(24 * h).map((s) => [s.at / h, s.phase, s.scenario, s.episode])).toEqual([
      [0, 'calm', 'calm', undefined],
      [6, 'trending', 'trending', undefined],
      [12, 'crash', 'liquidation', 1],
      [14, 'crash', 'liquidation', 2],
      [16, 'crash', 'liquidation', 3],
      [18, 'recovery', 'calm', undefined],
    ])
  })

  it('a short run still has one crash episode', () => {
    const steps = soakSteps(40 * 60_000)
    expect(steps.filter((s) => s.phase === 'crash')).toHaveLength(1)
    expect(steps.map((s) => s.at)).toEqual([0, 600_000, 1_200_000, 1_800_000])
  })
})

describe('alert episodes', () => {
  it('a raise and its resolve per episode is clean; per key counts add up', () => {
    const e = new AlertEpisodes()
    e.observe(alert('margin', 'warning', 1))
    e.observe(alert('margin', 'critical', 2))
    // critical → warning: the critical is over, the episode goes on at warning.
    e.observe(alert('margin', 'critical', 3, true, 'warning'))
    e.observe(alert('margin', 'warning', 4, true))
    e.observe(alert('margin', 'warning', 5))
    expect(e.violations).toEqual([])
    expect(e.counts().get('margin')).toEqual({ raised: 3, resolved: 2 })
    expect(e.open()).toEqual(['margin (warning)'])
  })

  it('critical straight to normal: one resolve closes the warning under it too (the short soak FAILed here)', () => {
    const e = new AlertEpisodes()
    e.observe(alert('margin', 'warning', 1))
    e.observe(alert('margin', 'critical', 2))
    e.observe(alert('margin', 'critical', 3, true))
    expect(e.violations).toEqual([])
    expect(e.open()).toEqual([])
  })

  it('flags a second raise of an open episode and a resolve of none', () => {
    const e = new AlertEpisodes()
    e.observe(alert('liquidation', 'critical', 1))
    e.observe(alert('liquidation', 'critical', 2))
    e.observe(alert('degraded:1:strategy', 'warning', 3, true))
    expect(e.violations.map((v) => `${v.key} ${v.kind}`)).toEqual([
      'liquidation raised twice',
      'degraded:1:strategy resolved twice',
    ])
  })

  it('counts since a snapshot', () => {
    const e = new AlertEpisodes()
    e.observe(alert('a', 'info', 1))
    const before = e.counts()
    e.observe(alert('a', 'info', 2, true))
    e.observe(alert('b', 'info', 3))
    expect([...countsSince(before, e.counts())]).toEqual([
      ['a', { raised: 0, resolved: 1 }],
      ['b', { raised: 1, resolved: 0 }],
    ])
  })
})

describe('doc regions', () => {
  it('replaces the text between the markers and keeps the rest', () => {
    const doc = 'intro\n<!-- soak:begin -->\nold\n<!-- soak:end -->\noutro\n'
    expect(replaceRegion(doc, 'soak', 'new figures')).toBe(
      'intro\n<!-- soak:begin -->\nnew figures\n<!-- soak:end -->\noutro\n',
    )
  })

  it('appends the region when the markers are missing, and a rerun replaces it', () => {
    const once = replaceRegion('# Title\n', 'chaos', 'run 1')
    expect(once).toBe('# Title\n\n<!-- chaos:begin -->\nrun 1\n<!-- chaos:end -->\n')
    expect(replaceRegion(once, 'chaos', 'run 2')).toBe(
      '# Title\n\n<!-- chaos:begin -->\nrun 2\n<!-- chaos:end -->\n',
    )
  })
})

describe('pausedMs', () => {
  it('sums only the parts of the pauses inside the window', () => {
    const pauses: [number, number][] = [
      [0, 2],
      [5, 8],
      [9, 20],
    ]
    expect(pausedMs(pauses, 1, 10)).toBe(1 + 3 + 1)
    expect(pausedMs(pauses, 2, 5)).toBe(0)
    expect(pausedMs([], 0, 100)).toBe(0)
  })
})
