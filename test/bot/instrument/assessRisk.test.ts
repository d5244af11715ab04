import { describe, expect, it } from 'vitest'
import { assessRisk, type RiskInputs } from '../../../src/bot/instrument/assessRisk.ts'
import { risk } from './helpers.ts'

const base: RiskInputs = {
  now: 100_000,
  indexAt: 100_000,
  statisticsAt: 100_000,
  marginAt: 100_000,
  marginRatio: 0.1,
  inLiquidation: false,
  liquidationDistance: undefined,
  breakerOpen: false,
}
const normal = { mode: 'normal' as const, since: 0, transient: false }

describe('assessRisk', () => {
  it.each([
    [{ marginRatio: 0.1 }, 'normal'],
    [{ marginRatio: 0.5 }, 'widened'],
    [{ marginRatio: 0.7 }, 'reduce-only'],
    [{ marginRatio: 0.9 }, 'halted'],
    [{ marginRatio: Number.POSITIVE_INFINITY }, 'halted'],
    [{ inLiquidation: true }, 'halted'],
    [{ liquidationDistance: 0.1 }, 'widened'],
    [{ liquidationDistance: 0.05 }, 'reduce-only'],
    [{ indexAt: undefined }, 'halted'],
    [{ indexAt: 100_000 - 15_001 }, 'halted'],
    [{ statisticsAt: 100_000 - 180_001 }, 'halted'],
    [{ marginAt: 100_000 - 30_001 }, 'halted'],
    [{ breakerOpen: true }, 'halted'],
  ] as const)('%o → %s', (over, mode) => {
    expect(assessRisk({ ...base, ...over }, normal, risk).mode).toBe(mode)
  })

  it('marks stale-input halts transient and account halts not', () => {
    expect(assessRisk({ ...base, indexAt: undefined }, normal, risk).transient).toBe(true)
    const both = assessRisk({ ...base, indexAt: undefined, inLiquidation: true }, normal, risk)
    expect(both).toMatchObject({ mode: 'halted', transient: false })
    expect(both.reason).toContain('liquidated')
  })

  it('halts a closed-out account (margin exhausted) though its margin ratio reads 0, until it has equity again', () => {
    const out = assessRisk({ ...base, marginRatio: 0, marginExhausted: true }, normal, risk)
    expect(out).toMatchObject({ mode: 'halted', transient: false })
    expect(out.reason).toContain('margin exhausted')
    const halted = { mode: 'halted' as const, since: 0, transient: false }
    expect(assessRisk({ ...base, marginRatio: 0, marginExhausted: true }, halted, risk).mode).toBe('halted')
    // Collateral added: the dwell is over, the ratio is 0, trading resumes.
    expect(assessRisk({ ...base, marginRatio: 0, marginExhausted: false }, halted, risk).mode).toBe('normal')
  })

  it('holds a mode inside the hysteresis band and during the dwell', () => {
    const widened = { mode: 'widened' as const, since: 0, transient: false }
    expect(assessRisk({ ...base, marginRatio: 0.47 }, widened, risk).mode).toBe('widened')
    expect(assessRisk({ ...base, marginRatio: 0.44 }, widened, risk).mode).toBe('normal')
    const recent = { ...widened, since: 95_000 }
    expect(assessRisk({ ...base, marginRatio: 0.1 }, recent, risk).mode).toBe('widened')
  })
})
