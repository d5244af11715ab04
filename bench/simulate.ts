/**
 * Measures `perpbot simulate` (the same `runSimulation` the command runs) and rewrites the section
 * between `<!-- simulate:begin -->` and `<!-- simulate:end -->` in docs/benchmarks.md.
 *
 *   node --import tsx bench/simulate.ts [--cases 10x1,100x0.1] [--seed 1] [--no-write]
 *
 * Each case is INSTRUMENTSxHOURS; a case shorter than the target's duration is extrapolated linearly
 * to it (and says so), since the cost per virtual hour is flat after the start (bounded recorder).
 * Above 80 instruments the perps body cap is raised to 32 MiB: `/v1/info/statistics` for all of them
 * passes the default 8 MiB, and without statistics no instrument ever quotes.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { runSimulation } from '../src/sim/simulate/runSimulation.ts'
import { summarize } from '../src/sim/simulate/summary.ts'
import { flag, numberFlag } from './stats.ts'

const DOC = 'docs/benchmarks.md'
const BEGIN = '<!-- simulate:begin -->'
const END = '<!-- simulate:end -->'
const CASES = (flag('cases') ?? '10x1,100x0.1').split(',').map((c) => {
  const [n, h] = c.split('x').map(Number)
  if (!(Number.isInteger(n) && (n ?? 0) > 0 && (h ?? 0) > 0)) throw new Error(`bad case '${c}' (want NxH)`)
  return { instruments: n as number, hours: h as number }
})
const SEED = numberFlag('seed', 1)
const BIG_BODY_CAP = 32 * 1024 * 1024

interface Row {
  instruments: number
  hours: number
  wallS: number
  /** Wall seconds to the bot's start; wall and CPU seconds per virtual hour after it. */
  startS: number
  wallPerHourS: number
  cpuPerHourS: number
  /** CPU seconds of this process (user + system): on a shared machine wall time also counts waiting. */
  cpuS: number
  steps: number
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
  const r = await runSimulation({
    onProgress: (doneMs) => {
      first ??= { wall: performance.now(), cpu: process.cpuUsage(), doneMs }
    },
    strategy: 'index-peg',
    scenario: 'calm',
    seed: SEED,
    configDir: 'config',
    perpbotVersion: 'bench',
    overrides: c.instruments > 80 ? { 'perps.maxResponseBytes': BIG_BODY_CAP } : {},
    ...c,
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
    fills: r.record.instruments.reduce((n, i) => n + i.totals.fills, 0),
    quoting: summarize(r.record).quotingShare,
    speed: (c.hours * 3600) / wallS,
    heapMb: process.memoryUsage().heapUsed / 1e6,
  }
  rows.push(row)
  console.log(JSON.stringify(row))
}

const day10 = rows.find((r) => r.instruments === 10)
const hour100 = rows.find((r) => r.instruments === 100)
const lines = [
  BEGIN,
  `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run simulate:bench\` (seed ${SEED}, index-peg, calm; ${cpus().length} cores, load average ${loadavg()[0]?.toFixed(1)} at the end, Node ${process.version}). Wall and CPU time include the bot's start (a few seconds); CPU is the fairer figure on a shared machine.`,
  '',
  '| instruments | virtual hours run | wall s (start) | CPU s | wall s per virtual h after start | CPU s per virtual h | speed | clock steps | fills | quoting | heap after, MB |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.instruments} | ${r.hours} | ${r.wallS.toFixed(1)} (${r.startS.toFixed(1)}) | ${r.cpuS.toFixed(1)} | ${r.wallPerHourS.toFixed(0)} | ${r.cpuPerHourS.toFixed(0)} | ${r.speed.toFixed(0)}× | ${r.steps} | ${r.fills} | ${(100 * r.quoting).toFixed(0)} % | ${r.heapMb.toFixed(0)} |`,
  ),
  '',
  day10
    ? `Target "a simulated day of 10 instruments in under 60 s": ${day10.hours === 24 ? 'measured' : `extrapolated linearly from ${day10.hours} h:`} ${(day10.startS + day10.wallPerHourS * 24).toFixed(0)} s wall, ${(day10.cpuPerHourS * 24).toFixed(0)} s CPU after the start — ${day10.startS + day10.wallPerHourS * 24 < 60 ? 'met' : 'MISSED'}.`
    : '',
  hour100
    ? `1 hour of 100 instruments (perps body cap raised to 32 MiB): ${hour100.hours === 1 ? 'measured' : `extrapolated linearly from ${hour100.hours} h:`} ${(hour100.startS + hour100.wallPerHourS).toFixed(0)} s wall, ${hour100.cpuPerHourS.toFixed(0)} s CPU after the start.`
    : '',
  END,
]
  .filter((l, i, a) => l !== '' || a[i - 1] !== '')
  .join('\n')

if (!process.argv.includes('--no-write')) {
  const doc = readFileSync(DOC, 'utf8')
  const at = doc.indexOf(BEGIN)
  const end = doc.indexOf(END)
  const next =
    at >= 0 && end > at
      ? doc.slice(0, at) + lines + doc.slice(end + END.length)
      : `${doc.trimEnd()}\n\n${lines}\n`
  writeFileSync(DOC, next)
  console.log(`wrote the simulate section of ${DOC}`)
}
