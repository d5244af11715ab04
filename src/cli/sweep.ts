/**
 * `perpbot sweep`: one replayed backtest per grid point on a pool of worker threads, ranked on an
 * in-sample window and checked on the out-of-sample window after it; a ranked CSV and an HTML page
 * with a heatmap over the first two grid parameters (src/research/sweep/).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError, InputValidationError } from '../errors.ts'
import { DatasetError } from '../research/dataset/format.ts'
import { createCountProgress } from '../research/progress.ts'
import { DEFAULT_FILL_MODEL } from '../research/replay/fillModel.ts'
import { iso, prepareReplay } from '../research/replay/prepareReplay.ts'
import { expandGrid, parseAxis } from '../research/sweep/grid.ts'
import { isObjective, OBJECTIVES } from '../research/sweep/objective.ts'
import { rank, runSweep } from '../research/sweep/runSweep.ts'
import { sweepCsv, sweepHtml } from '../research/sweep/sweepReport.ts'
import type { SweepTask } from '../research/sweep/task.ts'
import { parseTimeArg } from '../research/timeArg.ts'
import { loadStrategies } from '../strategy/registry.ts'
import type { StrategyRegistry } from '../strategy/registryResolve.ts'
import { type CliContext, UsageError } from './context.ts'
import { parseReplayFlags, REPLAY_OPTIONS } from './simulateReplay.ts'

export const SWEEP_USAGE = `usage: perpbot sweep --data DIR --grid KEY=V1,V2,... [--grid ...] [--strategy NAME]
                     [--objective ${OBJECTIVES.join('|')}] [--split F] [--workers N] [--out DIR]
  One replayed backtest per grid point (every combination), on worker threads; ranked on the
  in-sample window, with the out-of-sample window after it beside (the pick judged on unseen data).
  --grid KEY=V1,...  a strategy parameter and its values (e.g. halfSpreadBps=5,10,20); repeatable
  --strategy NAME    default index-peg
  --objective O      net-pnl (default), sharpe, or drawdown (smallest is best)
  --split F          in-sample share of the window, 0.1-0.9 (default 0.7)
  --workers N        worker threads (default: the machine's cores); 0 runs one after another here
  --out DIR          writes sweep.csv and sweep.html (default sweep/)
  --seed S           seed of the mock and the bot (default 1)
  Replay flags as in 'perpbot simulate': --data DIR, --symbols, --from, --to, --fill-model,
  --participation, --order-latency, --feed-latency, --engine (fast by default; bot runs the whole
  bot against the mock for every point, end to end and much slower).`

/**
 * Every point must parse with the strategy's own schema before anything runs (issue 39.4): a typo'd
 * key or a value out of range is one usage error (exit 2) naming the first bad point, not a failed run.
 * Size and cap come from the run's own instrument config; placeholders stand in for them here.
 */
export function checkPoints(
  registry: Pick<StrategyRegistry, 'resolve'>,
  strategy: string,
  points: readonly Readonly<Record<string, unknown>>[],
): void {
  for (const point of points) {
    try {
      registry.resolve(strategy, { size: '1', positionCap: '10', ...point })
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e
      throw new UsageError(
        `--grid point ${JSON.stringify(point)} is not valid for ${strategy}: ${e.issues.slice(0, 3).join('; ')}`,
      )
    }
  }
}

export async function sweepCommand(ctx: CliContext, version: string): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      ...REPLAY_OPTIONS,
      grid: { type: 'string', multiple: true, default: [] },
      strategy: { type: 'string', default: 'index-peg' },
      objective: { type: 'string', default: 'net-pnl' },
      split: { type: 'string', default: '0.7' },
      workers: { type: 'string', default: String(availableParallelism()) },
      out: { type: 'string', default: 'sweep' },
      seed: { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  })
  if (values.help) {
    ctx.stdout(SWEEP_USAGE)
    return 0
  }
  const replay = parseReplayFlags(values)
  if (replay === undefined) throw new UsageError('--data DIR is required')
  if (values.grid.length === 0) throw new UsageError('at least one --grid KEY=V1,V2,... is required')
  if (!isObjective(values.objective))
    throw new UsageError(`--objective must be one of ${OBJECTIVES.join(', ')}, got '${values.objective}'`)
  const objective = values.objective
  const split = Number(values.split)
  if (!(split >= 0.1 && split <= 0.9))
    throw new UsageError(`--split must be from 0.1 to 0.9, got '${values.split}'`)
  const workers = Number(values.workers)
  if (!Number.isInteger(workers) || workers < 0 || workers > 64)
    throw new UsageError('--workers must be an integer from 0 to 64')
  const seed = Number(values.seed)
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UsageError('--seed must be a non-negative integer')
  const registry = await loadStrategies()
  const names = registry.names()
  if (!names.includes(values.strategy))
    throw new UsageError(`unknown strategy '${values.strategy}' (known: ${names.join(', ')})`)
  let axes: ReturnType<typeof parseAxis>[]
  let points: ReturnType<typeof expandGrid>
  try {
    axes = values.grid.map(parseAxis)
    points = expandGrid(axes)
  } catch (e) {
    throw new UsageError(e instanceof InputValidationError ? e.shortMessage : String(e))
  }
  checkPoints(registry, values.strategy, points)
  const model = {
    ...DEFAULT_FILL_MODEL,
    tier: replay.tier,
    participationPpm: String(Math.round(replay.participationPct * 10_000)),
    orderLatencyMs: replay.orderLatencyMs,
    feedLatencyMs: replay.feedLatencyMs,
  }
  const dir = resolve(replay.dir)
  let whole: ReturnType<typeof prepareReplay>
  try {
    const now = Date.now()
    whole = prepareReplay({
      dir,
      symbols: replay.symbols,
      from: replay.from === undefined ? undefined : parseTimeArg(replay.from, now, '--from'),
      to: replay.to === undefined ? undefined : parseTimeArg(replay.to, now, '--to'),
      model: { ...model, participationPpm: BigInt(model.participationPpm) },
    })
  } catch (e) {
    if (e instanceof DatasetError || e instanceof InputValidationError) {
      ctx.stderr(`perpbot sweep: ${e.message}`)
      return 2
    }
    throw e
  }
  const from = whole.startMs
  const to = whole.endMs
  // The cut on a whole minute, so both windows start cleanly.
  const cut = from + Math.round(((to - from) * split) / 60_000) * 60_000
  const tasks: SweepTask[] = points.map((point, index) => ({
    index,
    point,
    strategy: values.strategy,
    dir,
    symbols: replay.symbols,
    from,
    cut,
    to,
    model,
    seed,
    configDir: ctx.configDir,
    perpbotVersion: version,
    engine: replay.engine,
  }))
  const tty = process.stderr.isTTY === true
  const write = tty
    ? (t: string) => void process.stderr.write(t)
    : (t: string) => ctx.stderr(t.replace(/\n$/, ''))
  const progress = createCountProgress({ write, isTty: tty, now: () => performance.now(), unit: 'points' })
  progress.update(0, tasks.length)
  const started = performance.now()
  const results = await runSweep(tasks, workers, (d, t) => progress.update(d, t))
  progress.done(results.length, tasks.length)
  const rows = rank(results, objective)
  const out = resolve(values.out)
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, 'sweep.csv'), sweepCsv(rows, axes))
  writeFileSync(
    join(out, 'sweep.html'),
    sweepHtml(rows, axes, {
      strategy: values.strategy,
      objective,
      data: whole.label,
      inSample: `${iso(from)} to ${iso(cut)}`,
      outOfSample: `${iso(cut)} to ${iso(to)}`,
      points: rows.length,
    }),
  )
  const best = rows[0]
  ctx.stdout(
    `swept ${rows.length} point(s) with the ${replay.engine} engine on ${workers === 0 ? 'this thread' : `${workers} worker(s)`} in ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (best === undefined
        ? ''
        : `; best in-sample ${axes.map((a) => `${a.key}=${best.point[a.key]}`).join(' ')}: ${objective} ${best.isScore.toFixed(2)} in-sample, ${best.oosScore.toFixed(2)} out-of-sample`),
  )
  const loads = results.map((r) => r.timing.loadMs).filter((ms) => ms > 0)
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length) / 1000
  ctx.stdout(
    `a point took ${mean(results.map((r) => r.timing.runMs)).toFixed(2)} s on average (${mean(results.map((r) => r.timing.cpuMs)).toFixed(2)} s of its thread's CPU)` +
      (loads.length > 0 ? `; each worker loaded the task once in ${mean(loads).toFixed(1)} s` : ''),
  )
  ctx.stdout(`wrote ${join(out, 'sweep.csv')} and ${join(out, 'sweep.html')}`)
  return 0
}
