/**
 * `perpbot simulate` shows the protections' halts: a run with an account notional cap of 1 USDC is
 * halted at its first position, the report's summary says why and for how long, and its alerts list
 * the breach with the figures.
 */
import { describe, expect, it } from 'vitest'
import { loadReportAssets } from '../../../src/cli/research/simulate.ts'
import { renderReport } from '../../../src/sim/simulate/report.ts'
import { runSimulation } from '../../../src/sim/simulate/runSimulation.ts'

describe('perpbot simulate with protections', () => {
  it('reports the halt a breached notional cap holds, and the alert with its figures', async () => {
    const r = await runSimulation({
      strategy: 'index-peg',
      instruments: 2,
      hours: 0.1,
      scenario: 'trending',
      seed: 3,
      configDir: 'config',
      perpbotVersion: 'test',
      overrides: { 'protections.maxAccountNotional': '1' },
    })
    const html = renderReport(r.record, loadReportAssets())
    const halted = r.record.instruments.reduce(
      (n, i) => n + (i.time.haltedBy['halted by protections.maxAccountNotional until perpbot resume'] ?? 0),
      0,
    )
    expect(halted).toBeGreaterThan(60_000)
    expect(html).toContain('halted by protections.maxAccountNotional until perpbot resume: ')
    expect(html).toMatch(/Protection maxAccountNotional breached: every instrument halted/)
  }, 120_000)
})
