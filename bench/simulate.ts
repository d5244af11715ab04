/**
 * Measures `perpbot simulate` (the same `runSimulation` the command runs) and rewrites the section
 * between `<!-- simulate:begin -->` and `<!-- simulate:end -->` in docs/benchmarks.md (on Node 24 and later, `simulate-node24`:
 * issue 36 gives the day of 10 instruments 45 s there, 60 s on Node 20).
 *
 *   node --import tsx bench/simulate.ts [--cases 10x24,10x2i,10x2,100x0.1] [--seed 1] [--no-write]
 *
 * Each case is INSTRUMENTSxHOURS; a case shorter than the target's duration is extrapolated linearly
 * to it (and says so), since the cost per virtual hour is flat after the start (bounded recorder).
 * A trailing `i` runs the mock with inline signature recovery, the baseline for the deferred check
 * (the default; `src/mock/perps/signatures/deferredSignerCheck.ts`). A trailing `r` replays the benchmarks' dataset with the
 * whole bot (`simulate --data --engine bot`), a trailing `f` with the fast engine (`--engine fast`).
 * A trailing `s` sends every command signed, as JSON (the HTTP-shaped path; the baseline of the
 * in-process venue's typed commands, src/perps/typedCommands.ts, which every other case uses).
 * A trailing `o` runs the old market (scenario `calm-slow-premium`, the calm market before issue 39
 * made its premium mean-revert): the day on both is printed on one line, like with like.
 * The shipped configuration as it is: index-peg reads no statistics, so no case needs the body cap
 * raised for `/v1/info/statistics` (100 instruments' answer passes the default 8 MiB).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { type Hex, hashTypedData } from 'viem'
import { systemClock } from '../src/clock.ts'
import { SignerRecovery } from '../src/mock/perps/signatures/signerRecovery.ts'
import { CommandSigner } from '../src/perps/signing/commandSigner.ts'
import { opTypedData } from '../src/perps/signing/typedData.ts'
import { seededRandom } from '../src/random.ts'
import { runBacktest } from '../src/research/backtest/runBacktest.ts'
import { DEFAULT_FILL_MODEL } from '../src/research/replay/fillModel.ts'
import { prepareReplay } from '../src/research/replay/prepareReplay.ts'
import { runSimulation } from '../src/sim/simulate/runSimulation.ts'
import { summarize } from '../src/sim/simulate/summary.ts'
import { loadNow, loadSpan, machineLine } from './docRegions.ts'
import { DEV_PROXY_PK } from './inProcessBot.ts'
import { BENCH_DAY0, ensureBenchData } from './researchData.ts'
import { exitWithHelpOnRequest, flag, numberFlag } from './stats.ts'

exitWithHelpOnRequest(import.meta.url)

const DOC = 'docs/benchmarks.md'
/** Issue 36's budget for the day of 10 instruments: 60 s on Node 20, 45 s on Node 24 (its own region). */
const NODE_MAJOR = Number(process.versions.node.split('.')[0])
const DAY_TARGET_S = NODE_MAJOR >= 24 ? 45 : 60
const REGION = NODE_MAJOR >= 24 ? 'simulate-node24' : 'simulate'
const BEGIN = `<!-- ${REGION}:begin -->`
const END = `<!-- ${REGION}:end -->`
const OLD_MARKET = 'calm-slow-premium'
const CASES = (flag('cases') ?? '10x24,10x24o,10x2s,10x2,100x0.1,10x1r,10x24f').split(',').map((c) => {
  const signed = c.endsWith('s')
  if (signed) c = c.slice(0, -1)
  // A trailing `o` runs the old market (scenario calm-slow-premium: the premium as it was until
  // 2026-12-06, before issue 39 made it mean-revert), so figures compare like with like.
  const old = c.endsWith('o')
  if (old) c = c.slice(0, -1)
  // A trailing `r` replays a dataset downloaded from the mock with the whole bot (`simulate --data
  // --engine bot`, docs/research.md); a trailing `f` replays it with the fast engine (`--engine fast`).
  const fast = c.endsWith('f')
  const replay = c.endsWith('r') || fast
  const body = replay ? c.slice(0, -1) : c
  const inline = body.endsWith('i')
  const [n, h] = (inline ? body.slice(0, -1) : body).split('x').map(Number)
  if (!(Number.isInteger(n) && (n ?? 0) > 0 && (h ?? 0) > 0))
    throw new Error(`bad case '${c}' (want NxH or NxHi)`)
  return {
    instruments: n as number,
    hours: h as number,
    signatures: inline ? ('inline' as const) : ('deferred' as const),
    replay,
    fast,
    scenario: old ? OLD_MARKET : 'calm',
    commands: signed ? ('signed' as const) : ('typed' as const),
  }
})
const SEED = numberFlag('seed', 1)
const LOAD0 = loadNow()

interface Row {
  instruments: number
  hours: number
  signatures: 'deferred' | 'inline'
  replay: boolean
  /** The fast backtest engine (src/research/backtest/) instead of the whole bot. */
  fast: boolean
  /** The mock's scenario: calm (mean-reverting premium) or the old market. */
  scenario: string
  /** Trading commands typed to the in-process venue, or signed JSON (the HTTP-shaped baseline). */
  commands: 'typed' | 'signed'
  /** Commands the bot sent (typed or signed). */
  sent: number
  /** Peak resident set size during the run (sampled), MB. */
  peakRssMb: number
  /** Resident set size at each quarter of the run, MB (flat while the dataset streams). */
  rssQuartersMb: number[]
  wallS: number
  /** Wall seconds to the bot's start; wall and CPU seconds per virtual hour after it. */
  startS: number
  wallPerHourS: number
  cpuPerHourS: number
  /** CPU seconds of this process (user + system): on a shared machine wall time also counts waiting. */
  cpuS: number
  steps: number
  /** Signatures the mock answered at once and recovered on its worker thread. */
  deferred: number
  fills: number
  /** Share of instrument-time spent quoting. */
  quoting: number
  speed: number
  heapMb: number
}

const rows: Row[] = []
for (const c of CASES) {
  const started = performance.now()
  const cpu0 = process.cpuUsage()
  // The first progress call comes right after the bot's start: the run's cost per virtual hour is
  // measured from there, so an extrapolation does not multiply the start-up.
  let first: { wall: number; cpu: NodeJS.CpuUsage; doneMs: number } | undefined
  let sent = 0
  const data = c.replay ? await ensureBenchData(c.instruments, Math.ceil(c.hours)) : undefined
  const replay = data
    ? prepareReplay({
        dir: data.dir,
        from: BENCH_DAY0,
        to: BENCH_DAY0 + c.hours * 3_600_000,
        model: { ...DEFAULT_FILL_MODEL },
      })
    : undefined
  let peakRss = process.memoryUsage().rss
  let calls = 0
  const quarters: number[] = []
  const r = await (c.fast ? runBacktest : runSimulation)({
    replay,
    onAnswer: (method, path) => {
      if (method !== 'GET' && path.startsWith('/v1/trade/')) sent += 1
    },
    onProgress: (doneMs, totalMs) => {
      first ??= { wall: performance.now(), cpu: process.cpuUsage(), doneMs }
      if (++calls % 500 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss)
      if (doneMs >= ((quarters.length + 1) * totalMs) / 4) quarters.push(process.memoryUsage().rss / 1e6)
    },
    strategy: 'index-peg',
    scenario: c.scenario,
    seed: SEED,
    configDir: 'config',
    perpbotVersion: 'bench',
    instruments: c.instruments,
    hours: c.hours,
    signatures: c.signatures,
    commands: c.commands,
  })
  const wallS = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpu0)
  const runHours = c.hours - (first?.doneMs ?? 0) / 3_600_000
  const runCpu = first ? process.cpuUsage(first.cpu) : cpu
  const row = {
    ...c,
    startS: first ? (first.wall - started) / 1000 : 0,
    wallPerHourS: (first ? (performance.now() - first.wall) / 1000 : wallS) / runHours,
    cpuPerHourS: (runCpu.user + runCpu.system) / 1e6 / runHours,
    wallS,
    cpuS: (cpu.user + cpu.system) / 1e6,
    steps: r.steps,
    sent,
    deferred: r.signatures.deferred,
    fills: r.record.instruments.reduce((n, i) => n + i.totals.fills, 0),
    quoting: summarize(r.record).quotingShare,
    speed: (c.hours * 3600) / wallS,
    heapMb: process.memoryUsage().heapUsed / 1e6,
    peakRssMb: Math.max(peakRss, process.memoryUsage().rss) / 1e6,
    rssQuartersMb: quarters,
  }
  rows.push(row)
  console.log(JSON.stringify(row))
}

/**
 * The floor no speed-up of ours removes: each command is signed by the bot and its signer recovered
 * by the mock (both libsecp256k1 in WebAssembly), measured here in the same run.
 */
async function cryptoCost(n: number): Promise<{ signMs: number; recoverMs: number }> {
  const signer = new CommandSigner({ privateKey: DEV_PROXY_PK, clock: systemClock, salts: seededRandom(5) })
  const recovery = new SignerRecovery()
  const ops = Array.from({ length: n }, (_, i) => ({
    op: ['modifyOrders', [[1, 1000 + i, '100.5', '0.25', 1, 0]]] as const,
    stamp: { salt: i + 1, ts: 1_767_571_200_000 + i },
  }))
  const sigs: Hex[] = []
  let t = performance.now()
  for (const { op, stamp } of ops) sigs.push(await signer.signOp(op, stamp))
  const signMs = (performance.now() - t) / n
  const digests = ops.map(({ op, stamp }) => hashTypedData(opTypedData(signer.domain, op, stamp)))
  const recover = (i: number): void => void recovery.recover(digests[i] as Hex, sigs[i] as Hex)
  for (let i = 0; i < 3; i++) recover(i) // warm, as in a run
  t = performance.now()
  for (let i = 0; i < n; i++) recover(i)
  return { signMs, recoverMs: (performance.now() - t) / n }
}
const crypto = await cryptoCost(300)

const day10 = rows.find(
  (r) =>
    r.instruments === 10 &&
    r.signatures === 'deferred' &&
    r.commands === 'typed' &&
    !r.replay &&
    r.scenario === 'calm',
)
const signed10 = rows.find(
  (r) => r.instruments === 10 && r.commands === 'signed' && !r.replay && r.scenario === 'calm',
)
const typed10 =
  signed10 &&
  rows.find(
    (r) =>
      r !== signed10 &&
      r.instruments === 10 &&
      r.commands === 'typed' &&
      !r.replay &&
      r.scenario === 'calm' &&
      r.hours === signed10.hours,
  )
const old10 = rows.find((r) => r.instruments === 10 && !r.replay && r.scenario === OLD_MARKET)
const replay10 = rows.find((r) => r.instruments === 10 && r.replay && !r.fast)
const fast10 = rows.find((r) => r.instruments === 10 && r.fast)
const hour100 = rows.find((r) => r.instruments === 100)
const lines = [
  BEGIN,
  `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run simulate:bench\` (seed ${SEED}, index-peg, calm) on ${machineLine()}; ${loadSpan(LOAD0)} over the run. Wall and CPU time include the bot's start (a few seconds); CPU is the fairer figure on a shared machine.`,
  '',
  '| instruments | virtual hours run | market | commands | wall s (start) | CPU s (all threads) | wall s per virtual h after start | CPU s per virtual h | speed | clock steps | commands sent | fills | quoting | heap after, MB |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.instruments} | ${r.hours} | ${r.replay ? 'replayed' : r.scenario === OLD_MARKET ? 'old (slow premium)' : 'calm (mean-reverting)'} | ${r.fast ? 'none (fast engine)' : r.commands === 'typed' ? `typed (${r.deferred} signed, on the worker)` : r.signatures === 'inline' ? 'signed JSON, checked inline' : `signed JSON (${r.deferred} checked on the worker)`}${r.replay ? ', replayed data' : ''} | ${r.wallS.toFixed(1)} (${r.startS.toFixed(1)}) | ${r.cpuS.toFixed(1)} | ${r.wallPerHourS.toFixed(1)} | ${r.cpuPerHourS.toFixed(1)} | ${r.speed.toFixed(0)}× | ${r.steps} | ${r.sent} | ${r.fills} | ${(100 * r.quoting).toFixed(0)} % | ${r.heapMb.toFixed(0)} |`,
  ),
  '',
  day10
    ? `Target "a simulated day of 10 instruments in at most ${DAY_TARGET_S} s" on Node ${NODE_MAJOR}: ${day10.hours === 24 ? 'measured' : `extrapolated linearly from ${day10.hours} h:`} ${(day10.startS + day10.wallPerHourS * 24).toFixed(0)} s wall, ${(day10.cpuPerHourS * 24).toFixed(0)} s CPU after the start — ${day10.startS + day10.wallPerHourS * 24 <= DAY_TARGET_S ? 'met' : 'MISSED'}.`
    : '',
  day10 && old10
    ? `Like with like, same run: a day of 10 instruments on today's market ${(day10.startS + day10.wallPerHourS * 24).toFixed(0)} s wall / ${(day10.cpuPerHourS * 24).toFixed(0)} CPU-s (${day10.fills} fills, ${day10.sent} commands in ${day10.hours} h) beside the old market (${OLD_MARKET}, as measured until 2026-11-27) ${(old10.startS + old10.wallPerHourS * 24).toFixed(0)} s wall / ${(old10.cpuPerHourS * 24).toFixed(0)} CPU-s (${old10.fills} fills, ${old10.sent} commands in ${old10.hours} h); CPU ms per command ${((1000 * day10.cpuPerHourS * day10.hours) / Math.max(1, day10.sent)).toFixed(2)} vs ${((1000 * old10.cpuPerHourS * old10.hours) / Math.max(1, old10.sent)).toFixed(2)}.`
    : '',
  typed10 && signed10
    ? `Typed commands (the in-process venue: stamped, not signed, no JSON) against signed JSON commands (the HTTP-shaped path), same run, ${signed10.hours} h of 10 instruments: ${typed10.cpuPerHourS.toFixed(1)} against ${signed10.cpuPerHourS.toFixed(1)} CPU-s per virtual hour (all threads), ${(100 * (1 - typed10.cpuPerHourS / signed10.cpuPerHourS)).toFixed(0)} % less; ${typed10.fills} and ${signed10.fills} fills. Each signed command costs ${crypto.signMs.toFixed(2)} ms to sign (bot) and ${crypto.recoverMs.toFixed(2)} ms to recover (mock, on its worker), measured in this run: ${((((signed10.sent * 24) / signed10.hours) * (crypto.signMs + crypto.recoverMs)) / 1000).toFixed(0)} s a day the typed path does not spend.`
    : '',
  replay10
    ? `Replay (\`simulate --data\`, 1 s data downloaded from the mock, fill model trades): a day of 10 instruments ${replay10.hours === 24 ? 'measured' : `extrapolated linearly from ${replay10.hours} h:`} ${(replay10.startS + replay10.wallPerHourS * 24).toFixed(0)} s wall, ${(replay10.cpuPerHourS * 24).toFixed(0)} s CPU after the start; target under 20 s — ${replay10.startS + replay10.wallPerHourS * 24 < 20 ? 'met' : 'MISSED'} (the bot's own cost per virtual hour is the same as on the invented market).`
    : '',
  fast10
    ? `Fast engine (\`simulate --data --engine fast\`, the same data and fill model): a day of 10 instruments ${fast10.hours === 24 ? 'measured' : `extrapolated linearly from ${fast10.hours} h:`} ${(fast10.cpuPerHourS * 24).toFixed(0)} s of CPU on one core after the start (${(fast10.startS + fast10.wallPerHourS * 24).toFixed(0)} s wall on this shared machine), peak RSS ${fast10.peakRssMb.toFixed(0)} MB (at each quarter of the run: ${fast10.rssQuartersMb.map((m) => m.toFixed(0)).join(', ')} MB, the dataset streamed an hour per instrument at a time); target under 20 s of CPU — ${fast10.cpuPerHourS * 24 < 20 ? 'met' : 'MISSED'}.${replay10 ? ` Baseline in the same run, the whole bot on the same data (${replay10.hours} h, scaled): ${(replay10.cpuPerHourS * 24).toFixed(0)} s of CPU a day, ${(replay10.cpuPerHourS / fast10.cpuPerHourS).toFixed(1)}× the fast engine's.` : ''}`
    : '',
  hour100
    ? `1 hour of 100 instruments: ${hour100.hours === 1 ? 'measured' : `extrapolated linearly from ${hour100.hours} h:`} ${(hour100.startS + hour100.wallPerHourS).toFixed(0)} s wall, ${hour100.cpuPerHourS.toFixed(0)} s CPU after the start.`
    : '',
  END,
]
  .filter((l, i, a) => l !== '' || a[i - 1] !== '')
  .join('\n')

console.log(lines)
if (!process.argv.includes('--no-write')) {
  const doc = readFileSync(DOC, 'utf8')
  const at = doc.indexOf(BEGIN)
  const end = doc.indexOf(END)
  const next =
    at >= 0 && end > at
      ? doc.slice(0, at) + lines + doc.slice(end + END.length)
      : `${doc.trimEnd()}\n\n${lines}\n`
  writeFileSync(DOC, next)
  console.log(`wrote the ${REGION} section of ${DOC}`)
}
