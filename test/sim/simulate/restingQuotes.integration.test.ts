/**
 * Charts draw only what rests (issue 33): no sample of a post-only strategy's report has our bid at or
 * above our ask, on both engines. Index-peg at a 1 bp half-spread cancels and is refused post-only
 * often, which is where a chart once kept orders the book no longer held (before the fix: 2,470 of
 * 2,589 two-sided samples crossed over 0.25 h of 3 instruments). The full day of 10 instruments is
 * `bench/restingQuotes.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateInstruments } from '../../../src/mock/perps/instruments.ts'
import { runBacktest } from '../../../src/research/backtest/runBacktest.ts'
import { DatasetStore } from '../../../src/research/dataset/store.ts'
import { download } from '../../../src/research/download/downloader.ts'
import { MockHistorySource } from '../../../src/research/download/mockSource.ts'
import { DEFAULT_FILL_MODEL } from '../../../src/research/replay/fillModel.ts'
import { prepareReplay } from '../../../src/research/replay/prepareReplay.ts'
import { crossedQuotes } from '../../../src/sim/simulate/quoteChecks.ts'
import { runSimulation, type SimulateOptions } from '../../../src/sim/simulate/runSimulation.ts'

const DAY0 = Date.UTC(2026, 0, 5)
const base: SimulateOptions = {
  strategy: 'index-peg',
  instruments: 2,
  // 12 virtual minutes: 73 two-sided samples on the whole bot (seed 1, deterministic), where the bug crossed 95 %.
  hours: 0.2,
  scenario: 'calm',
  seed: 1,
  configDir: 'config',
  perpbotVersion: 'test',
  strategyParams: { halfSpreadBps: 1 },
}

const dir = mkdtempSync(join(tmpdir(), 'perpbot-quotes-'))
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

describe('charts draw only what rests (post-only index-peg at 1 bp)', () => {
  it('the whole bot on the mock: no sample with our bid >= our ask', async () => {
    const { record } = await runSimulation(base)
    const q = crossedQuotes(record)
    expect(q.twoSided).toBeGreaterThan(50)
    expect(q).toEqual({ twoSided: q.twoSided, crossed: 0 })
  }, 120_000)

  it('the fast engine on replayed data: no sample with our bid >= our ask', async () => {
    const replay = prepareReplay({ dir, from: DAY0, to: DAY0 + 3_600_000, model: { ...DEFAULT_FILL_MODEL } })
    const { record } = await runBacktest({
      ...base,
      instruments: replay.instruments.length,
      hours: 1,
      replay,
    })
    const q = crossedQuotes(record)
    expect(q.twoSided).toBeGreaterThan(50)
    expect(q).toEqual({ twoSided: q.twoSided, crossed: 0 })
  }, 60_000)
})
