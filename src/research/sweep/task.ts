/**
 * One sweep point: the strategy with the point's parameters on the replayed in-sample window, then
 * on the out-of-sample window. A pure function of (data, window, parameters, seed): the same task
 * gives the same metrics on any thread. Runs on a pool worker (sweepWorker.mjs) or inline.
 */

import { runSimulation } from '../../sim/simulate/runSimulation.ts'
import type { FillModelConfig, FillTier } from '../replay/fillModel.ts'
import { prepareReplay } from '../replay/prepareReplay.ts'
import type { GridPoint } from './grid.ts'
import { metricsOf, type PointMetrics } from './objective.ts'

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
  model: Omit<FillModelConfig, 'tier' | 'participationPpm'> & {
    tier: FillTier | undefined
    participationPpm: string
  }
  seed: number
  configDir: string
  perpbotVersion: string
}

export interface SweepResult {
  index: number
  point: GridPoint
  inSample: PointMetrics
  outOfSample: PointMetrics
}

async function window(t: SweepTask, from: number, to: number): Promise<PointMetrics> {
  const replay = prepareReplay({
    dir: t.dir,
    symbols: t.symbols,
    from,
    to,
    model: { ...t.model, participationPpm: BigInt(t.model.participationPpm) },
  })
  const r = await runSimulation({
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
  return metricsOf(r.record)
}

export async function runPoint(t: SweepTask): Promise<SweepResult> {
  return {
    index: t.index,
    point: t.point,
    inSample: await window(t, t.from, t.cut),
    outOfSample: await window(t, t.cut, t.to),
  }
}
