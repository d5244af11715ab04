/**
 * Replay through the whole bot (`simulate --data DIR --engine bot --streams`) reads its inputs from
 * the exchange core's stream in process, as `simulate --streams` does: the replayed market's tickers,
 * the account's orders and fills reach the bot as pushes through the in-process stream source
 * (engine/inProcessStream.ts), and the polls stand down (the index read twice at start, against one
 * every few seconds when polled). Ground truth as in test/research/groundTruth.integration.test.ts,
 * with the truth a streamed bot: the mock's market is recorded while the streamed bot trades it, and
 * the streamed replay of that recording holds to the same tolerance (fill count within 15 %, at least
 * ±2; net PnL within 25 % or 1 bp of the volume). 6 virtual minutes, 2 instruments, index-peg at 2 bps:
 * truth 291 fills, net +2.74; streamed replay 281, +3.47 (2 ticker reads); polled replay 99, −1.97
 * (181 ticker reads: the polled bot reprices less often, another run).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createMarketRecorder } from '../../../src/research/record/marketRecorder.ts'
import { DEFAULT_FILL_MODEL } from '../../../src/research/replay/fillModel.ts'
import { prepareReplay } from '../../../src/research/replay/prepareReplay.ts'
import { runSimulation, SIM_START_MS } from '../../../src/sim/simulate/runSimulation.ts'
import { summarize } from '../../../src/sim/simulate/summary.ts'

const dir = mkdtempSync(join(tmpdir(), 'perpbot-replay-streams-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const base = {
  strategy: 'index-peg',
  instruments: 2,
  hours: 0.1,
  strategyParams: { halfSpreadBps: 2 },
  scenario: 'calm',
  seed: 1,
  configDir: 'config',
  perpbotVersion: 'test',
}

function within(
  replay: { fills: number; netPnl: number },
  truth: { fills: number; netPnl: number; volume: number },
) {
  const fillTol = Math.max(2, 0.15 * truth.fills)
  const pnlTol = Math.max(0.25 * Math.abs(truth.netPnl), 1e-4 * truth.volume)
  return {
    fills: Math.abs(replay.fills - truth.fills) <= fillTol,
    pnl: Math.abs(replay.netPnl - truth.netPnl) <= pnlTol,
  }
}

describe('replay through the bot with the in-process stream', () => {
  it('streams the replayed market to the bot and holds to the streamed truth', async () => {
    const rec = createMarketRecorder(dir, 'record:mock', SIM_START_MS)
    const truth = summarize(
      (await runSimulation({ ...base, streams: 'in-process', marketTap: rec.tap })).record,
    )
    expect(rec.finish()).toBeGreaterThan(0)
    const replay = async (streams: 'in-process' | 'off') => {
      const reads = new Map<string, number>()
      const r = await runSimulation({
        ...base,
        streams,
        replay: prepareReplay({ dir, model: DEFAULT_FILL_MODEL }),
        onAnswer: (method, path) => {
          const key = `${method} ${path.split('?')[0]}`
          reads.set(key, (reads.get(key) ?? 0) + 1)
        },
      })
      expect(r.record.meta.data).toContain('fill model trades')
      return { ...summarize(r.record), tickerReads: reads.get('GET /v1/info/tickers') ?? 0 }
    }
    const streamed = await replay('in-process')
    const polled = await replay('off')
    if (process.env.PERPBOT_GT_PRINT) console.log({ truth, streamed, polled })
    expect(truth.fills).toBeGreaterThan(5)
    expect(within(streamed, truth)).toEqual({ fills: true, pnl: true })
    // Streamed, not polled: the index read at start, then from the pushes; polled all along otherwise.
    expect(streamed.tickerReads).toBeLessThanOrEqual(3)
    expect(polled.tickerReads).toBeGreaterThan(30)
    // The bot reprices on every push, as live: another run than the polled one.
    expect(streamed.fills).not.toBe(polled.fills)
  }, 180_000)
})
