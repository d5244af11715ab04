import { describe, expect, it } from 'vitest'
import { deadManLine, leverageLine } from '../../src/preflight/accountSettingsCheck.ts'
import { Settings } from '../../src/settings/schema.ts'

const settings = (inst: Record<string, unknown> = {}, deadMan: Record<string, unknown> = {}) =>
  Settings.parse({
    instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg', ...inst }],
    ops: { deadManSwitch: deadMan },
  })
const ids = new Map([['BTC-USDC', 1]])

describe('doctor: leverage and margin mode', () => {
  it('ok when not configured or already as configured; warn naming the change otherwise', () => {
    expect(leverageLine(settings(), ids, [{ instrument_id: 1, leverage: 5, cross: true }])).toEqual([
      'leverage and margin mode',
      'ok',
      'BTC-USDC 5x cross (not configured: left as the account has it)',
    ])
    const want = settings({ leverage: 5, marginMode: 'cross' })
    expect(leverageLine(want, ids, [{ instrument_id: 1, leverage: 5, cross: true }])[1]).toBe('ok')
    expect(leverageLine(want, ids, [{ instrument_id: 1, leverage: 10, cross: false }])).toEqual([
      'leverage and margin mode',
      'warn',
      "the account differs from the config; the bot's start sets BTC-USDC: 10x isolated → 5x cross",
    ])
  })
})

describe('doctor: the dead-man switch', () => {
  const now = Date.UTC(2026, 0, 1, 12)
  const reset = Date.UTC(2026, 0, 2)
  it('shows the armed deadline, the triggers used of the limit and the next reset', () => {
    const [, status, detail] = deadManLine(
      settings(),
      { deadline: now + 12_000, triggered: 1, daily_limit: 10, next_reset: reset },
      now,
    )
    expect(status).toBe('ok')
    expect(detail).toContain(
      'armed, cancels everything in 12.0 s; triggered 1 of 10 today, next reset 2026-01-02T00:00:00.000Z',
    )
  })
  it('warns when two or fewer triggers are left, fails at none (unless the bot does not use it)', () => {
    const st = (triggered: number) => ({ deadline: 0, triggered, daily_limit: 10, next_reset: reset })
    expect(deadManLine(settings(), st(8), now)[1]).toBe('warn')
    expect(deadManLine(settings(), st(10), now)[1]).toBe('fail')
    expect(deadManLine(settings({}, { enabled: false }), st(10), now)[1]).toBe('ok')
  })
})
