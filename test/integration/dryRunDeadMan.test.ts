/**
 * A dry run on the accelerated mock (speed 30) never shows a dead-man alert: the switch is armed and
 * refreshed on the mock's virtual clock, where a request's wall-time transit counts 30 times over (the
 * mock's transit allowance) and a stall of a loaded machine too (the switch's timings scale by speed).
 */
import { describe, expect, it, vi } from 'vitest'
import { deadManOnClockRate } from '../../src/bot/orders/deadManSwitch.ts'
import { transitAllowanceMs } from '../../src/mock/server.ts'
import { runBotAgainstMock } from './harness.ts'

describe('the dead-man switch in a dry run', { timeout: 60_000 }, () => {
  // `npm start -- --speed 30`, and the dashboard screenshot's run (bench/dashboardScreenshot.ts:
  // the trending scenario at speed 40), whose picture once showed three "command expired" alerts.
  it.each([
    { scenario: 'calm', speed: 30 },
    { scenario: 'trending', speed: 40 },
  ] as const)(
    'at $scenario, speed $speed: armed and refreshed with no dead-man alert and no refused switch command',
    async ({ scenario, speed }) => {
      // The deadline stays the shipped 15 s (scaled: 450 s of virtual time at 30×); refreshes come
      // every wall second, the settings' floor, instead of every 5 s, so three refreshes (one more
      // than the 5-s run waited for) take seconds. Each is a switch command that could be refused.
      const run = await runBotAgainstMock({
        scenario,
        speed,
        overrides: { 'ops.deadManSwitch.refreshMs': 1_000 },
      })
      try {
        // Armed, then refreshed (its timings are wall time: 30 s of virtual time apart at 30×).
        await vi.waitFor(
          () =>
            expect(
              run.commands.filter((c) => c.path === '/v1/trade/auto-cancel').length,
            ).toBeGreaterThanOrEqual(4),
          { timeout: 40_000, interval: 50 },
        )
      } finally {
        await run.stop()
      }
      const switchCommands = run.commands.filter((c) => c.path === '/v1/trade/auto-cancel')
      expect(switchCommands.filter((c) => c.status !== 200).map((c) => c.status)).toEqual([])
      expect(run.alerts.filter((a) => /dead-?man|auto-cancel/i.test(`${a.key} ${a.title}`))).toEqual([])
    },
  )
})

describe('the switch timings on an accelerated clock', () => {
  it('scale by the rate (capped at the settings maximum); unchanged at real time', () => {
    const s = { ops: { deadManSwitch: { enabled: true, deadlineMs: 15_000, refreshMs: 5_000 } } }
    expect(deadManOnClockRate(s, 1)).toBe(s)
    expect(deadManOnClockRate(s, 30).ops.deadManSwitch).toMatchObject({
      deadlineMs: 450_000,
      refreshMs: 150_000,
    })
    expect(deadManOnClockRate(s, 1_000).ops.deadManSwitch).toMatchObject({
      deadlineMs: 3_600_000,
      refreshMs: 1_200_000,
    })
  })
  it("the mock's transit allowance is zero at real time", () => {
    expect(transitAllowanceMs(1)).toBe(0)
    expect(transitAllowanceMs(0)).toBe(0)
    expect(transitAllowanceMs(30)).toBe(14_500)
  })
})
