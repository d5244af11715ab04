/**
 * One sweep point: the strategy with the point's parameters on the replayed in-sample window, then
 * on the out-of-sample window. A pure function of (data, window, parameters, seed): the same task
 * gives the same metrics on any thread. Runs on a pool worker (sweepWorker.mjs) or inline.
 */

import { performance } from 'node:perf_hooks'
import { runSimulation } from '../../sim/simulate/index.ts'
import type { Engine } from '../backtest/engine.ts'
import { runBacktest } from '../backtest/runBacktest.ts'
import type { FillModelConfig, FillTier } from '../replay/fillModel.ts'
import { prepareReplay } from '../replay/prepareReplay.ts'
import type { GridPoint } from './grid.ts'
import { metricsOf, type PointMetrics } from './objective.ts'
import { threadCpuMs } from './threadCpu.ts'

export interface SweepTask {
  index: number
  point: GridPoint
  strategy: string
  dir: string
  symbols: readonly string[] | undefined
  /** In-sample [from, cut), out-of-sample [cut, to). */
  from: number
  cut: number
  to: number
  /**
   * Anchored walk-forward (`--folds K`): fold k in-sample [from, cut_k), out-of-sample [cut_k, to_k);
   * the point's figures are the folds' means. Absent: the one split above.
   */
  folds?: readonly { cut: number; to: number }[] | undefined
  model: Omit<FillModelConfig, 'tier' | 'participationPpm'> & {
    tier: FillTier | undefined
    participationPpm: string
  }
  seed: number
  configDir: string
  perpbotVersion: string
  /** `fast` (the sweep's default) or `bot` (the whole bot against the mock). */
  engine: Engine
}

export interface SweepResult {
  index: number
  point: GridPoint
  inSample: PointMetrics
  outOfSample: PointMetrics
  /** Where the time went: this point's run, and the worker's one-time load of the task module. */
  timing: PointTiming
}

export interface PointTiming {
  /** Wall ms of both windows' backtests. */
  runMs: number
  /** CPU ms of the thread that ran the point (threadCpu.ts): the same on 1 or 2 workers unless they contend. */
  cpuMs: number
  /** Wall ms the worker spent loading the task module before its first point (0 after the first). */
  loadMs: number
  /** The worker thread (0: the main thread). */
  thread: number
}

async function window(t: SweepTask, from: number, to: number): Promise<PointMetrics> {
  const replay = prepareReplay({
    dir: t.dir,
    symbols: t.symbols,
    from,
    to,
    model: { ...t.model, participationPpm: BigInt(t.model.participationPpm) },
  })
  const run = t.engine === 'fast' ? runBacktest : runSimulation
  const r = await run({
    strategy: t.strategy,
    instruments: replay.instruments.length,
    hours: (to - from) / 3_600_000,
    scenario: 'calm',
    seed: t.seed,
    configDir: t.configDir,
    perpbotVersion: t.perpbotVersion,
    strategyParams: t.point,
    replay,
    // One thread per point: the pool spreads points over the cores (the report is the same either way).
    signatures: 'inline',
  })
  // A corrupt file met mid-run held the market still from there: the point's figures would be wrong.
  if (replay.driver.failure !== undefined) throw replay.driver.failure
  return metricsOf(r.record)
}

/** The mean of each figure over the folds (the sample counts add up). */
export function meanMetrics(ms: readonly PointMetrics[]): PointMetrics {
  const n = Math.max(1, ms.length)
  const avg = (f: (m: PointMetrics) => number): number => ms.reduce((s, m) => s + f(m), 0) / n
  return {
    netPnl: avg((m) => m.netPnl),
    sharpe: avg((m) => m.sharpe),
    drawdown: avg((m) => m.drawdown),
    fills: avg((m) => m.fills),
    volume: avg((m) => m.volume),
    sortino: avg((m) => m.sortino),
    calmar: avg((m) => m.calmar),
    profitFactor: avg((m) => m.profitFactor),
    markout60Bps: avg((m) => m.markout60Bps),
    moments: {
      sr: avg((m) => m.moments.sr),
      samples: ms.reduce((s, m) => s + m.moments.samples, 0),
      skew: avg((m) => m.moments.skew),
      kurtosis: avg((m) => m.moments.kurtosis),
    },
  }
}

export async function runPoint(t: SweepTask): Promise<SweepResult> {
  const started = performance.now()
  const cpu = threadCpuMs()
  const folds = t.folds ?? [{ cut: t.cut, to: t.to }]
  const is: PointMetrics[] = []
  const oos: PointMetrics[] = []
  for (const f of folds) {
    is.push(await window(t, t.from, f.cut))
    oos.push(await window(t, f.cut, f.to))
  }
  const inSample = meanMetrics(is)
  const outOfSample = meanMetrics(oos)
  return {
    index: t.index,
    point: t.point,
    inSample,
    outOfSample,
    timing: {
      runMs: performance.now() - started,
      cpuMs: threadCpuMs() - cpu,
      loadMs: 0,
      thread: 0,
    },
  }
}
