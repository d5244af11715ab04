/**
 * A short `perpbot simulate` run end to end: the real bot against the real mock on the stepped clock,
 * recorded and rendered. Same seed, same bytes; another seed, another report.
 */
import { describe, expect, it } from 'vitest'
import { loadReportAssets } from '../../../src/cli/research/simulate.ts'
import { renderReport } from '../../../src/sim/simulate/report.ts'
import { runSimulation } from '../../../src/sim/simulate/runSimulation.ts'

const run = async (seed: number, signatures?: 'inline' | 'deferred', commands?: 'typed' | 'signed') => {
  const r = await runSimulation({
    signatures,
    commands,
    strategy: 'index-peg',
    instruments: 2,
    hours: 0.03,
    scenario: 'calm',
    seed,
    configDir: 'config',
    perpbotVersion: 'test',
  })
  return { ...r, html: renderReport(r.record, loadReportAssets()) }
}

describe('perpbot simulate (0.03 h, 2 instruments)', () => {
  it('records the run, renders the summary and the chart data; deterministic per seed', async () => {
    const a = await run(3)
    const { record } = a
    expect(record.instruments.map((i) => i.symbol)).toHaveLength(2)
    // About two virtual minutes sampled on the chart grid, quoting most of the time.
    expect(record.account.length).toBeGreaterThan(60)
    expect(record.instruments.every((i) => i.series.some((p) => p.v[1] !== null && p.v[2] !== null))).toBe(
      true,
    )
    expect(record.weights.some((p) => (p.v[0] ?? 0) > 0)).toBe(true)
    expect(record.instruments.reduce((n, i) => n + i.time.quotingMs, 0)).toBeGreaterThan(2 * 60_000)
    expect(a.html).toContain('<table id="summary">')
    expect(a.html).toContain('<td>Time quoting</td>')
    expect(a.html).toMatch(/"series":\[\{"t":\d+,"v":\[[\d.]+,/)

    const again = await run(3)
    expect(again.steps).toBe(a.steps)
    expect(again.html === a.html).toBe(true)

    const other = await run(4)
    expect(other.html === a.html).toBe(false)
  }, 60_000)

  it('gives the same report whether the mock checks signatures inline or on its worker thread', async () => {
    // Signed commands (simulate's default sends them typed, unsigned: typedCommands.integration.test.ts).
    const deferred = await run(3, 'deferred', 'signed')
    const inline = await run(3, 'inline', 'signed')
    // Every command after the proxy's first was answered at once, and every one of them was checked.
    expect(deferred.signatures.deferred).toBeGreaterThan(10)
    expect(deferred.signatures.checked).toBe(deferred.signatures.deferred)
    expect(inline.signatures).toEqual({ deferred: 0, checked: 0 })
    expect(inline.steps).toBe(deferred.steps)
    expect(inline.html === deferred.html).toBe(true)
    const typed = await run(3)
    expect(typed.signatures.deferred).toBeLessThan(deferred.signatures.deferred / 10)
    expect(typed.html === deferred.html).toBe(true)
  }, 60_000)
})
