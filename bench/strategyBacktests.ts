/**
 * Backtests of the shipped strategies side by side on one dataset (issue 39.1; docs/research.md):
 * the fast engine, the default fill model, each strategy with its defaults (or the skew shown),
 * printed as a Markdown table with the market-making analytics. Run:
 *   node --import tsx bench/strategyBacktests.ts DIR [hours]
 */
import { runBacktest } from '../src/research/backtest/runBacktest.ts'
import { DEFAULT_FILL_MODEL } from '../src/research/replay/fillModel.ts'
import { prepareReplay } from '../src/research/replay/prepareReplay.ts'
import { summarize } from '../src/sim/simulate/summary.ts'
import { exitWithHelpOnRequest } from './stats.ts'

exitWithHelpOnRequest(import.meta.url)

const dir = process.argv[2]
if (dir === undefined) throw new Error('usage: bench/strategyBacktests.ts DIR [hours]')
const runs: { label: string; strategy: string; params: Record<string, unknown> }[] = [
  { label: 'index-peg', strategy: 'index-peg', params: {} },
  { label: 'index-peg + funding skew 5 bps', strategy: 'index-peg', params: { fundingSkewBps: 5 } },
  { label: 'index-peg + book-imbalance skew 5 bps', strategy: 'index-peg', params: { imbalanceSkewBps: 5 } },
  { label: 'vol-spread', strategy: 'vol-spread', params: {} },
  { label: 'avellaneda-stoikov', strategy: 'avellaneda-stoikov', params: {} },
]
const f = (x: number | undefined, d = 2): string => (x === undefined ? 'n/a' : x.toFixed(d))
console.log(
  '| strategy | fills | net PnL (USDC) | volume (USDC) | max drawdown (USDC) | captured (bps) | markout 60 s (bps) | adverse selection (bps) | round trips | win rate | Sharpe (ann.) | CPU (s) |',
)
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|')
for (const r of runs) {
  const replay = prepareReplay({ dir, model: DEFAULT_FILL_MODEL })
  const hours = Number(process.argv[3] ?? (replay.endMs - replay.startMs) / 3_600_000)
  const cpu0 = process.cpuUsage()
  const res = await runBacktest({
    strategy: r.strategy,
    strategyParams: r.params,
    instruments: replay.instruments.length,
    hours,
    scenario: 'calm',
    seed: 1,
    configDir: 'config',
    perpbotVersion: 'bench',
    replay,
  })
  const cpu = process.cpuUsage(cpu0)
  const s = summarize(res.record)
  const mm = res.record.marketMaking
  console.log(
    `| ${r.label} | ${s.fills} | ${f(s.netPnl)} | ${f(s.volume, 0)} | ${f(s.maxDrawdown)} | ${f(mm?.markouts.capturedBps)} | ${f(mm?.markouts.markoutBps[60_000])} | ${f(mm?.markouts.adverseSelectionBps)} | ${mm?.roundTrips.trips ?? 'n/a'} | ${mm?.roundTrips.winRate === undefined ? 'n/a' : `${(mm.roundTrips.winRate * 100).toFixed(0)} %`} | ${f(mm?.ratios.sharpe, 1)} | ${((cpu.user + cpu.system) / 1e6).toFixed(1)} |`,
  )
}
