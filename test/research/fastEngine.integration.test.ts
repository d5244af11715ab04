/**
 * The fast backtest engine against the full-bot replay on the same data: 10 virtual minutes of 2
 * instruments downloaded from the embedded mock (1 s klines, a trade a second), index-peg at a 2 bps
 * half-spread, the same fill model.
 * Tolerance: fill count within 10 % (at least ±3 fills), net PnL within 15 % of the bot engine's or
 * 1 bp of the traded volume, whichever is larger: the engines make the same decisions, and differ only
 * in when an answer reaches the bot (the fast engine applies a plan at the moment it is made; the bot
 * sends it through its batcher) and in what the fast engine leaves out (the limiter, alerts).
 * Same flags and data give the same report bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { generateInstruments } from '../../src/mock/perps/instruments.ts'
import { MachineDriver } from '../../src/research/backtest/machineDriver.ts'
import { runBacktest } from '../../src/research/backtest/runBacktest.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { download } from '../../src/research/download/downloader.ts'
import { MockHistorySource } from '../../src/research/download/mockSource.ts'
import { DEFAULT_FILL_MODEL } from '../../src/research/replay/fillModel.ts'
import { prepareReplay } from '../../src/research/replay/prepareReplay.ts'
import { renderReport } from '../../src/sim/simulate/report.ts'
import { runSimulation, type SimulateOptions } from '../../src/sim/simulate/runSimulation.ts'
import { summarize } from '../../src/sim/simulate/summary.ts'

const DAY0 = Date.UTC(2026, 0, 5)
const MINUTES = 10
const dir = mkdtempSync(join(tmpdir(), 'perpbot-fast-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeAll(async () => {
  const specs = generateInstruments(2, 1)
  const source = new MockHistorySource(specs, 1)
  await download({
    source,
    store: DatasetStore.openOrCreate(dir, source.name, source.klineIntervalMs),
    plan: {
      symbols: specs.map((s) => s.symbol),
      kinds: ['klines', 'trades', 'funding'],
      from: DAY0,
      to: DAY0 + 3_600_000,
    },
  })
}, 60_000)

const options = (): SimulateOptions => {
  const replay = prepareReplay({
    dir,
    from: DAY0,
    to: DAY0 + MINUTES * 60_000,
    model: { ...DEFAULT_FILL_MODEL },
  })
  return {
    strategy: 'index-peg',
    instruments: replay.instruments.length,
    hours: MINUTES / 60,
    scenario: 'calm',
    seed: 1,
    configDir: 'config',
    perpbotVersion: 'test',
    strategyParams: { halfSpreadBps: 2 },
    replay,
    signatures: 'inline',
  }
}

describe('fast engine vs the full bot on replayed data, 10 virtual minutes, 2 instruments', () => {
  it('matches the bot engine within tolerance, and gives the same bytes twice', async () => {
    const bot = summarize((await runSimulation(options())).record)
    const fastRun = await runBacktest(options())
    const fast = summarize(fastRun.record)
    if (process.env.PERPBOT_GT_PRINT) console.log({ bot, fast })
    expect(bot.fills).toBeGreaterThan(20)
    expect(Math.abs(fast.fills - bot.fills)).toBeLessThanOrEqual(Math.max(3, 0.1 * bot.fills))
    expect(Math.abs(fast.netPnl - bot.netPnl)).toBeLessThanOrEqual(
      Math.max(0.15 * Math.abs(bot.netPnl), 1e-4 * bot.volume),
    )
    expect(fastRun.record.meta.data).toContain('engine fast')
    const assets = { uplotJs: '', uplotCss: '' }
    const again = await runBacktest(options())
    expect(renderReport(again.record, assets)).toBe(renderReport(fastRun.record, assets))
  }, 120_000)

  // The engine this one replaced (issue 37) re-implemented the instrument machine's transitions by hand
  // (src/research/backtest/instrumentRunner.ts, last at commit 7f14129). Its figures on this data,
  // measured at that commit: 2 bps 339 fills, net -18.268821 USDC, volume 65,558.543; 10 bps 4 fills,
  // net +0.257436, volume 260.516. The real machine fed one input event at a time gave the same fills
  // and PnL to the micro-dollar. Since the inputs of one virtual moment reach the machine as one
  // `INPUTS` (planned once on all of them, not once per input with the moment's later inputs unseen),
  // 2 bps gives 348 fills, net -18.246308, volume 66,402.411, nearer the whole bot's 356 fills and
  // volume 67,945 on this data (10 bps unchanged); over an hour of the bench's 2 instruments at 5 bps
  // it equals the whole bot's 321 fills and net to the micro-dollar, where one input at a time gave
  // 313 (docs/decisions.md, issue 37 point 2). The figures pin the engine's decisions; a later,
  // deliberate change of them (strategy, diff, guard, steps) may move them, and then the test above
  // still holds the two engines together.
  it('pins the fills and PnL of the hand-written engine, moved only by INPUTS', async () => {
    for (const [bps, fills, netPnl, volume] of [
      [2, 348, -18.246308, 66_402.411],
      [10, 4, 0.257436, 260.516],
    ] as const) {
      const run = await runBacktest({ ...options(), strategyParams: { halfSpreadBps: bps } })
      const s = summarize(run.record)
      expect({ bps, fills: s.fills }).toEqual({ bps, fills })
      expect(s.netPnl).toBeCloseTo(netPnl, 6)
      expect(s.volume).toBeCloseTo(volume, 6)
    }
  }, 120_000)

  // The polled tickers and portfolio go through the live bot's change filter: an unchanged value is
  // held back until its refresh (a third of quoting.staleIndexMs), as the live bot routes it.
  it('routes the polls through the live change filter: no unchanged index before its refresh', async () => {
    const sent: { id: number; price: string; at: number }[] = []
    const spy = vi.spyOn(MachineDriver.prototype, 'send').mockImplementation(function (
      this: MachineDriver,
      e,
    ) {
      // An index alone, or among the inputs of one moment.
      for (const i of e.type === 'INPUTS' ? e.inputs : [e])
        if (i.type === 'INDEX')
          sent.push({ id: this.context.instrument.id, price: i.index.price, at: i.receivedAt })
    })
    try {
      await runBacktest(options())
    } finally {
      spy.mockRestore()
    }
    const polls = (MINUTES * 60_000) / 2_000 + 1
    expect(sent.length).toBeGreaterThan(0)
    expect(sent.length).toBeLessThan(2 * polls)
    const last = new Map<number, { price: string; at: number }>()
    for (const s of sent) {
      const prev = last.get(s.id)
      // The same price again only once the refresh is due (15 s / 3).
      if (prev !== undefined && prev.price === s.price) expect(s.at - prev.at).toBeGreaterThanOrEqual(5_000)
      last.set(s.id, s)
    }
  }, 60_000)

  it('refuses to run without a dataset', async () => {
    const { replay: _, ...noData } = options()
    await expect(runBacktest(noData)).rejects.toThrow(/--data/)
  })
})
