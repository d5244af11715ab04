/**
 * Runs every bench in its own child process (a clean heap each; `--expose-gc` where needed), echoes
 * their output, and ends with a summary against the targets. Each child has a time limit, so the whole
 * run is bounded: about 20 minutes on 2 cores (the tick-to-trade cases run in wall time, one for 10
 * minutes), `--quick` about 7.
 *
 * `npm run bench [-- --quick] [-- --samples N] [-- --only TEXT] [-- --record-pairs N]` (`--only`: the jobs whose
 * name contains TEXT; `--record-pairs`: off / on / off-again triples of the recording case, default 3)
 */

import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { PRODUCTION_NODE_OPTIONS } from '../src/cli/productionNodeOptions.ts'
import { loadNow, loadSpan, machineLine, utcStamp, writeRegion } from './docRegions.ts'
import { type Distribution, exitWithHelpOnRequest, flag, mb, ms, RESULT_PREFIX } from './stats.ts'

exitWithHelpOnRequest(import.meta.url)

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const QUICK = flag('quick') !== undefined
const SAMPLES = flag('samples')
const ONLY = flag('only')
const RECORD_PAIRS = Number(flag('record-pairs') ?? 3)
/** Extra flags for the recording-on runs (e.g. `--record-args=--record-received-only`). */
const RECORD_ARGS = flag('record-args')?.split(' ') ?? []

interface Job {
  name: string
  script: string
  args: string[]
  nodeFlags: string[]
  timeoutMs: number
}

/**
 * The tick-to-trade latency cases' moves (issue 36): at least 200, so p99 is a percentile and not the
 * slowest move, at 6 a second (about 33 s; the request budget keeps room: 6 commands a second is 360
 * of the venue's 1,000 weight a minute); the benches print the slowest move beside it.
 */
const MOVE_ARGS = ['--moves', QUICK ? '200' : '400', '--moves-per-second', '6']
/**
 * The same for `n` instruments, at most 1.5 moves a second per instrument: the moves' gaps are jittered
 * 0.5–1.5 × the mean, and the bot holds a second reprice of one instrument within
 * `quoting.minRepriceIntervalMs` (250 ms) of its last, by design. At 2 instruments and 6 a second a
 * quarter of the moves fell inside it and waited up to ~60 ms (p99 57 ms against 5.8 ms at 3 a second,
 * 2026-12-07): the throttle, not the path the bench measures.
 */
const movesFor = (n: number): string[] => [
  '--moves',
  QUICK ? '200' : '400',
  '--moves-per-second',
  String(Math.min(6, 1.5 * n)),
]
/**
 * The in-process bot's node flags: the image's node options (src/cli/productionNodeOptions.ts), so
 * the rss and latency are what production runs; the rss baseline keeps V8's own defaults.
 */
const BOT_FLAGS = ['--expose-gc', ...PRODUCTION_NODE_OPTIONS]
const latencyArgs = [...(QUICK ? ['--quick'] : []), ...(SAMPLES ? ['--samples', SAMPLES] : [])]
const JOBS: Job[] = [
  {
    name: 'actor latency',
    script: 'bench/actorLatency.bench.ts',
    args: latencyArgs,
    nodeFlags: [],
    timeoutMs: 240_000,
  },
  {
    name: 'memory, 100 instruments, a day of 1-minute klines each (as the mock serves)',
    script: 'bench/memory.bench.ts',
    args: ['--instruments', '100', '--klines', '1440'],
    nodeFlags: ['--expose-gc'],
    timeoutMs: 60_000,
  },
  {
    name: 'memory, 1,000 instruments, a day of 1-minute klines each (as the mock serves)',
    script: 'bench/memory.bench.ts',
    args: ['--instruments', '1000', '--klines', '1440'],
    nodeFlags: ['--expose-gc'],
    timeoutMs: 180_000,
  },
  {
    name: 'memory, 1,000 instruments, 60 klines each (what strategies use)',
    script: 'bench/memory.bench.ts',
    args: ['--instruments', '1000', '--klines', '60'],
    nodeFlags: ['--expose-gc'],
    timeoutMs: 90_000,
  },
  {
    name: 'memory, 1,000 instruments, no klines',
    script: 'bench/memory.bench.ts',
    args: ['--instruments', '1000', '--klines', '0'],
    nodeFlags: ['--expose-gc'],
    timeoutMs: 90_000,
  },
  // Streams vs polling, side by side in one run: the real bot and mock over loopback (issue 9).
  ...[10, 100, 1000].flatMap((n) =>
    (['stream', 'poll'] as const).map(
      (transport): Job => ({
        name: `tick-to-trade, ${transport}, ${n} instruments`,
        script: 'bench/tickToTrade.bench.ts',
        args: [
          ...['--transport', transport, '--instruments', String(n)],
          // 1,000 instruments place 2,000 orders at start: the warm-up then also waits (up to
          // --warmup-max) for the limiter to have its budgets back. The mock runs in its own process.
          ...[...movesFor(n), '--warmup', String(n >= 1000 ? 75 : 8 + n / 50)],
          ...['--warmup-max', String(n >= 1000 ? 180 : 60)],
        ],
        nodeFlags: BOT_FLAGS,
        timeoutMs: n >= 1000 ? 330_000 : 180_000,
      }),
    ),
  ),
  // The journal's cost on the order path: the 100-instrument stream case with the journal on (SQLite,
  // default settings) beside the same case above without it (issue 26).
  {
    name: 'tick-to-trade, stream, 100 instruments, journal on',
    script: 'bench/tickToTrade.bench.ts',
    args: [
      ...['--transport', 'stream', '--instruments', '100', '--journal'],
      ...[...MOVE_ARGS, '--warmup', '10', '--warmup-max', '60'],
    ],
    nodeFlags: BOT_FLAGS,
    timeoutMs: 180_000,
  },
  // Recording's cost on the order path (issue 27): the 100-instrument stream case without and with
  // `--record` (a tap on the bot's own sockets, as `run --record`), in triples off / on / off again
  // (`--record-pairs N`, default 3): a load change on the shared machine falls on both sides, the
  // on run is judged against the two off runs around it, and off again − off is the control (what
  // noise alone gives between two identical runs).
  ...Array.from({ length: RECORD_PAIRS }, (_, i) => i + 1).flatMap((pair) =>
    (['off', 'on', 'off again'] as const).map(
      (mode): Job => ({
        name: `tick-to-trade, stream, 100 instruments, recording ${mode} (pair ${pair})`,
        script: 'bench/tickToTrade.bench.ts',
        args: [
          ...[
            '--transport',
            'stream',
            '--instruments',
            '100',
            ...(mode === 'on' ? ['--record', ...RECORD_ARGS] : []),
          ],
          ...['--seconds', QUICK ? '15' : '30', '--warmup', '10', '--warmup-max', '60'],
        ],
        nodeFlags: BOT_FLAGS,
        timeoutMs: 180_000,
      }),
    ),
  ),
  // What a recording flush holds the event loop for late in the hour, against the earlier writer's
  // whole-hour rewrite (the 30 s pairs above never reach minute 59).
  {
    name: 'record flush, 100 instruments, minute 59 of the hour',
    script: 'bench/recordFlush.bench.ts',
    args: ['--instruments', '100', '--minute', '59'],
    nodeFlags: ['--expose-gc'],
    timeoutMs: 240_000,
  },
  // Issue 36: the 1,000-instrument stream case with the journal on (as `perpbot run` keeps it), and with
  // recording on as well.
  ...(['journal on', 'journal on, recording on'] as const).map(
    (mode): Job => ({
      name: `tick-to-trade, stream, 1,000 instruments, ${mode}`,
      script: 'bench/tickToTrade.bench.ts',
      args: [
        ...['--transport', 'stream', '--instruments', '1000', '--journal'],
        ...(mode.endsWith('recording on') ? ['--record', ...RECORD_ARGS] : []),
        ...[...MOVE_ARGS, '--warmup', '75', '--warmup-max', '180'],
      ],
      nodeFlags: BOT_FLAGS,
      timeoutMs: 330_000,
    }),
  ),
  // Issue 36: the 1,000-instrument journal case again with every thread where the kernel puts it
  // (`--placement shared`; the cases above run apart: bench/placement.ts), the placement's baseline.
  {
    name: 'tick-to-trade, stream, 1,000 instruments, journal on, placement shared (baseline)',
    script: 'bench/tickToTrade.bench.ts',
    args: [
      ...['--transport', 'stream', '--instruments', '1000', '--journal', '--placement', 'shared'],
      ...[...MOVE_ARGS, '--warmup', '75', '--warmup-max', '180'],
    ],
    nodeFlags: BOT_FLAGS,
    timeoutMs: 330_000,
  },
  // Issue 36: tick-to-trade as a venue measures it: `perpbot run --live` (the compiled build, every
  // part `run` brings, its journal on unless said) in its own process against the mock in another,
  // from the venue's price change to the order command arriving there.
  ...(
    [
      [2, 'journal on'],
      [2, 'journal off'],
      [1000, 'journal on'],
      [1000, 'journal on, recording on'],
    ] as const
  ).map(
    ([n, mode]): Job => ({
      name: `tick-to-trade, venue view (perpbot run --live), ${n.toLocaleString('en')} instruments, ${mode}`,
      script: 'bench/tickToTradeCli.bench.ts',
      args: [
        ...['--instruments', String(n), ...movesFor(n)],
        ...(mode.startsWith('journal off') ? ['--no-journal'] : []),
        ...(mode.endsWith('recording on') ? ['--record'] : []),
        ...['--warmup', n >= 1000 ? '75' : '8', '--warmup-max', n >= 1000 ? '240' : '60'],
      ],
      nodeFlags: [],
      timeoutMs: n >= 1000 ? 420_000 : 180_000,
    }),
  ),
  // The rss baseline: the same 1,000-instrument stream case under V8's own heap growth policy (what
  // `ops.heapGrowthPercent` replaces; src/cli/heapPolicy.ts) and young generation (no production
  // node options).
  {
    name: "tick-to-trade, stream, 1,000 instruments, V8's default heap policy (rss baseline)",
    script: 'bench/tickToTrade.bench.ts',
    args: [
      ...['--transport', 'stream', '--instruments', '1000', '--heap-growth', '0'],
      ...[...MOVE_ARGS, '--warmup', '75', '--warmup-max', '180'],
    ],
    nodeFlags: ['--expose-gc'],
    timeoutMs: 330_000,
  },
  // 1,000 instruments on the streams for 10 minutes of wall time (the mock's clock at 1×: an
  // accelerated clock multiplies the pushes per wall second and measures the machine, not the bot).
  ...(QUICK
    ? []
    : [
        {
          name: 'stale data, stream, 1,000 instruments, 10 minutes',
          script: 'bench/tickToTrade.bench.ts',
          args: [
            ...['--transport', 'stream', '--instruments', '1000', '--seconds', '600'],
            ...['--warmup', '75', '--warmup-max', '180'],
          ],
          nodeFlags: BOT_FLAGS,
          timeoutMs: 1_050_000,
        },
      ]),
  // Issue 36: actor events and CPU at 1,000 instruments of unchanged ticks, refresh events against
  // input ages renewed in the change filter (same run).
  {
    name: 'tick-to-trade, input ages at 1,000 instruments (actor events)',
    script: 'bench/inputAges.bench.ts',
    args: ['--instruments', '1000', '--seconds', QUICK ? '30' : '60'],
    nodeFlags: [],
    timeoutMs: 180_000,
  },
  {
    name: 'limiter (colleague’s bench)',
    script: 'bench/limiter.bench.ts',
    args: [],
    nodeFlags: [],
    timeoutMs: 120_000,
  },
]

// The journal's case runs right after its baseline (the same case without the journal), so the two
// are measured under the same load and their lines print side by side.
{
  const off = JOBS.findIndex((j) => j.name === 'tick-to-trade, stream, 100 instruments')
  const on = JOBS.findIndex((j) => j.name.endsWith('journal on'))
  if (off >= 0 && on > off + 1) JOBS.splice(off + 1, 0, ...JOBS.splice(on, 1))
}

interface Outcome {
  job: Job
  code: number | null
  timedOut: boolean
  seconds: number
  /** The machine's load average over the job (shared machine: every figure moves with it). */
  load: string
  results: Record<string, unknown>[]
  lines: string[]
}

function runJob(job: Job): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now()
    const load0 = loadNow()
    const child = spawn(process.execPath, [...job.nodeFlags, '--import', 'tsx', job.script, ...job.args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const results: Record<string, unknown>[] = []
    const lines: string[] = []
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, job.timeoutMs)
    let buffered = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk
      let nl = buffered.indexOf('\n')
      while (nl >= 0) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        if (line.startsWith(RESULT_PREFIX)) results.push(JSON.parse(line.slice(RESULT_PREFIX.length)))
        else {
          lines.push(line)
          console.log(`  ${line}`)
        }
        nl = buffered.indexOf('\n')
      }
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => process.stderr.write(chunk))
    child.on('close', (code) => {
      clearTimeout(timer)
      const seconds = (performance.now() - started) / 1000
      resolve({ job, code, timedOut, seconds, load: loadSpan(load0), results, lines })
    })
  })
}

interface LatencyRow {
  label: string
  instruments: number
  pattern: string
  limiter: string
  latency: Distribution
}
interface MemoryResult {
  instruments: number
  klines: number
  afterMore: { rss: number; heapUsed: number }
  perActorBytes: number
  peakRss: number
  maxRss: number
  statisticsParseMs: number[]
}

const started = performance.now()
const startedAt = new Date()
const runLoad0 = loadNow()
console.log(`# perpbot benches (${machineLine()}, ${QUICK ? 'quick' : 'full'} run)\n`)
const outcomes: Outcome[] = []
const selected = ONLY === undefined ? JOBS : JOBS.filter((j) => j.name.includes(ONLY))
if (selected.length === 0) {
  console.error(`no bench job name contains "${ONLY}"; jobs: ${JOBS.map((j) => j.name).join('; ')}`)
  process.exit(2)
}
for (const job of selected) {
  console.log(`## ${job.name}: node ${[...job.nodeFlags, job.script, ...job.args].join(' ')}\n`)
  const o = await runJob(job)
  outcomes.push(o)
  const status = o.timedOut ? `TIMED OUT after ${job.timeoutMs / 1000} s` : `exit ${o.code}`
  console.log(`\n  (${status}, ${o.seconds.toFixed(0)} s, ${o.load})\n`)
}

// --- summary ---
console.log('# Summary\n')
const latency = outcomes.flatMap((o) => o.results).find((r) => r.bench === 'actorLatency') as
  | { rows: LatencyRow[]; timerAudit: { single: string[] } }
  | undefined
if (latency) {
  console.log('Input → signed batch at the transport (target a: p99 < 5 ms with 100 instruments)\n')
  console.log(
    `${'case'.padEnd(52)} ${'p50'.padStart(8)} ${'p90'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)}`,
  )
  for (const r of latency.rows) {
    const d = r.latency
    const mark = r.instruments === 100 && r.latency.p99 < 5 ? '  ✓' : r.instruments === 100 ? '  ✗' : ''
    console.log(`${r.label.padEnd(52)} ${ms(d.p50)} ${ms(d.p90)} ${ms(d.p99)} ${ms(d.max)}${mark}`)
  }
  const waited = latency.timerAudit.single.filter(
    (l) => Number(/fired before the hand-off\s+([\d.]+)/.exec(l)?.[1] ?? 0) > 0,
  )
  console.log(
    `\nTimers fired on the path of one input (target c: none needed): ${waited.length === 0 ? 'none' : ''}`,
  )
  for (const l of waited) console.log(l)
} else console.log('actor latency: no result')

const memory = outcomes
  .flatMap((o) => o.results)
  .filter((r) => r.bench === 'memory') as unknown as MemoryResult[]
if (memory.length > 0) {
  console.log('\nMemory (target b: 1,000 instruments < 300 MB); rss after repricing rounds and a forced GC\n')
  console.log(
    `${'case'.padEnd(28)} ${'rss'.padStart(9)} ${'heapUsed'.padStart(9)} ${'heap/actor'.padStart(11)} ${'poll peak rss'.padStart(14)} ${'max rss'.padStart(9)} ${'stats parse'.padStart(12)}`,
  )
  for (const m of memory) {
    const ok = m.instruments === 1000 ? (m.afterMore.rss < 300 * 1024 * 1024 ? '  ✓' : '  ✗') : ''
    const parse = [...m.statisticsParseMs].sort((x, y) => x - y)
    console.log(
      `${`${m.instruments} instruments, ${m.klines} klines`.padEnd(28)} ${mb(m.afterMore.rss).padStart(9)} ${mb(m.afterMore.heapUsed).padStart(9)} ${`${(m.perActorBytes / 1024).toFixed(1)} KB`.padStart(11)} ${mb(m.peakRss).padStart(14)} ${mb(m.maxRss).padStart(9)} ${`${(parse[Math.floor(parse.length / 2)] ?? 0).toFixed(0)} ms`.padStart(12)}${ok}`,
    )
  }
}

interface TickToTradeResult {
  transport: string
  instruments: number
  speed: number
  latency?: Distribution | undefined
  indexAgeMs: Distribution
  marketWeightPerMinute: number
  staleHalts: number
  rss: number
  /** Peak rss of the bot's process over the run. */
  peakRss?: number | undefined
  /** Heap used after a full collection at the end (the live data). */
  heapAfterGc?: number | undefined
  /** `process`: the mock in its own process (rss is the bot's alone); `inline`: one process. */
  layout?: string | undefined
  /** The bot kept its journal (SQLite) during the run. */
  journal?: boolean | undefined
  /** The bot's process recorded the public stream (`--record`). */
  record?: boolean | undefined
  /** bench/placement.ts: `apart` or `shared`. */
  placement?: string | undefined
  virtualMinutes: number
}
const ttt = outcomes
  .flatMap((o) => o.results)
  .filter((r) => r.bench === 'tickToTrade') as unknown as TickToTradeResult[]
if (ttt.length > 0) {
  console.log(
    '\nTick-to-trade: mock index move → signed command at the mock, over loopback (targets, streams: p99 < 10 ms at 100, < 50 ms at 1,000; market data < 10 % of 1,000/min; no stale halt at 1,000 over 10 virtual minutes)\n',
  )
  for (const r of ttt) {
    const target = r.instruments === 100 ? 10 : r.instruments === 1000 ? 50 : undefined
    const latency = r.latency
      ? `p50 ${ms(r.latency.p50)} p99 ${ms(r.latency.p99)} max ${ms(r.latency.max)} ms${target && r.transport === 'stream' ? (r.latency.p99 < target ? ' ✓' : ' ✗') : ''}`
      : `${r.virtualMinutes.toFixed(1)} virtual min, stale halts ${r.staleHalts}${r.transport === 'stream' ? (r.staleHalts === 0 ? ' ✓' : ' ✗') : ''}`
    const share = (100 * r.marketWeightPerMinute) / 1000
    console.log(
      `tick-to-trade ${r.transport.padEnd(6)} ${String(r.instruments).padStart(5)} instruments${r.journal ? ' journal on ' : r.record ? ' recording  ' : '            '}  ${latency}  index age p99 ${(r.indexAgeMs.p99 / 1000).toFixed(2)} s  market data ${share.toFixed(1)} %${r.transport === 'stream' ? (share < 10 ? ' ✓' : ' ✗') : ''}  rss ${mb(r.rss)}, peak ${r.peakRss === undefined ? '?' : mb(r.peakRss)}${r.instruments === 1000 && r.transport === 'stream' && r.peakRss !== undefined ? (r.peakRss < 300e6 ? ' ✓' : ' ✗') : ''}${r.heapAfterGc === undefined ? '' : `, live heap ${mb(r.heapAfterGc)}`}${r.layout === 'process' ? ` (bot; mock in its own process, placement ${r.placement ?? 'shared'})` : ' (bot + mock)'}`,
    )
  }
}

// Recording on vs off, triple by triple (off, on, off again, back to back), against the control.
const recordCases = outcomes
  .filter((o) => o.job.name.includes(', recording '))
  .map((o) => ({
    mode: /recording (off again|on|off) /.exec(o.job.name)?.[1],
    lat: (o.results.find((x) => x.bench === 'tickToTrade') as { latency?: Distribution } | undefined)
      ?.latency,
  }))
if (recordCases.length > 0) {
  console.log(
    "\nRecording the public stream the bot receives (run --record: a tap on the bot's own sockets, written by a child process at nice 10), 100 instruments, streams\n",
  )
  const of = (mode: string) => recordCases.filter((c) => c.mode === mode).map((c) => c.lat)
  const [off, on, again] = [of('off'), of('on'), of('off again')]
  const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
  const rows = off.flatMap((o, i) => {
    const x = on[i]
    const a = again[i]
    if (o === undefined || x === undefined || a === undefined) return []
    console.log(
      `pair ${i + 1}: off p50 ${ms(o.p50)} p99 ${ms(o.p99)} · on p50 ${ms(x.p50)} p99 ${ms(x.p99)} · off again p50 ${ms(a.p50)} p99 ${ms(a.p99)} ms`,
    )
    return [
      {
        // The on run against the mean of the off runs around it (a linear drift in the load cancels).
        p50: x.p50 - (o.p50 + a.p50) / 2,
        p99: x.p99 - (o.p99 + a.p99) / 2,
        controlP50: a.p50 - o.p50,
        controlP99: a.p99 - o.p99,
      },
    ]
  })
  const list = (xs: number[]) => xs.map((d) => d.toFixed(2)).join(' / ')
  const p50 = rows.map((r) => r.p50)
  const c50 = rows.map((r) => Math.abs(r.controlP50))
  console.log(
    `on − off (mean of the two off runs around it): p50 ${list(p50)} ms, p99 ${list(rows.map((r) => r.p99))} ms; median p50 ${med(p50).toFixed(2)} ms, p99 ${med(rows.map((r) => r.p99)).toFixed(2)} ms`,
  )
  console.log(
    `control, off again − off: p50 ${list(rows.map((r) => r.controlP50))} ms, p99 ${list(rows.map((r) => r.controlP99))} ms`,
  )
  const within = Math.abs(med(p50)) <= Math.max(...c50)
  console.log(
    `recording's p50 cost ${within ? 'within' : 'BEYOND'} the noise between two identical runs (|median on − off| ${Math.abs(med(p50)).toFixed(2)} ms vs the control's largest ${Math.max(...c50).toFixed(2)} ms; on slower in ${p50.filter((d) => d > 0).length} of ${p50.length} triples)`,
  )
}

const flushOut = outcomes.find((o) => o.job.script.endsWith('recordFlush.bench.ts'))
for (const l of flushOut?.lines.filter((x) => x.startsWith('record flush')) ?? []) console.log(`\n${l}`)

// Issue 26: the journal off the money path, the two back-to-back runs in one line.
{
  const at100 = (journal: boolean) =>
    ttt.find(
      (r) =>
        r.transport === 'stream' &&
        r.instruments === 100 &&
        r.record !== true &&
        (r.journal === true) === journal,
    )
  const off = at100(false)?.latency
  const on = at100(true)?.latency
  if (off && on)
    console.log(
      `\nJournal off vs on (stream, 100 instruments, back to back; SQLite writes on a worker thread): p50 ${ms(off.p50)} vs ${ms(on.p50)} ms, p99 ${ms(off.p99)} vs ${ms(on.p99)} ms (one run each on a shared machine: alternate more pairs to judge, docs/benchmarks.md)`,
    )
}

const agesOut = outcomes.find((o) => o.job.script.endsWith('inputAges.bench.ts'))
if (agesOut) {
  const pick = agesOut.lines.filter((l) => /^(# input ages|refresh events|ages renewed)/.test(l))
  if (pick.length > 0) console.log('\nInput ages (actor events at 1,000 instruments, same run)\n')
  for (const l of pick) console.log(l)
}

const limiterOut = outcomes.find((o) => o.job.script.endsWith('limiter.bench.ts'))
if (limiterOut) {
  const pick = limiterOut.lines.filter((l) => /one after another|ours \(createWeightLimiter/.test(l))
  if (pick.length > 0) console.log('\nLimiter (colleague’s bench), selected lines\n')
  for (const l of pick) console.log(l)
}

const venueView = outcomes
  .flatMap((o) => o.results)
  .filter((r) => r.bench === 'tickToTradeCli') as unknown as {
  instruments: number
  journal: boolean
  record: boolean
  latency: Distribution
  rss: number
  peakRss: number
  placement?: string | undefined
}[]
if (venueView.length > 0) {
  console.log(
    '\nTick-to-trade as a venue sees it (perpbot run --live, compiled, its own process; price change at the mock → order command there; targets at 1,000: p99 ≤ 5 ms, rss ≤ 200 MB = 190.7 MiB)\n',
  )
  for (const r of venueView) {
    const ok = r.instruments >= 1000 ? (r.latency.p99 <= 5 ? ' ✓' : ' ✗') : ''
    const rssOk = r.instruments >= 1000 ? (r.peakRss <= 200e6 ? ' ✓' : ' ✗') : ''
    console.log(
      `venue view ${String(r.instruments).padStart(5)} instruments, journal ${r.journal ? 'on ' : 'off'}${r.record ? ', recording on' : '              '}  p50 ${ms(r.latency.p50)} p90 ${ms(r.latency.p90)} p99 ${ms(r.latency.p99)} max ${ms(r.latency.max)} ms${ok}  rss ${mb(r.rss)}, peak ${mb(r.peakRss)}${rssOk}  placement ${r.placement ?? 'shared'}`,
    )
  }
}

// Issue 36 at 1,000 instruments, side by side: streams with the journal, with journal and recording,
// the venue's view, beside the same run's polling baseline (targets p99 ≤ 5 ms, rss ≤ 200 MB = 190.7 MiB).
const issue36: string[] = []
{
  const at1000 = ttt.filter((r) => r.instruments === 1000 && r.latency !== undefined)
  const pick = (transport: string, journal: boolean, record: boolean, placement = 'apart') =>
    at1000.find(
      (r) =>
        r.transport === transport &&
        (r.journal === true) === journal &&
        (r.record === true) === record &&
        (r.placement ?? 'shared') === placement,
    )
  const cases: [string, TickToTradeResult | undefined][] = [
    ['streams', pick('stream', false, false)],
    ['streams, journal on', pick('stream', true, false)],
    ['streams, journal on, recording on', pick('stream', true, true)],
    ['streams, journal on, placement shared', pick('stream', true, false, 'shared')],
    ['polling (baseline)', pick('poll', false, false)],
  ]
  const line = (name: string, lat: Distribution, peak: number | undefined, target: boolean): string =>
    `${name.padEnd(42)} p50 ${ms(lat.p50)} p99 ${ms(lat.p99)} max ${ms(lat.max)} ms (n ${lat.n}: ${lat.n < 100 ? 'p99 is the slowest move' : 'p99 of the moves'})${target ? (lat.p99 <= 5 ? ' ✓' : ' ✗') : ''}  peak rss ${peak === undefined ? '?' : mb(peak)}${target && peak !== undefined ? (peak <= 200e6 ? ' ✓' : ' ✗') : ''}`
  for (const [name, r] of cases)
    if (r?.latency)
      issue36.push(line(name, r.latency, r.peakRss, r.transport === 'stream' && r.placement === 'apart'))
  for (const r of venueView.filter((v) => v.instruments >= 1000))
    issue36.push(
      line(
        `venue view, journal ${r.journal ? 'on' : 'off'}${r.record ? ', recording on' : ''}`,
        r.latency,
        r.peakRss,
        true,
      ),
    )
  if (issue36.length > 0) {
    console.log(
      '\nIssue 36, 1,000 instruments, this run side by side (targets: p99 ≤ 5 ms, rss ≤ 200 MB = 190.7 MiB)\n',
    )
    for (const l of issue36) console.log(l)
  }
}

// The run's figures into docs/benchmarks.md, one region per selection (`--only` runs keep their own),
// each job with the machine's load while it ran.
if (!process.argv.includes('--no-write')) {
  const region = `bench-run${ONLY === undefined ? '' : `-${ONLY.replace(/[^A-Za-z0-9]+/g, '-')}`}${QUICK ? '-quick' : ''}`
  const rows = outcomes.map((o) => {
    const figures = o.lines.filter((l) => l.trim() !== '').at(-1) ?? ''
    return `| ${o.job.name} | ${o.timedOut ? 'timed out' : o.code === 0 ? 'ok' : `exit ${o.code}`} | ${o.load} | ${figures.replaceAll('|', '/').trim()} |`
  })
  writeRegion(
    join(ROOT, 'docs', 'benchmarks.md'),
    region,
    [
      `### \`npm run bench${QUICK ? ' -- --quick' : ''}${ONLY === undefined ? '' : ` --only ${ONLY}`}\` (latest run, written by bench/run.ts)`,
      '',
      `Measured ${utcStamp(startedAt)} on ${machineLine()}; ${loadSpan(runLoad0)} over the run (the load of each job beside it).`,
      '',
      '| job | result | load during the job | its last figures line |',
      '|---|---|---|---|',
      ...rows,
      ...(issue36.length > 0
        ? [
            '',
            'Issue 36, 1,000 instruments side by side (targets: p99 ≤ 5 ms, rss ≤ 200 MB = 190.7 MiB):',
            '',
            '```',
            ...issue36,
            '```',
          ]
        : []),
    ].join('\n'),
  )
}

const failed = outcomes.filter((o) => o.timedOut || o.code !== 0)
console.log(
  `\n${outcomes.length - failed.length}/${outcomes.length} benches completed in ${((performance.now() - started) / 1000).toFixed(0)} s`,
)
process.exitCode = failed.length === 0 ? 0 : 1
