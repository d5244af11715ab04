/**
 * The venue's open-order cap end to end: the real bot (the shipped dry-run configuration, which rests
 * up to 8 orders over 3 instruments) against the mock over loopback on an account capped at 3 open
 * orders. Told the cap (`quoting.accountOpenOrderCap`), the bot trims every ladder to its share and
 * nothing is refused. Not told (the account's tier below the configured cap), the creates past the cap
 * are refused with 429 `open_orders_limit`; the bot counts them apart from rate limits (no pause:
 * waiting frees nothing) and raises one `open-order-cap` alert.
 */
import { describe, expect, it, vi } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import { rateLimitCode, startBotOnMock } from '../../src/sim/botOnMock.ts'

/** The bot against a mock whose account holds 3 open orders; counts the refusals at the cap. */
async function startCapped(overrides?: Record<string, unknown>) {
  const alerts: Alert[] = []
  const refused = { count: 0 }
  const run = await startBotOnMock({
    mock: {
      seed: 11,
      scenario: 'calm',
      clock: 'accelerated',
      speed: 10,
      catalogue: { eventCount: 20 },
      exchange: { accountOpenOrderLimit: 3 },
    },
    overrides,
    onExchange: ({ res }) => {
      if (res.status === 429 && rateLimitCode(res) === 'open_orders_limit') refused.count += 1
    },
    onAlert: (a) => void alerts.push(a),
  })
  return { run, alerts, refused }
}

describe('bot against the mock: the open-order cap', () => {
  it('alerts once when the venue refuses creates at the cap, and never pauses for it', async () => {
    const { run, alerts, refused } = await startCapped()
    try {
      await vi.waitFor(() => expect(alerts.filter((a) => a.key === 'open-order-cap')).toHaveLength(1), {
        timeout: 30_000,
        interval: 50,
      })
      const [alert] = alerts.filter((a) => a.key === 'open-order-cap')
      expect(alert).toMatchObject({ severity: 'warning', title: "At the venue's open-order cap" })
      expect(alert?.resolved).toBeUndefined()
      expect(alert?.message).toContain('open_orders_limit')
      expect(refused.count).toBeGreaterThan(0)
      const limiter = run.bot.status().limiter
      expect(limiter.details?.openOrdersLimited).toBeGreaterThan(0)
      // A capacity cap is not a rate: no pause, and the rate-limit count stays clear of it.
      expect(limiter.backoffUntil).toBeUndefined()
      expect(alerts.some((a) => a.key.startsWith('rate-limit'))).toBe(false)
      // Never more than the cap rests (a batch past it is refused whole, so maybe none yet).
      const owner = run.mock.exchange.accountOf(run.bot.proxyAddress)?.owner ?? ''
      expect(run.mock.exchange.openOrders(owner).length).toBeLessThanOrEqual(3)
    } finally {
      await run.stop()
    }
  }, 60_000)

  it('told the cap, trims each ladder to its share: every instrument quotes, nothing is refused', async () => {
    const { run, alerts, refused } = await startCapped({ 'quoting.accountOpenOrderCap': 3 })
    try {
      const owner = run.mock.exchange.accountOf(run.bot.proxyAddress)?.owner ?? ''
      const resting = () => run.mock.exchange.openOrders(owner)
      // Each of the 3 instruments rests one order: 3 in all, the cap.
      await vi.waitFor(() => expect(new Set(resting().map((o) => o.instrument_id)).size).toBe(3), {
        timeout: 30_000,
        interval: 50,
      })
      const from = run.mock.clock.now()
      await vi.waitFor(() => expect(run.mock.clock.now() - from).toBeGreaterThanOrEqual(30_000), {
        timeout: 30_000,
        interval: 50,
      })
      expect(resting().length).toBe(3)
      expect(refused.count).toBe(0)
      expect(run.bot.status().limiter.details?.openOrdersLimited).toBe(0)
      expect(alerts.some((a) => a.key === 'open-order-cap')).toBe(false)
    } finally {
      await run.stop()
    }
  }, 60_000)
})
