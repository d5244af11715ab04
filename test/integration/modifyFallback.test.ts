/**
 * The modify fallback end to end: the real bot against the mock over loopback, the mock verifying a
 * different modifyOrders layout than ours (creates and cancels verify, every modify is refused as a
 * bad signature). The bot keeps quoting by cancel + create, raises one alert, and /status shows it.
 */
import { describe, expect, it, vi } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import { startBotOnMock } from '../../src/sim/botOnMock.ts'

interface Sent {
  at: number
  method: string
  status: number
  body: unknown
}

describe('bot against the mock: modify layout refused', () => {
  it('reprices by cancel + create, alerts once, and shows the fallback in /status', async () => {
    const sent: Sent[] = []
    const alerts: Alert[] = []
    let now = (): number => 0
    const run = await startBotOnMock({
      mock: {
        seed: 7,
        scenario: 'calm',
        clock: 'accelerated',
        // A signed command lives 4 s of venue time: at 20× that is 200 ms of wall time, which a loaded
        // machine (streams on, every index push a possible reprice) can exceed; 10× leaves 400 ms.
        speed: 10,
        catalogue: { eventCount: 20 },
        exchange: { modifyOrdersLayout: 'oid-qty-p' },
      },
      onExchange: ({ req, res }) => {
        if (req.path === '/v1/trade/orders' && req.method !== 'GET')
          sent.push({ at: now(), method: req.method, status: res.status, body: res.body })
      },
      onAlert: (a) => void alerts.push(a),
    })
    now = () => run.mock.clock.now()
    try {
      await vi.waitFor(() => expect(alerts.some((a) => a.key === 'modify-fallback')).toBe(true), {
        timeout: 30_000,
        interval: 50,
      })
      const switched = now()
      // Counted, not timed (issue 34): at least 60 s of venue time in the fallback and three reprices
      // by cancel + create answered after it settled (a loaded machine reprices less per venue second).
      const answered = (method: string) =>
        sent.filter((s) => s.at > switched + 5_000 && s.method === method && s.status === 200).length
      await vi.waitFor(
        () => {
          expect(now() - switched).toBeGreaterThanOrEqual(60_000)
          expect(answered('DELETE')).toBeGreaterThanOrEqual(3)
          expect(answered('POST')).toBeGreaterThanOrEqual(3)
        },
        { timeout: 120_000, interval: 50 },
      )
      // Every modify the venue saw was refused as a bad signature (HTTP 400); creates and cancels verified.
      const modifies = sent.filter((s) => s.method === 'PATCH')
      expect(modifies.length).toBeGreaterThan(0)
      for (const m of modifies) {
        expect(m.status).toBe(400)
        expect(JSON.stringify(m.body)).toContain('account not found for proxy')
      }
      // After the switch no modify goes out (a batch already in flight may still land), while quotes
      // keep being repriced: cancels and creates answered per order.
      const after = sent.filter((s) => s.at > switched + 5_000)
      expect(after.filter((s) => s.method === 'PATCH')).toEqual([])
      const cancels = after.filter((s) => s.method === 'DELETE' && s.status === 200)
      const creates = after.filter((s) => s.method === 'POST' && s.status === 200)
      expect(cancels.length).toBeGreaterThanOrEqual(3)
      expect(creates.length).toBeGreaterThanOrEqual(3)
      const createdOk = creates
        .flatMap((c) => (Array.isArray(c.body) ? c.body : []))
        .filter((r) => r.status === 'ok')
      expect(createdOk.length).toBeGreaterThanOrEqual(3)

      expect(alerts.filter((a) => a.key === 'modify-fallback')).toHaveLength(1)
      expect(alerts.find((a) => a.key === 'modify-fallback')).toMatchObject({
        severity: 'warning',
        title: 'Modify refused: repricing by cancel + create',
      })
      const status = run.bot.status()
      expect(status.limiter.details?.modify).toMatchObject({ mode: 'cancel+create' })
      // Still quoting: every instrument active with resting orders on the venue (a reprice by cancel
      // + create leaves an instrument without orders for a moment, so wait for a moment with all).
      await vi.waitFor(
        () => {
          for (const i of run.bot.status().instruments) {
            expect(i.state, i.symbol).toMatch(/^active/)
            expect(i.openOrders, i.symbol).toBeGreaterThan(0)
          }
        },
        { timeout: 15_000, interval: 20 },
      )
    } finally {
      await run.stop()
    }
  }, 200_000)
})
