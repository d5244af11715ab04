/**
 * The shared IP budget across real OS processes and a real redis-server: four workers hammer one
 * egress's budget on a compressed window (2 s, 200). From the granted admissions (stamped with
 * Redis's own clock): the weight in every window never exceeds the budget, and use stays above 90 %.
 * Then Redis is restarted mid-run (data and scripts gone, down longer than a window): nothing is
 * admitted while it is down, scripts reload, every worker sees the new generation, and admission
 * resumes with no overspend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisServer, redisSkipReason, startRedis } from '../helpers/redis.ts'
import { startWorker, type Worker } from './processes.ts'

const skip = redisSkipReason()
const WINDOW_MS = 1_000
const BUDGET = 150

interface Grant {
  atUs: number
  weight: number
}

function grantsOf(workers: readonly Worker[]): Grant[] {
  return workers
    .flatMap((w) => w.lines.filter((l) => l.startsWith('G ')))
    .map((l) => {
      const [, at, weight] = l.split(' ')
      return { atUs: Number(at), weight: Number(weight) }
    })
    .sort((a, b) => a.atUs - b.atUs)
}

function statesOf(workers: readonly Worker[]): Record<string, number | boolean>[] {
  return workers.map((w) => JSON.parse((w.lines.find((l) => l.startsWith('S ')) ?? 'S {}').slice(2)))
}

/** The most weight inside any window (each window ending at a grant). */
function maxWindowWeight(grants: readonly Grant[]): number {
  let max = 0
  let sum = 0
  let lo = 0
  for (const g of grants) {
    sum += g.weight
    while ((grants[lo]?.atUs ?? g.atUs) <= g.atUs - WINDOW_MS * 1000) {
      sum -= grants[lo]?.weight ?? 0
      lo += 1
    }
    max = Math.max(max, sum)
  }
  return max
}

async function runFleet(url: string, egress: string, durationMs: number, during?: () => Promise<void>) {
  const workers = [1, 2, 3, 4].map((i) =>
    startWorker('budgetWorker.ts', {
      url,
      egress,
      budget: BUDGET,
      windowMs: WINDOW_MS,
      durationMs,
      maxWeight: 5,
      seed: i,
    }),
  )
  await Promise.all(workers.map((w) => w.waitFor(/^ready$/, 15_000)))
  for (const w of workers) w.go()
  await during?.()
  const codes = await Promise.all(workers.map((w) => w.exited(durationMs + 10_000)))
  expect(codes).toEqual([0, 0, 0, 0])
  return workers
}

describe.skipIf(skip !== undefined)(`shared IP budget across processes ${skip ?? ''}`, () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    await redis?.stop()
  })

  it('4 processes: no window above the budget, use above 90 %; Redis restarted mid-run (longer than a window): pause, scripts reload, new generation, no overspend', {
    timeout: 40_000,
  }, async () => {
    let goAt = 0
    let downFrom = 0
    let upAt = 0
    const workers = await runFleet(redis.url, 'egress-a', 5_000, async () => {
      goAt = Date.now()
      await new Promise((r) => setTimeout(r, 2_800))
      downFrom = Date.now()
      await redis.kill()
      // Longer than a window: refused workers all sleep until the same entry leaves the window, so a
      // shorter outage can fall between their asks under load; this one every worker meets.
      await new Promise((r) => setTimeout(r, 1_200))
      await redis.start()
      upAt = Date.now()
    })
    const grants = grantsOf(workers)
    expect(maxWindowWeight(grants)).toBeLessThanOrEqual(BUDGET)
    // Use over the first two whole windows (before the restart).
    const t0 = grants[0]?.atUs ?? 0
    expect(t0 / 1000).toBeLessThan(goAt + 700)
    const used = grants.filter((g) => g.atUs < t0 + 2 * WINDOW_MS * 1000).reduce((s, g) => s + g.weight, 0)
    expect(used / (2 * BUDGET)).toBeGreaterThanOrEqual(0.9)
    for (const w of workers) expect(w.lines.filter((l) => l.startsWith('G ')).length).toBeGreaterThan(5)
    // Nothing granted while Redis was down (grants carry Redis's clock; same host, same clock).
    expect(grants.filter((g) => g.atUs / 1000 > downFrom + 5 && g.atUs / 1000 < upAt - 5)).toEqual([])
    // Admission resumed after the restart.
    expect(grants.some((g) => g.atUs / 1000 > upAt)).toBe(true)
    const states = statesOf(workers)
    // The new server had lost the script: someone reloaded it (EVAL caches it for everyone after).
    expect(states.reduce((n, s) => n + Number(s.scriptReloads), 0)).toBeGreaterThanOrEqual(1)
    // Every worker admitted after the restart saw the new generation.
    workers.forEach((w, i) => {
      const after = w.lines.some((l) => l.startsWith('G ') && Number(l.split(' ')[1]) / 1000 > upAt)
      if (after) expect(states[i]?.generations).toBe(1)
    })
    expect(states.reduce((n, s) => n + Number(s.redisErrors), 0)).toBeGreaterThan(0)
    // Restoring the window's admissions into the new generation is checked deterministically in
    // scripts.redis.test.ts (FLUSHALL); after an outage longer than the window nothing is left to restore.
  })
})
