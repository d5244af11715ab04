/**
 * The stream cut mid-run, over real loopback HTTP and WebSocket (src/sim/botOnMock.ts): the bot takes
 * its inputs from the mock's streams; the streams are cut (first silent, then dropped on every tick),
 * the bot keeps quoting on polls, then returns to the streams and its pollers stand down again. No
 * command is sent twice and no order is left unknown.
 */
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { InputGateView, StreamInput } from '../../src/bot/inputs/inputGates.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'
import { type BotOnMock, startBotOnMock } from '../../src/sim/botOnMock.ts'
import { loopbackStepper } from '../helpers/loopbackStepper.ts'

interface Seen {
  at: number
  method: string
  path: string
  body: unknown
  command: boolean
}

const MARKET_DATA = ['/v1/info/tickers', '/v1/info/statistics', '/v1/info/index']
// On the accelerated clock a shorter bound let a stall of a loaded machine (load 17) read as a cut;
// on the stepped clock a stall is no virtual time, and the bound stays as it was.
const SILENCE_MS = 10_000
/** Bound of every wait, in virtual time (each is a few seconds of bot time when it works). */
const WAIT_MS = 300_000
const T0 = Date.UTC(2026, 10, 2, 12)

function inputs(run: BotOnMock): Record<StreamInput, InputGateView> {
  return run.bot.status().details?.inputs as Record<StreamInput, InputGateView>
}
const allFrom = (run: BotOnMock, source: 'stream' | 'poll'): boolean =>
  Object.values(inputs(run)).every((i) => i.source === source)

describe('stream cut', { timeout: 120_000 }, () => {
  it('keeps quoting on polls while the stream is cut, then returns to it', async () => {
    const seen: Seen[] = []
    // The stepped clock over loopback (test/helpers/loopbackStepper.ts): time moves only when every
    // request and frame is through, so each wait counts the bot's own timer steps.
    const clock = new VirtualClock({ mode: 'stepped', startMs: T0 })
    const stepper = loopbackStepper(clock)
    const now = (): number => clock.now()
    const run = await stepper.during(
      startBotOnMock({
        mock: { seed: 7, scenario: 'calm', clock, catalogue: { eventCount: 120 } },
        overrides: { 'streams.silenceMs': SILENCE_MS },
        onExchange: ({ req, command }) =>
          void seen.push({ at: now(), method: req.method, path: req.path, body: req.body, command }),
      }),
    )
    const until = async (cond: () => boolean): Promise<void> => {
      expect(await stepper.until(cond, WAIT_MS)).toBe(true)
    }
    const waitVirtual = async (ms: number): Promise<void> => {
      await stepper.runTo(now() + ms)
    }
    const trades = (from: number, to = Number.POSITIVE_INFINITY) =>
      seen.filter((s) => s.command && s.path.startsWith('/v1/trade/') && s.at >= from && s.at < to)
    const reads = (paths: readonly string[], from: number, to = Number.POSITIVE_INFINITY) =>
      seen.filter((s) => s.method === 'GET' && paths.includes(s.path) && s.at >= from && s.at < to)
    try {
      // 1. On the streams: every input stands down, no market data is read over REST.
      await until(() => allFrom(run, 'stream'))
      // From the next ms: the stand-down's own resync reads share its virtual ms on the stepped clock.
      const streamed = now() + 1
      await waitVirtual(20_000)
      expect(reads(MARKET_DATA, streamed)).toHaveLength(0)
      expect(reads(['/v1/account/portfolio', '/v1/account/open-orders'], streamed)).toHaveLength(0)
      expect(trades(streamed).length).toBeGreaterThan(0)
      // 2. Silent cut: every connection stalls (no pushes, no pongs) until the fault is lifted.
      const cut = now()
      run.mock.setFaults({ rules: [], stream: { stall: { probability: 1, durationMs: 2_000 } } })
      await until(() => reads(['/v1/info/tickers'], cut).length > 0 && allFrom(run, 'poll'))
      const resumedAfter = (reads(['/v1/info/tickers'], cut)[0]?.at ?? Number.NaN) - cut
      const portfolioAfter = (reads(['/v1/account/portfolio'], cut)[0]?.at ?? Number.NaN) - cut
      // Silence bound + one push tick + one freshness check, with room for a loaded machine.
      expect(resumedAfter).toBeLessThanOrEqual(SILENCE_MS + 4_000)
      expect(portfolioAfter).toBeLessThanOrEqual(SILENCE_MS + 4_000)
      const polling = now()
      await waitVirtual(30_000)
      // Quoting goes on, on polled inputs.
      expect(trades(polling).length).toBeGreaterThan(0)
      expect(reads(['/v1/info/tickers'], polling).length).toBeGreaterThanOrEqual(5)
      expect(run.bot.status().instruments.every((i) => i.state.startsWith('active'))).toBe(true)

      // 3. Back: pushes resume, one REST resync per input, then the pollers stand down again.
      run.mock.setFaults('none')
      await until(() => allFrom(run, 'stream'))
      expect(Object.values(inputs(run)).every((i) => i.resyncs >= 2 && i.resumes >= 1)).toBe(true)
      // 4. Hard cut: the server drops every connection on every tick; the client keeps reconnecting.
      const dropped = now()
      run.mock.setFaults({ rules: [], stream: { dropConnection: 1 } })
      await until(() => reads(['/v1/info/tickers'], dropped).length > 0)
      await waitVirtual(15_000)
      expect(trades(dropped).length).toBeGreaterThan(0)
      run.mock.setFaults('none')
      await until(() => allFrom(run, 'stream'))
      const back = now() + 1
      await waitVirtual(20_000)
      // At most one read, a poll already due as the streams came back; polling would be ~10.
      expect(reads(['/v1/info/tickers'], back).length).toBeLessThanOrEqual(1)
      expect(trades(back).length).toBeGreaterThan(0)

      // No command was sent twice (a resend would reuse its signature).
      const sigs = trades(0).map((c) => (c.body as { sig: string }).sig)
      expect(sigs.length).toBeGreaterThan(20)
      expect(new Set(sigs).size).toBe(sigs.length)

      // No order left unknown: the bot's open orders per instrument match the venue's.
      const venueCounts = (): Record<string, number> => {
        const out: Record<string, number> = {}
        for (const o of run.mock.exchange.accountOf(run.bot.proxyAddress)?.openOrders ?? [])
          out[o.instrument_id] = (out[o.instrument_id] ?? 0) + 1
        return out
      }
      const botCounts = (): Record<string, number> => {
        const out: Record<string, number> = {}
        for (const i of run.bot.status().instruments) if (i.openOrders > 0) out[i.id] = i.openOrders
        return out
      }
      await stepper.until(() => isDeepStrictEqual(botCounts(), venueCounts()), 100_000)
      expect(botCounts()).toEqual(venueCounts())
      expect(Object.keys(venueCounts()).length).toBeGreaterThan(0)
    } finally {
      await stepper.during(run.stop())
      stepper.close()
    }
  })
})
