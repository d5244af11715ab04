/** Fills and PnL from the venue: logged per fill, summed per instrument and for the account in /status. */
import { describe, expect, it, vi } from 'vitest'
import { runBotAgainstMock } from './harness.ts'

describe('fills and PnL against the mock', () => {
  it('logs every fill with side, price, size, fee and liquidity, and reports PnL in /status', async () => {
    const run = await runBotAgainstMock({
      scenario: 'trending',
      speed: 30,
      overrides: { 'polling.fillsMs': 5_000 },
    })
    try {
      await vi.waitFor(() => expect(run.logs.some((l) => l.includes('"msg":"fill: '))).toBe(true), {
        timeout: 40_000,
        interval: 100,
      })
      const line = JSON.parse(run.logs.find((l) => l.includes('"msg":"fill: ')) ?? '{}') as {
        fill: { side: string; price: string; size: string; instrument: string }
        fee: string
        liquidity: string
      }
      expect(line.fill.side).toMatch(/^(long|short)$/)
      expect(Number(line.fill.price)).toBeGreaterThan(0)
      expect(Number(line.fill.size)).toBeGreaterThan(0)
      expect(line.fee).toMatch(/^-?\d+(\.\d+)?$/)
      expect(line.liquidity).toMatch(/^(maker|taker)$/)
      const status = run.bot.status()
      expect(status.account.pnl?.fills).toBeGreaterThan(0)
      const traded = status.instruments.find((i) => i.symbol === line.fill.instrument)
      expect(traded?.pnl?.fills).toBeGreaterThan(0)
      expect(traded?.pnl?.netPnl).toMatch(/^-?\d+(\.\d+)?$/)
    } finally {
      await run.stop()
    }
  })
})
