/**
 * `perpbot simulate`: the real bot against the mock on a stepped virtual clock, as fast as the machine
 * allows, with a progress bar on stderr; writes one self-contained HTML report (src/sim/simulate/).
 */
import { accessSync, constants, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { tradesCsv } from '../../analytics/marketMaking.ts'
import { MARKOUT_HORIZONS_MS } from '../../analytics/markouts.ts'
import { amount, percent } from '../../format/units.ts'
import { openJournalDb } from '../../journal/database.ts'
import { MOCK_SCENARIOS } from '../../mock/server.ts'
import { runBacktest } from '../../research/backtest/runBacktest.ts'
import { bps } from '../../sim/simulate/marketMakingSection.ts'
import { createProgress } from '../../sim/simulate/progress.ts'
import { DEFAULT_REPORT_CURRENCY, type ReportAssets, renderReport } from '../../sim/simulate/report.ts'
import { runSimulation } from '../../sim/simulate/runSimulation.ts'
import { runSummaryOf } from '../../sim/simulate/runSummary.ts'
import { summarize } from '../../sim/simulate/summary.ts'
import { loadStrategies } from '../../strategy/registry.ts'
import { type CliContext, UsageError } from '../context.ts'
import { parseReplayFlags, REPLAY_OPTIONS, type ReplayFlags, startReplay } from './simulateReplay.ts'

export const SIMULATE_USAGE = `usage: perpbot simulate [--strategy NAME] [--instruments N] [--hours H] [--scenario NAME]
                        [--seed S] [--out FILE] [--journal FILE] [--streams] [--set KEY=VALUE ...]
  Runs the bot against the embedded mock on a virtual clock, as fast as the machine allows, and
  writes one self-contained HTML report (charts inlined, opens offline). Same flags, same report.
  --strategy NAME    strategy quoting every instrument (default index-peg; see strategies/)
  --instruments N    generated instruments, 1-500 (default 10)
  --hours H          virtual hours to simulate, > 0 and at most 744 (default 24)
  --scenario NAME    mock scenario: ${MOCK_SCENARIOS.join(', ')} (default calm)
  --seed S           seed of the mock and the bot, a non-negative integer (default 1)
  --out FILE         report file (default report.html)
  --journal FILE     also journal the run to this SQLite file (read it with perpbot report --config
                     pointing ops.stateDir at it, or any SQLite client); the database's size is printed
  --trades-csv FILE  also write one row per fill: time, side, price, size, fee, mid, spread captured and
                     markouts at 1 s, 10 s, 60 s (bps, positive = good for us)
  --json FILE        also write the run's figures as JSON, for 'perpbot compare A.json B.json'
  --streams          the bot's inputs from the exchange's stream in this process (as a live bot reads
                     the WebSocket: pushes, gaps, the polls standing down), not from polls alone
  --set KEY=VALUE    config override (dotted key, JSON or text value), e.g. polling.indexMs=5000
  Replay (docs/research.md): the mock replays a dataset instead of inventing the market
  --data DIR         dataset folder (perpbot download / perpbot record); instruments, window from it
  --symbols LIST     instruments of the dataset to replay (default all); --from T / --to T a window
  --fill-model M     trades (default when the data has trades) or klines (fills only through by ≥ 1 tick)
  --participation P  share of each print our orders may take, percent (default 100)
  --order-latency MS / --feed-latency MS   order and feed latency, virtual ms (default 0)
  --engine E         fast (default): the bot's own instrument machine on xstate's pure transitions,
                     driven by the dataset against the mock's core (no HTTP, signing, batcher or
                     limiter); bot: the whole bot against the mock over the in-process transport
                     (slower, end to end; with --streams its inputs are pushed, not polled)
  Progress goes to stderr; the summary to stdout.`

export const MAX_SIM_INSTRUMENTS = 500
export const MAX_SIM_HOURS = 744

export interface SimulateFlags {
  strategy: string
  instruments: number
  hours: number
  scenario: string
  seed: number
  out: string
  /** SQLite file to journal the run to. */
  journal: string | undefined
  /** Per-trade CSV (one row per fill with its markouts). */
  tradesCsv: string | undefined
  /** The run's figures as JSON (`perpbot compare A.json B.json`). */
  json: string | undefined
  overrides: Record<string, unknown>
  replay: ReplayFlags | undefined
  /** `--streams`: the inputs from the in-process stream (engine/inProcessStream.ts). */
  streams: boolean
}

/** Parses and checks the flags (strategy names are checked later, against the registry). */
export function parseSimulateFlags(argv: readonly string[]): SimulateFlags | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      strategy: { type: 'string', default: 'index-peg' },
      instruments: { type: 'string', default: '10' },
      hours: { type: 'string', default: '24' },
      scenario: { type: 'string', default: 'calm' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string', default: 'report.html' },
      journal: { type: 'string' },
      'trades-csv': { type: 'string' },
      json: { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
      streams: { type: 'boolean', default: false },
      ...REPLAY_OPTIONS,
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  })
  if (values.help) return 'help'
  const instruments = Number(values.instruments)
  if (!Number.isInteger(instruments) || instruments < 1 || instruments > MAX_SIM_INSTRUMENTS)
    throw new UsageError(
      `--instruments must be an integer from 1 to ${MAX_SIM_INSTRUMENTS}, got '${values.instruments}'`,
    )
  const hours = Number(values.hours)
  if (!Number.isFinite(hours) || hours <= 0 || hours > MAX_SIM_HOURS)
    throw new UsageError(
      `--hours must be a number above 0 and at most ${MAX_SIM_HOURS}, got '${values.hours}'`,
    )
  const seed = Number(values.seed)
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffff_ffff)
    throw new UsageError(`--seed must be an integer from 0 to ${0xffff_ffff}, got '${values.seed}'`)
  if (!MOCK_SCENARIOS.includes(values.scenario))
    throw new UsageError(`unknown scenario '${values.scenario}' (known: ${MOCK_SCENARIOS.join(', ')})`)
  if (values.out.trim() === '') throw new UsageError('--out must name a file')
  const overrides: Record<string, unknown> = {}
  for (const kv of values.set) {
    const eq = kv.indexOf('=')
    if (eq <= 0) throw new UsageError(`--set expects KEY=VALUE, got '${kv}'`)
    const raw = kv.slice(eq + 1)
    let value: unknown = raw
    try {
      value = JSON.parse(raw)
    } catch {
      // Not JSON: the text itself.
    }
    overrides[kv.slice(0, eq)] = value
  }
  return {
    strategy: values.strategy,
    instruments,
    hours,
    scenario: values.scenario,
    seed,
    out: values.out,
    journal: values.journal === undefined || values.journal === '' ? undefined : resolve(values.journal),
    tradesCsv: values['trades-csv'] === undefined ? undefined : resolve(values['trades-csv']),
    json: values.json === undefined ? undefined : resolve(values.json),
    overrides,
    replay: parseReplayFlags(values),
    streams: values.streams,
  }
}

/** uPlot's browser build and stylesheet, from the installed package. */
export function loadReportAssets(): ReportAssets {
  const require = createRequire(import.meta.url)
  const dist = join(dirname(require.resolve('uplot/package.json')), 'dist')
  return {
    uplotJs: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'),
    uplotCss: readFileSync(join(dist, 'uPlot.min.css'), 'utf8'),
  }
}

export async function simulateCommand(ctx: CliContext, version: string): Promise<number> {
  const flags = parseSimulateFlags(ctx.argv)
  if (flags === 'help') {
    ctx.stdout(SIMULATE_USAGE)
    return 0
  }
  // Before the run, not after it: a report that cannot be written would lose the whole run.
  const out = resolve(flags.out)
  checkWritable(out)
  if (flags.tradesCsv !== undefined) checkWritable(flags.tradesCsv)
  if (flags.json !== undefined) checkWritable(flags.json)
  const names = (await loadStrategies()).names()
  if (!names.includes(flags.strategy))
    throw new UsageError(`unknown strategy '${flags.strategy}' (known: ${names.join(', ')})`)
  const assets = loadReportAssets()
  // On a terminal the bar redraws in place (raw writes); otherwise plain lines through the context.
  const tty = process.stderr.isTTY === true
  const write = tty
    ? (text: string) => void process.stderr.write(text)
    : (text: string) => ctx.stderr(text.replace(/\n$/, ''))
  const progress = createProgress({ write, isTty: tty, now: () => performance.now() })
  if (flags.replay?.engine === 'fast' && flags.journal !== undefined)
    throw new UsageError('--journal needs --engine bot (the fast engine keeps no journal)')
  if (flags.replay?.engine === 'fast' && flags.streams)
    throw new UsageError('--streams needs --engine bot (the fast engine has no stream inputs)')
  const replay = flags.replay === undefined ? undefined : startReplay(flags.replay, ctx)
  if (replay === 'failed') return 2
  const stop = new AbortController()
  const started = performance.now()
  const hours = replay === undefined ? flags.hours : (replay.endMs - replay.startMs) / 3_600_000
  const totalMs = hours * 3_600_000
  let done = 0
  // A bad journal path is a configuration error before anything runs.
  const journalDb =
    flags.journal === undefined ? undefined : await openJournalDb({ kind: 'sqlite', path: flags.journal })
  const run = replay !== undefined && flags.replay?.engine === 'fast' ? runBacktest : runSimulation
  const result = await run({
    journal: journalDb,
    strategy: flags.strategy,
    instruments: replay?.instruments.length ?? flags.instruments,
    hours,
    scenario: replay === undefined ? flags.scenario : 'replay',
    replay,
    seed: flags.seed,
    configDir: ctx.configDir,
    perpbotVersion: version,
    overrides: flags.overrides,
    streams: flags.streams ? 'in-process' : 'off',
    // A stop signal (even one before the start) or a corrupt file met mid-run.
    signal: AbortSignal.any([ctx.signal, stop.signal]),
    onProgress: (d, total) => {
      done = d
      progress.update(d, total)
      // A corrupt file met mid-run (the replay holds the market from there): stop at once.
      if (replay?.driver.failure !== undefined) stop.abort()
    },
  })
  progress.done(done, totalMs)
  const failure = replay?.driver.failure
  if (failure !== undefined) {
    ctx.stderr(
      `perpbot simulate: ${failure.message}; no report written (the dataset's other files are untouched)`,
    )
    return 2
  }
  if (replay !== undefined) {
    const gaps = replay.driver.gaps
    for (const g of gaps.slice(0, 20))
      ctx.stderr(
        `gap in the data: ${g.symbol} ${new Date(g.from).toISOString()} to ${new Date(g.to).toISOString()} (crossed: prices held, no fills)`,
      )
    if (gaps.length > 20) ctx.stderr(`… ${gaps.length - 20} more gap(s)`)
  }
  const thin =
    replay === undefined
      ? undefined
      : thinDataNote(replay.driver.prints, replay.instruments.length, done, summarize(result.record).fills)
  writeFileSync(
    out,
    renderReport(thin === undefined ? result.record : { ...result.record, note: thin }, assets),
  )
  if (flags.tradesCsv !== undefined && result.record.marketMaking !== undefined)
    writeFileSync(flags.tradesCsv, tradesCsv(result.record.marketMaking.trades))
  if (flags.json !== undefined)
    writeFileSync(
      flags.json,
      `${JSON.stringify(runSummaryOf(result.record, result.record.currency ?? DEFAULT_REPORT_CURRENCY), null, 1)}\n`,
    )
  const stopped = ctx.signal.aborted
  const s = summarize(result.record)
  const wallS = (performance.now() - started) / 1000
  ctx.stdout(
    `${stopped ? `stopped after ${(done / 3_600_000).toFixed(2)} of ${Number(hours.toFixed(3))} h` : `simulated ${Number(hours.toFixed(3))} h`} of ${replay?.instruments.length ?? flags.instruments} instrument(s)${replay === undefined ? '' : ` (replayed, engine ${flags.replay?.engine})`} in ${wallS.toFixed(1)} s (${result.steps} clock steps): ` +
      `net PnL ${amount(s.netPnl, result.record.currency ?? DEFAULT_REPORT_CURRENCY)}, ${s.fills} fills, maker share ${percent(s.makerShare)}, ` +
      `quoting ${percent(s.quotingShare)} of the time, ${s.alerts} alert(s)`,
  )
  const mm = result.record.marketMaking
  if (mm !== undefined)
    ctx.stdout(
      `market making: spread captured ${bps(mm.markouts.capturedBps)}, markouts ${MARKOUT_HORIZONS_MS.map((h) => `${h / 1000} s ${bps(mm.markouts.markoutBps[h])}`).join(', ')}, ` +
        `adverse selection ${bps(mm.markouts.adverseSelectionBps)}, ${mm.roundTrips.trips} round trip(s), win rate ${percent(mm.roundTrips.winRate)}`,
    )
  if (thin !== undefined) ctx.stdout(thin)
  ctx.stdout(
    stopped
      ? `report (partial: stopped after ${(done / 3_600_000).toFixed(2)} of ${Number(hours.toFixed(3))} h): ${out}`
      : `report: ${out}`,
  )
  if (result.journal)
    ctx.stdout(
      `journal: ${flags.journal} (${(result.journal.sizeBytes / 1_048_576).toFixed(1)} MB, ${result.journal.rowsWritten} rows, ${result.journal.rowsDropped} dropped)`,
    )
  return stopped ? 1 : 0
}

/**
 * Why a replay filled nothing, when the data is too thin to fill (issue 39.6): fewer than 6 prints a
 * minute per instrument (a recording of the mock's tape has one a minute); undefined otherwise.
 */
export function thinDataNote(
  prints: number,
  instruments: number,
  ranMs: number,
  fills: number,
): string | undefined {
  const minutes = ranMs / 60_000
  if (fills > 0 || !(minutes > 0) || instruments < 1) return undefined
  const perMinute = prints / instruments / minutes
  if (perMinute >= 6) return undefined
  return `no fills: the data is too thin to fill a resting order (${prints} print(s) over ${minutes.toFixed(1)} min and ${instruments} instrument(s), ${perMinute.toFixed(2)} a minute each); record longer, or use data with every trade (download --what trades), or --fill-model klines`
}

/**
 * Refuses (exit 2) a report path whose folder is missing or not writable, or that names a folder.
 * @throws {UsageError} naming the path.
 */
export function checkWritable(file: string): void {
  const dir = dirname(file)
  let isDir = false
  try {
    isDir = statSync(dir).isDirectory()
  } catch {
    throw new UsageError(`--out ${file}: the folder ${dir} does not exist`)
  }
  if (!isDir) throw new UsageError(`--out ${file}: ${dir} is not a folder`)
  try {
    if (statSync(file).isDirectory()) throw new UsageError(`--out ${file} is a folder: name a file`)
  } catch (e) {
    if (e instanceof UsageError) throw e
    // Absent: it will be created.
  }
  try {
    accessSync(dir, constants.W_OK)
  } catch {
    throw new UsageError(`--out ${file}: the folder ${dir} is not writable`)
  }
}
