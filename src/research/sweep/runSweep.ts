/**
 * Runs every sweep point, on a piscina pool of worker threads (one backtest per worker at a time)
 * or one after another in this thread (`workers: 0`: the baseline), and ranks them by the objective
 * on the in-sample window; the out-of-sample figures sit beside, so the best point is judged on
 * data it was not picked on.
 */
import { Piscina } from 'piscina'
import { type Objective, score } from './objective.ts'
import { runPoint, type SweepResult, type SweepTask } from './task.ts'

export interface RankedRow extends SweepResult {
  rank: number
  isScore: number
  oosScore: number
}

/** A pool of `workers` threads, each loading the task module once (a few seconds of TypeScript). */
export function createSweepPool(workers: number): Piscina<SweepTask, SweepResult> {
  return new Piscina<SweepTask, SweepResult>({
    filename: new URL('./sweepWorker.mjs', import.meta.url).href,
    name: 'run',
    minThreads: workers,
    maxThreads: workers,
    concurrentTasksPerWorker: 1,
    idleTimeout: 60_000,
    // A point allocates fast and briefly (contexts, plans, fills): a larger young generation means
    // fewer scavenges, whose helper threads would otherwise take the other worker's core.
    resourceLimits: { maxYoungGenerationSizeMb: 128 },
  })
}

/** Runs the tasks on `pool` (kept open: benchmarks time a warm pool). */
export function runOnPool(
  pool: Piscina<SweepTask, SweepResult>,
  tasks: readonly SweepTask[],
  onDone?: (done: number, total: number) => void,
): Promise<SweepResult[]> {
  let done = 0
  return Promise.all(
    tasks.map((t) =>
      pool.run(t).then((r) => {
        onDone?.(++done, tasks.length)
        return r
      }),
    ),
  )
}

export async function runSweep(
  tasks: readonly SweepTask[],
  workers: number,
  onDone?: (done: number, total: number) => void,
): Promise<SweepResult[]> {
  let done = 0
  const tick = <T>(r: T): T => {
    onDone?.(++done, tasks.length)
    return r
  }
  if (workers <= 0) {
    const out: SweepResult[] = []
    for (const t of tasks) out.push(tick(await runPoint(t)))
    return out
  }
  const pool = createSweepPool(workers)
  try {
    return await runOnPool(pool, tasks, onDone)
  } finally {
    await pool.destroy()
  }
}

/** Ranked by the in-sample score (best first; ties by grid order, so the table is stable). */
export function rank(results: readonly SweepResult[], objective: Objective): RankedRow[] {
  return results
    .map((r) => ({
      ...r,
      rank: 0,
      isScore: score(r.inSample, objective),
      oosScore: score(r.outOfSample, objective),
    }))
    .sort((a, b) => b.isScore - a.isScore || a.index - b.index)
    .map((r, i) => ({ ...r, rank: i + 1 }))
}
