/**
 * `perpbot sweep`: one replayed backtest per grid point on a pool of worker threads, ranked on an
 * in-sample window and checked on the out-of-sample window after it; a ranked CSV and an HTML page
 * with a heatmap over the first two grid parameters (src/research/sweep/).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError, InputValidationError } from '../../errors.ts'
import { isOneOf } from '../../guards.ts'
import { DatasetError } from '../../research/dataset/format.ts'
import { createCountProgress } from '../../research/progress.ts'
import { DEFAULT_FILL_MODEL } from '../../research/replay/fillModel.ts'
import { iso, prepareReplay } from '../../research/replay/prepareReplay.ts'
import { type GridPoint, parseAxis } from '../../research/sweep/grid.ts'
import { isObjective, OBJECTIVE_UNITS, OBJECTIVES } from '../../research/sweep/objective.ts'
import { deflatedSharpe } from '../../research/sweep/overfit.ts'
import { createSweepPool, rank, runOnPool } from '../../research/sweep/runSweep.ts'
import { parseRange } from '../../research/sweep/search.ts'
import {
  axesOf,
  plannedPoints,
  runSearch,
  SEARCHES,
  type SearchPlan,
} from '../../research/sweep/searchRun.ts'
import {
  inShard,
  mergeParts,
  partFileName,
  partJson,
  type SweepIdentity,
} from '../../research/sweep/shards.ts'
import { sweepCsv, sweepHtml } from '../../research/sweep/sweepReport.ts'
import { runPoint, type SweepResult, type SweepTask } from '../../research/sweep/task.ts'
import { parseTimeArg } from '../../research/timeArg.ts'
import { loadStrategies } from '../../strategy/registry.ts'
import type { StrategyRegistry } from '../../strategy/registryResolve.ts'
import { type CliContext, UsageError } from '../context.ts'
import { parseReplayFlags, REPLAY_OPTIONS } from './simulateReplay.ts'

export const SWEEP_USAGE = `usage: perpbot sweep --data DIR --grid KEY=V1,V2,... [--grid ...] [--strategy NAME]
                     [--search grid|random|tpe --range KEY=LO:HI[:STEP] ... --trials N] [--folds K]
                     [--objective ${OBJECTIVES.join('|')}] [--split F] [--workers N] [--out DIR]
  One replayed backtest per grid point (every combination), on worker threads; ranked on the
  in-sample window, with the out-of-sample window after it beside (the pick judged on unseen data).
  --grid KEY=V1,...  a strategy parameter and its values (e.g. halfSpreadBps=5,10,20); repeatable
  --strategy NAME    default index-peg
  --range KEY=LO:HI[:STEP]  a numeric parameter's range (values snap to STEP); repeatable
  --search S         grid (default: every --grid value and every STEP of each --range), random
                     (--trials points drawn over the ranges) or tpe (--trials points, a Tree-structured
                     Parzen Estimator learning from the in-sample scores; rounds of --workers points)
  --trials N         points of a random or tpe search (default 30)
  --objective O      net-pnl (default), sharpe, drawdown (smallest is best), sortino, calmar,
                     profit-factor, markout (60 s after fills, bps)
  --split F          in-sample share of the window, 0.1-0.9 (default 0.7)
  --folds K          anchored walk-forward instead of one split: the window in K+1 equal parts, fold k
                     ranked on parts 1..k and checked on part k+1; figures are the folds' means
  The page shows the deflated Sharpe ratio of the best point (its chance of being more than luck
  among the points tried).
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
      range: { type: 'string', multiple: true, default: [] },
      search: { type: 'string', default: 'grid' },
      trials: { type: 'string', default: '30' },
      folds: { type: 'string', default: '1' },
      shards: { type: 'string' },
      'shard-index': { type: 'string' },
      merge: { type: 'string' },
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
  if (values.merge !== undefined) return mergeCommand(ctx, values.merge, values.out)
  const replay = parseReplayFlags(values)
  if (replay === undefined) throw new UsageError('--data DIR is required')
  if (!isOneOf(SEARCHES, values.search))
    throw new UsageError(`--search must be one of ${SEARCHES.join(', ')}, got '${values.search}'`)
  const mode = values.search
  if (values.grid.length === 0 && values.range.length === 0)
    throw new UsageError('at least one --grid KEY=V1,V2,... or --range KEY=LO:HI[:STEP] is required')
  if (mode !== 'grid' && (values.grid.length > 0 || values.range.length === 0))
    throw new UsageError(`--search ${mode} draws from --range axes only (no --grid)`)
  const trials = Number(values.trials)
  if (!Number.isInteger(trials) || trials < 1 || trials > 10_000)
    throw new UsageError('--trials must be an integer from 1 to 10000')
  const folds = Number(values.folds)
  if (!Number.isInteger(folds) || folds < 1 || folds > 20)
    throw new UsageError('--folds must be an integer from 1 to 20')
  const shard = parseShard(values.shards, values['shard-index'] ?? ctx.env.JOB_COMPLETION_INDEX, mode)
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
  let plan: SearchPlan
  let planned: ReturnType<typeof plannedPoints>
  try {
    const grid = values.grid.map(parseAxis)
    const ranges = values.range.map(parseRange)
    const keys = [...grid, ...ranges].map((a) => a.key)
    const twice = keys.find((k, i) => keys.indexOf(k) !== i)
    if (twice !== undefined) throw new InputValidationError(`${twice} is given twice`)
    plan = { mode, grid, ranges, trials, seed, batch: Math.max(1, workers), objective }
    planned = plannedPoints(plan)
  } catch (e) {
    throw new UsageError(e instanceof InputValidationError ? e.shortMessage : String(e))
  }
  checkPoints(registry, values.strategy, planned)
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
  const onMinute = (t: number): number => from + Math.round((t - from) / 60_000) * 60_000
  const cut = onMinute(from + (to - from) * split)
  const foldWindows =
    folds > 1
      ? Array.from({ length: folds }, (_, k) => ({
          cut: onMinute(from + ((to - from) * (k + 1)) / (folds + 1)),
          to: k === folds - 1 ? to : onMinute(from + ((to - from) * (k + 2)) / (folds + 1)),
        }))
      : undefined
  const taskOf = (point: GridPoint, index: number): SweepTask => ({
    index,
    point,
    strategy: values.strategy,
    dir,
    symbols: replay.symbols,
    from,
    cut,
    to,
    folds: foldWindows,
    model,
    seed,
    configDir: ctx.configDir,
    perpbotVersion: version,
    engine: replay.engine,
  })
  const all = mode === 'grid' ? planned.length : trials
  const total =
    shard === undefined
      ? all
      : Array.from({ length: all }, (_, i) => i).filter((i) => inShard(i, shard.index, shard.count)).length
  const tty = process.stderr.isTTY === true
  const write = tty
    ? (t: string) => void process.stderr.write(t)
    : (t: string) => ctx.stderr(t.replace(/\n$/, ''))
  const progress = createCountProgress({ write, isTty: tty, now: () => performance.now(), unit: 'points' })
  progress.update(0, total)
  const started = performance.now()
  let done = 0
  const pool = workers > 0 ? createSweepPool(workers) : undefined
  let results: SweepResult[]
  try {
    results = await runSearch(plan, async (points, first) => {
      const tasks = points
        .map((p, i) => taskOf(p, first + i))
        .filter((t) => shard === undefined || inShard(t.index, shard.index, shard.count))
      const tick = (): void => progress.update(++done, total)
      if (pool !== undefined) return runOnPool(pool, tasks, tick)
      const out: SweepResult[] = []
      for (const t of tasks) {
        out.push(await runPoint(t))
        tick()
      }
      return out
    })
  } finally {
    await pool?.destroy()
  }
  progress.done(results.length, total)
  const identity: SweepIdentity = {
    strategy: values.strategy,
    objective,
    data: whole.label,
    inSample:
      foldWindows === undefined
        ? `${iso(from)} to ${iso(cut)}`
        : `${folds} anchored walk-forward folds from ${iso(from)} (fold k ranked on its first k parts)`,
    outOfSample:
      foldWindows === undefined
        ? `${iso(cut)} to ${iso(to)}`
        : foldWindows.map((f) => `${iso(f.cut)} to ${iso(f.to)}`).join('; '),
    search: mode === 'grid' ? 'grid' : `${mode}, ${trials} trial(s), seed ${seed}`,
    total: all,
    shards: shard?.count ?? 1,
    plan: { grid: plan.grid, ranges: plan.ranges },
  }
  const out = resolve(values.out)
  mkdirSync(out, { recursive: true })
  if (shard !== undefined) {
    const file = join(out, partFileName(shard.index, shard.count))
    writeFileSync(file, partJson(shard.index, identity, results))
    ctx.stdout(
      `swept shard ${shard.index} of ${shard.count} (${results.length} of ${all} point(s)) in ${((performance.now() - started) / 1000).toFixed(1)} s: ${file}; join the parts with perpbot sweep --merge ${out}`,
    )
    return 0
  }
  writeOutputs(
    ctx,
    results,
    identity,
    out,
    `with the ${replay.engine} engine on ${workers === 0 ? 'this thread' : `${workers} worker(s)`} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
  const loads = results.map((r) => r.timing.loadMs).filter((ms) => ms > 0)
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length) / 1000
  ctx.stdout(
    `a point took ${mean(results.map((r) => r.timing.runMs)).toFixed(2)} s on average (${mean(results.map((r) => r.timing.cpuMs)).toFixed(2)} s of its thread's CPU)` +
      (loads.length > 0 ? `; each worker loaded the task once in ${mean(loads).toFixed(1)} s` : ''),
  )
  return 0
}

/** `--shards N` with the pod's index (`--shard-index`, else the Indexed Job's JOB_COMPLETION_INDEX). */
function parseShard(
  shards: string | undefined,
  index: string | undefined,
  mode: string,
): { index: number; count: number } | undefined {
  if (shards === undefined) return undefined
  const count = Number(shards)
  if (!Number.isInteger(count) || count < 1 || count > 1_000)
    throw new UsageError('--shards must be an integer from 1 to 1000')
  if (mode === 'tpe')
    throw new UsageError('--shards splits a grid or random search; tpe learns point by point')
  const i = Number(index)
  if (index === undefined || index.trim() === '' || !Number.isInteger(i) || i < 0 || i >= count)
    throw new UsageError(
      `--shards ${count} needs this shard's index from 0 to ${count - 1} (--shard-index, or JOB_COMPLETION_INDEX), got '${index ?? ''}'`,
    )
  return { index: i, count }
}

/** The ranked CSV, the page and the summary line, for a whole sweep (run here or merged). */
function writeOutputs(
  ctx: CliContext,
  results: readonly SweepResult[],
  identity: SweepIdentity,
  out: string,
  how: string,
): void {
  const objective = isObjective(identity.objective) ? identity.objective : 'net-pnl'
  const rows = rank(results, objective)
  const axes = axesOf(results.map((r) => r.point))
  const best = rows[0]
  const dsr =
    best === undefined
      ? undefined
      : deflatedSharpe({ ...best.inSample.moments, trialSharpes: rows.map((r) => r.inSample.moments.sr) })
  writeFileSync(join(out, 'sweep.csv'), sweepCsv(rows, axes))
  writeFileSync(
    join(out, 'sweep.html'),
    sweepHtml(rows, axes, { ...identity, objective, points: rows.length, deflatedSharpe: dsr }),
  )
  ctx.stdout(
    `swept ${rows.length} point(s) ${how}` +
      (best === undefined
        ? ''
        : `; best in-sample ${axes.map((a) => `${a.key}=${best.point[a.key]}`).join(' ')}: ${objective} ${best.isScore.toFixed(2)} in-sample, ${best.oosScore.toFixed(2)} out-of-sample (${OBJECTIVE_UNITS[objective]}); deflated Sharpe ${dsr === undefined ? 'n/a' : `${(dsr * 100).toFixed(1)} %`}`),
  )
  ctx.stdout(`wrote ${join(out, 'sweep.csv')} and ${join(out, 'sweep.html')}`)
}

/** `perpbot sweep --merge DIR`: the parts of a sharded sweep joined into one CSV and page. */
function mergeCommand(ctx: CliContext, dir: string, outFlag: string): number {
  let merged: ReturnType<typeof mergeParts>
  try {
    merged = mergeParts(resolve(dir))
  } catch (e) {
    if (e instanceof InputValidationError || e instanceof SyntaxError) {
      ctx.stderr(`perpbot sweep --merge: ${e.message}`)
      return 1
    }
    throw e
  }
  const out = resolve(outFlag === 'sweep' ? dir : outFlag)
  mkdirSync(out, { recursive: true })
  writeOutputs(ctx, merged.results, merged.identity, out, `merged from ${merged.identity.shards} shard(s)`)
  return 0
}
