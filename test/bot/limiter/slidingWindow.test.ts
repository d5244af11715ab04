/**
 * Long simulated runs (fake timers) of bursty demand against the limiter's admissions: every sliding
 * window stays within budget × headroom, and the mock venue's token bucket never refuses. Plain
 * Bottleneck reservoirs run through the same harness to show it catches the overshoot.
 */
import Bottleneck from 'bottleneck'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TokenBucket } from '../../../src/mock/tokenBucket.ts'
import { createWeightLimiter, type JobPriority } from '../../../src/perps/throttle/weightLimiter.ts'
import { PERPS_WEIGHTS, type PerpsEndpoint } from '../../../src/perps/weights.ts'
import { seededRandom } from '../../../src/random.ts'
import { maxWindowWeight } from './helpers.ts'

const START = 1_000_000
const MINUTE = 60_000
/** Simulated minutes take a few seconds of real time; leave room on a loaded CI machine. */
const SIM_TIMEOUT_MS = 60_000

beforeEach(() => {
  vi.useFakeTimers({ now: START })
})
afterEach(() => {
  vi.useRealTimers()
})

interface Demand {
  at: number
  endpoint: PerpsEndpoint
  n?: number | undefined
  priority: JobPriority
}

const weightOf = (d: Demand): { request: number; action: number } => ({
  request: PERPS_WEIGHTS[d.endpoint].request({ n: d.n }),
  action: PERPS_WEIGHTS[d.endpoint].action({ n: d.n }),
})

/**
 * Bursts right before and right after every minute boundary (where a refreshing reservoir resets),
 * each worth more than the whole budget, plus a steady trickle of small reads.
 */
function edgeBursts(minutes: number): Demand[] {
  const demand: Demand[] = []
  for (let m = 1; m <= minutes; m++) {
    const edge = START + m * MINUTE
    for (const at of [edge - 1_000, edge + 300]) {
      for (let i = 0; i < 60; i++) demand.push({ at, endpoint: 'getWithdrawals', priority: 'read' }) // 10 each
      for (let i = 0; i < 40; i++) demand.push({ at, endpoint: 'cancelOrders', n: 99, priority: 'risk' }) // 5 each
    }
    for (let s = 0; s < 60; s += 5)
      demand.push({ at: edge - MINUTE + s * 1000, endpoint: 'getIndex', priority: 'quote' })
  }
  return demand.sort((a, b) => a.at - b.at)
}

/** Random bursts: every 250 ms, sometimes a burst of 1–40 mixed jobs. */
function randomBursts(minutes: number, seed: number): Demand[] {
  const rnd = seededRandom(seed)
  const kinds: Omit<Demand, 'at'>[] = [
    { endpoint: 'modifyOrders', n: 99, priority: 'quote' },
    { endpoint: 'modifyOrders', n: 19, priority: 'quote' },
    { endpoint: 'createOrders', n: 39, priority: 'quote' },
    { endpoint: 'cancelOrders', n: 59, priority: 'risk' },
    { endpoint: 'createOrders', n: 5, priority: 'risk' },
    { endpoint: 'getOpenOrders', priority: 'read' },
    { endpoint: 'getPortfolio', priority: 'read' },
    { endpoint: 'getWithdrawals', priority: 'read' },
  ]
  const demand: Demand[] = []
  for (let t = 0; t < minutes * MINUTE; t += 250) {
    if (rnd.next() < 0.15) {
      const count = rnd.int(1, 40)
      for (let i = 0; i < count; i++) demand.push({ at: START + t, ...rnd.pick(kinds) })
    }
  }
  return demand
}

type Scheduler = (d: Demand, fn: () => Promise<void>) => Promise<void>

/** Feeds `demand` to `schedule` at its times, runs `extraMs` past the end, and logs each start. */
async function simulate(
  demand: readonly Demand[],
  schedule: Scheduler,
  extraMs: number,
): Promise<{ log: { t: number; w: number; a: number }[]; done: number }> {
  const log: { t: number; w: number; a: number }[] = []
  let done = 0
  const pending: Promise<unknown>[] = []
  let i = 0
  while (i < demand.length) {
    const at = (demand[i] as Demand).at
    await vi.advanceTimersByTimeAsync(at - Date.now())
    while (i < demand.length && (demand[i] as Demand).at === at) {
      const d = demand[i] as Demand
      const w = weightOf(d)
      pending.push(
        schedule(d, async () => {
          log.push({ t: Date.now(), w: w.request, a: w.action })
          done += 1
        }).catch(() => undefined),
      )
      i += 1
    }
  }
  await vi.advanceTimersByTimeAsync(extraMs)
  return { log, done }
}

const ours = (): { schedule: Scheduler; stop: () => Promise<void> } => {
  const l = createWeightLimiter()
  return {
    schedule: (d, fn) => l.schedule({ endpoint: d.endpoint, n: d.n, priority: d.priority }, fn),
    stop: () => l.stop(),
  }
}

const plainBottleneck = (
  options: Bottleneck.ConstructorOptions,
): { schedule: Scheduler; stop: () => Promise<void> } => {
  const b = new Bottleneck({ minTime: 0, ...options })
  return {
    schedule: (d, fn) => b.schedule({ weight: weightOf(d).request }, fn),
    stop: () => b.stop({ dropWaitingJobs: true }),
  }
}

describe('sliding-window bound (request weight, budget 1,000 × headroom 0.9)', () => {
  it(
    'plain reservoir + refresh lets ~1.8× through around the refresh edges (the harness catches it)',
    async () => {
      const plain = plainBottleneck({
        reservoir: 900,
        reservoirRefreshAmount: 900,
        reservoirRefreshInterval: MINUTE,
      })
      const { log } = await simulate(edgeBursts(4), plain.schedule, MINUTE)
      await plain.stop()
      expect(maxWindowWeight(log, MINUTE)).toBeGreaterThan(1_600)
    },
    SIM_TIMEOUT_MS,
  )

  it(
    'incremental refill (reservoirIncrease*) is a token bucket: still ~2× in one window',
    async () => {
      const plain = plainBottleneck({
        reservoir: 900,
        reservoirIncreaseInterval: 1_000,
        reservoirIncreaseAmount: 15,
        reservoirIncreaseMaximum: 900,
      })
      const { log } = await simulate(edgeBursts(4), plain.schedule, MINUTE)
      await plain.stop()
      expect(maxWindowWeight(log, MINUTE)).toBeGreaterThan(1_500)
    },
    SIM_TIMEOUT_MS,
  )

  it(
    'ours admits at most 900 in EVERY sliding 60 s window over a 10-minute run, and uses the budget',
    async () => {
      const l = ours()
      const demand = edgeBursts(10)
      const { log } = await simulate(demand, l.schedule, 2 * MINUTE)
      await l.stop()
      expect(maxWindowWeight(log, MINUTE)).toBeLessThanOrEqual(900)
      // Demand far exceeds the budget, so throughput should be close to 900 per minute.
      const admitted = log.reduce((s, e) => s + e.w, 0)
      expect(admitted).toBeGreaterThanOrEqual(0.9 * 900 * 11)
    },
    SIM_TIMEOUT_MS,
  )
})

describe('against the mock venue (TokenBucket, continuous refill, capacity = budget)', () => {
  it(
    'default settings cause zero refusals over 6 minutes of random bursty demand',
    async () => {
      const l = ours()
      const requestBucket = new TokenBucket({ now: () => Date.now() }, 1000, MINUTE)
      const actionBucket = new TokenBucket({ now: () => Date.now() }, 5000, MINUTE)
      let refused = 0
      let sent = 0
      const { log } = await simulate(
        randomBursts(6, 42),
        (d, fn) =>
          l.schedule(d, async () => {
            const w = weightOf(d)
            if (!requestBucket.take(w.request).ok) refused += 1
            if (w.action > 0 && !actionBucket.take(w.action).ok) refused += 1
            sent += 1
            await fn()
          }),
        2 * MINUTE,
      )
      await l.stop()
      expect(sent).toBeGreaterThan(500)
      expect(refused).toBe(0)
      expect(maxWindowWeight(log, MINUTE)).toBeLessThanOrEqual(900)
      expect(
        maxWindowWeight(
          log.map((e) => ({ t: e.t, w: e.a })),
          MINUTE,
        ),
      ).toBeLessThanOrEqual(4500)
    },
    SIM_TIMEOUT_MS,
  )

  it(
    'a plain refreshing reservoir at the same 900 does get refused (the check can fail)',
    async () => {
      const plain = plainBottleneck({
        reservoir: 900,
        reservoirRefreshAmount: 900,
        reservoirRefreshInterval: MINUTE,
      })
      const bucket = new TokenBucket({ now: () => Date.now() }, 1000, MINUTE)
      let refused = 0
      await simulate(
        edgeBursts(3),
        (d, fn) =>
          plain.schedule(d, async () => {
            if (!bucket.take(weightOf(d).request).ok) refused += 1
            await fn()
          }),
        MINUTE,
      )
      await plain.stop()
      expect(refused).toBeGreaterThan(0)
    },
    SIM_TIMEOUT_MS,
  )
})
