/**
 * Charts draw only what rests (issue 33), over the issue's case: a simulated day of 10 instruments,
 * index-peg (post-only) as shipped, on both engines. Counts the report's samples where our bid is at or
 * above our ask; exits 1 when any is found (the test suite runs a shorter case:
 * test/sim/simulate/restingQuotes.integration.test.ts).
 *
 *   node --import tsx bench/restingQuotes.ts [--instruments 10] [--hours 24] [--seed 1] [--engines bot,fast]
 *
 * The fast engine replays the benchmarks' dataset downloaded from the mock (bench/researchData.ts).
 */
import { loadavg } from 'node:os'
import { runBacktest } from '../src/research/backtest/runBacktest.ts'
import { DEFAULT_FILL_MODEL } from '../src/research/replay/fillModel.ts'
import { prepareReplay } from '../src/research/replay/prepareReplay.ts'
import { crossedQuotes } from '../src/sim/simulate/quoteChecks.ts'
import { runSimulation, type SimulateOptions } from '../src/sim/simulate/runSimulation.ts'
import { BENCH_DAY0, ensureBenchData } from './researchData.ts'
import { flag, numberFlag } from './stats.ts'

const instruments = numberFlag('instruments', 10)
const hours = numberFlag('hours', 24)
const seed = numberFlag('seed', 1)
const engines = (flag('engines') ?? 'bot,fast').split(',')

const base: SimulateOptions = {
  strategy: 'index-peg',
  instruments,
  hours,
  scenario: 'calm',
  seed,
  configDir: 'config',
  perpbotVersion: 'bench',
}

let failed = false
for (const engine of engines) {
  const cpu0 = process.cpuUsage()
  let options = base
  if (engine === 'fast') {
    const data = await ensureBenchData(instruments, Math.ceil(hours))
    options = {
      ...base,
      replay: prepareReplay({
        dir: data.dir,
        from: BENCH_DAY0,
        to: BENCH_DAY0 + hours * 3_600_000,
        model: { ...DEFAULT_FILL_MODEL },
      }),
    }
  } else if (engine !== 'bot') throw new Error(`unknown engine '${engine}' (bot or fast)`)
  const { record } = await (engine === 'fast' ? runBacktest : runSimulation)(options)
  const q = crossedQuotes(record)
  const cpu = process.cpuUsage(cpu0)
  failed ||= q.crossed > 0
  console.log(
    `${engine}: ${instruments} instruments × ${hours} h — ${q.crossed} of ${q.twoSided} two-sided samples with our bid >= our ask` +
      `${q.first ? ` (first: ${q.first.symbol} at ${new Date(q.first.t).toISOString()}, bid ${q.first.bid} ask ${q.first.ask})` : ''}` +
      `; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, load ${loadavg()[0]?.toFixed(2)}`,
  )
}
process.exitCode = failed ? 1 : 0
