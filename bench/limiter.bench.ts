/**
 * Limiter benchmark (standalone; not part of vitest): `node --import tsx bench/limiter.bench.ts`.
 *
 * Part 1 (real timers): schedule→start latency per job. Plain Bottleneck pays a few `setTimeout(0)`
 * yields per job inside a submit lock, so one job per order adds up; the bot sends one job per HTTP
 * request (a batch of up to 99 orders) through `createWeightLimiter` (`minTime: 0`).
 * Part 2 (virtual time, 10 simulated minutes): the most request weight admitted in any sliding 60 s
 * window under bursts at the refresh edges, and refusals by the mock venue's token bucket.
 */
import { performance } from 'node:perf_hooks'
import Bottleneck from 'bottleneck'
import { splitBatchSizes } from '../src/bot/orders/batching/batchSizes.ts'
import { TokenBucket } from '../src/mock/tokenBucket.ts'
import {
  createWeightLimiter,
  type JobPriority,
  type WeightLimiter,
} from '../src/perps/throttle/weightLimiter.ts'
import { PERPS_WEIGHTS, type PerpsEndpoint } from '../src/perps/weights.ts'

// ---------------------------------------------------------------------------------------------------
// Helpers

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}

function summary(label: string, samples: number[], extra = ''): void {
  const s = [...samples].sort((a, b) => a - b)
  const f = (x: number): string => x.toFixed(2).padStart(8)
  console.log(
    `${label.padEnd(58)} n=${String(s.length).padStart(5)}  p50 ${f(percentile(s, 50))} ms  p99 ${f(percentile(s, 99))} ms  max ${f(s[s.length - 1] ?? Number.NaN)} ms${extra}`,
  )
}

// ---------------------------------------------------------------------------------------------------
// Part 1: per-job scheduling overhead (real timers)

const ORDERS = 200
const ROUNDS = 20

/** Plain Bottleneck, one job per order, each awaited before the next ("one after another"). */
async function plainSequential(): Promise<number[]> {
  const b = new Bottleneck({ minTime: 0, reservoir: 1e9 })
  const lat: number[] = []
  for (let i = 0; i < ORDERS; i++) {
    const t0 = performance.now()
    await b.schedule(async () => {
      lat.push(performance.now() - t0)
    })
  }
  await b.stop()
  return lat
}

/** Plain Bottleneck, one job per order, all submitted at once: per-order start latency. */
async function plainBurst(): Promise<{ lat: number[]; last: number[] }> {
  const lat: number[] = []
  const last: number[] = []
  for (let r = 0; r < ROUNDS / 4; r++) {
    const b = new Bottleneck({ minTime: 0, reservoir: 1e9 })
    const t0 = performance.now()
    await Promise.all(
      Array.from({ length: ORDERS }, () =>
        b.schedule(async () => {
          lat.push(performance.now() - t0)
        }),
      ),
    )
    last.push(Math.max(...lat.slice(-ORDERS)))
    await b.stop()
  }
  return { lat, last }
}

/** Our limiter, the same 200 orders as weight-optimal batches (99 + 99 + 2), one job per request. */
async function oursBatched(): Promise<{ perJob: number[]; perOrder: number[]; last: number[] }> {
  const perJob: number[] = []
  const perOrder: number[] = []
  const last: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const l = createWeightLimiter({ requestBudget: 1e6, actionBudget: 1e7 })
    const t0 = performance.now()
    const sizes = splitBatchSizes(ORDERS, 99)
    await Promise.all(
      sizes.map((n) =>
        l.schedule({ endpoint: 'modifyOrders', n, priority: 'quote' }, async () => {
          const ms = performance.now() - t0
          perJob.push(ms)
          for (let i = 0; i < n; i++) perOrder.push(ms)
        }),
      ),
    )
    last.push(Math.max(...perJob.slice(-sizes.length)))
    await l.stop()
  }
  return { perJob, perOrder, last }
}

/** Our limiter, sequential single jobs: the per-job floor (one Bottleneck hop for cancels, two for modifies). */
async function oursSequential(endpoint: PerpsEndpoint, priority: JobPriority): Promise<number[]> {
  const l = createWeightLimiter({ requestBudget: 1e6, actionBudget: 1e7 })
  const lat: number[] = []
  for (let i = 0; i < ORDERS; i++) {
    const t0 = performance.now()
    await l.schedule({ endpoint, n: 19, priority }, async () => {
      lat.push(performance.now() - t0)
    })
  }
  await l.stop()
  return lat
}

/**
 * A risk job submitted right after `k` quote jobs: how long until it starts. `earlierTick` lets the
 * quote jobs reach Bottleneck's submit lock first (the realistic case: they came from an earlier flush).
 */
async function riskBehindQuotes(
  k: number,
  earlierTick: boolean,
  ahead: { endpoint: PerpsEndpoint; n?: number; priority: JobPriority } = {
    endpoint: 'modifyOrders',
    n: 99,
    priority: 'quote',
  },
  risk: { endpoint: PerpsEndpoint; n?: number; priority: JobPriority } = {
    endpoint: 'cancelOrders',
    n: 19,
    priority: 'risk',
  },
): Promise<{ plain: number[]; ours: number[] }> {
  const plain: number[] = []
  const ours: number[] = []
  const yieldTick = (): Promise<void> => new Promise((r) => setImmediate(r))
  for (let r = 0; r < ROUNDS; r++) {
    const b = new Bottleneck({ minTime: 0, reservoir: 1e9 })
    const bJobs = Array.from({ length: k }, () => b.schedule({ priority: 6 }, async () => {}))
    if (earlierTick) await yieldTick()
    const t0 = performance.now()
    await b.schedule({ priority: 0 }, async () => {
      plain.push(performance.now() - t0)
    })
    await Promise.all(bJobs)
    await b.stop()

    const l: WeightLimiter = createWeightLimiter({ requestBudget: 1e6, actionBudget: 1e7 })
    const lJobs = Array.from({ length: k }, () => l.schedule(ahead, async () => {}))
    if (earlierTick) await yieldTick()
    const t1 = performance.now()
    await l.schedule(risk, async () => {
      ours.push(performance.now() - t1)
    })
    await Promise.all(lJobs)
    await l.stop()
  }
  return { plain, ours }
}

// ---------------------------------------------------------------------------------------------------
// Part 2: sliding-window admission (virtual time)

interface Timer {
  at: number
  fn: () => void
  every: number | undefined
}

/** Just enough fake time for Bottleneck and the limiter: timers, intervals and Date.now. */
class VirtualTime {
  now = 1_000_000
  #seq = 0
  #timers = new Map<number, Timer>()
  #saved: Record<string, unknown> = {}

  install(): void {
    const g = globalThis as unknown as Record<string, unknown>
    for (const k of ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval']) this.#saved[k] = g[k]
    this.#saved.dateNow = Date.now
    const add = (
      fn: () => void,
      ms: number | undefined,
      every: boolean,
    ): { id: number; unref(): void; ref(): void } => {
      const id = ++this.#seq
      // Node runs a 0 ms timer after at least 1 ms.
      const delay = Math.max(1, ms ?? 0)
      this.#timers.set(id, { at: this.now + delay, fn, every: every ? delay : undefined })
      return { id, unref() {}, ref() {} }
    }
    const clear = (h: unknown): void => {
      if (h && typeof h === 'object' && 'id' in h) this.#timers.delete((h as { id: number }).id)
    }
    g.setTimeout = (fn: () => void, ms?: number) => add(fn, ms, false)
    g.setInterval = (fn: () => void, ms?: number) => add(fn, ms, true)
    g.clearTimeout = clear
    g.clearInterval = clear
    Date.now = () => this.now
  }

  uninstall(): void {
    const g = globalThis as unknown as Record<string, unknown>
    for (const k of ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval']) g[k] = this.#saved[k]
    Date.now = this.#saved.dateNow as () => number
  }

  /** Runs timers in order up to `until`, letting promise chains settle after each. */
  async runUntil(until: number): Promise<void> {
    for (;;) {
      await new Promise<void>((r) => setImmediate(r))
      let next: [number, Timer] | undefined
      for (const e of this.#timers)
        if (e[1].at <= until && (next === undefined || e[1].at < next[1].at)) next = e
      if (next === undefined) break
      const [id, t] = next
      this.now = t.at
      if (t.every === undefined) this.#timers.delete(id)
      else t.at += t.every
      t.fn()
    }
    this.now = until
    await new Promise<void>((r) => setImmediate(r))
  }
}

interface Demand {
  at: number
  endpoint: PerpsEndpoint
  n?: number | undefined
  priority: JobPriority
}

const MINUTE = 60_000

function edgeBursts(start: number, minutes: number): Demand[] {
  const demand: Demand[] = []
  for (let m = 1; m <= minutes; m++) {
    const edge = start + m * MINUTE
    for (const at of [edge - 1_000, edge + 300]) {
      for (let i = 0; i < 60; i++) demand.push({ at, endpoint: 'getWithdrawals', priority: 'read' })
      for (let i = 0; i < 40; i++) demand.push({ at, endpoint: 'cancelOrders', n: 99, priority: 'risk' })
    }
    for (let s = 0; s < 60; s += 5)
      demand.push({ at: edge - MINUTE + s * 1000, endpoint: 'getIndex', priority: 'quote' })
  }
  return demand.sort((a, b) => a.at - b.at)
}

const requestWeight = (d: Demand): number => PERPS_WEIGHTS[d.endpoint].request({ n: d.n })

function maxWindow(log: readonly { t: number; w: number }[]): number {
  let best = 0
  let sum = 0
  let tail = 0
  for (const e of log) {
    sum += e.w
    while ((log[tail] as { t: number }).t <= e.t - MINUTE) {
      sum -= (log[tail] as { w: number }).w
      tail += 1
    }
    best = Math.max(best, sum)
  }
  return best
}

type Schedule = (d: Demand, fn: () => Promise<void>) => Promise<void>

async function windowRun(
  label: string,
  make: () => { schedule: Schedule; stop: () => Promise<void> },
): Promise<void> {
  const vt = new VirtualTime()
  vt.install()
  try {
    const { schedule, stop } = make()
    const bucket = new TokenBucket({ now: () => vt.now }, 1000, MINUTE)
    const log: { t: number; w: number }[] = []
    let refused = 0
    const minutes = 10
    const demand = edgeBursts(vt.now, minutes)
    const pending: Promise<unknown>[] = []
    for (const d of demand) {
      if (d.at > vt.now) await vt.runUntil(d.at)
      const w = requestWeight(d)
      pending.push(
        schedule(d, async () => {
          log.push({ t: vt.now, w })
          if (!bucket.take(w).ok) refused += 1
        }).catch(() => undefined),
      )
    }
    await vt.runUntil(vt.now + 2 * MINUTE)
    await stop()
    const total = log.reduce((s, e) => s + e.w, 0)
    console.log(
      `${label.padEnd(58)} max weight in any 60 s window ${String(maxWindow(log)).padStart(5)}  (${(maxWindow(log) / 1000).toFixed(2)}× of 1,000)  admitted/min ${(total / (minutes + 2)).toFixed(0).padStart(4)}  token-bucket refusals ${refused}`,
    )
  } finally {
    vt.uninstall()
  }
}

// ---------------------------------------------------------------------------------------------------

await oursSequential('cancelOrders', 'risk') // warm-up (JIT)
console.log(`# Per-job scheduling overhead (schedule → start), ${ORDERS} orders, real timers\n`)
summary('plain Bottleneck, one job per order, one after another', await plainSequential())
const pb = await plainBurst()
summary('plain Bottleneck, one job per order, all at once (per order)', pb.lat)
summary('  … time until the last of the 200 orders starts', pb.last)
const ob = await oursBatched()
summary('ours, 3 batch jobs (99+99+2) at once (per job)', ob.perJob)
summary('  … per order', ob.perOrder)
summary('  … time until the last of the 200 orders starts', ob.last)
summary(
  'ours, risk cancel batches one after another (reserve: no hop)',
  await oursSequential('cancelOrders', 'risk'),
)
summary('ours, reads one after another (1 Bottleneck hop)', await oursSequential('getPortfolio', 'read'))
summary(
  'ours, quote modify batches one after another (2 hops)',
  await oursSequential('modifyOrders', 'quote'),
)
for (const [k, earlier] of [
  [5, false],
  [50, false],
  [5, true],
  [50, true],
] as const) {
  const r = await riskBehindQuotes(k, earlier)
  const when = earlier ? 'a tick after' : 'in the same tick as'
  summary(`risk job ${when} ${k} quote jobs: plain Bottleneck (priority 0)`, r.plain)
  summary(`risk job ${when} ${k} quote jobs: ours`, r.ours)
}
// Bottleneck serialises submissions per instance (~2.5 ms each); risk jobs within the reserve never
// enter it, so neither quote modifies (action-weight instance) nor reads (request-weight one) delay them.
summary(
  'reduce-only batch (risk, action weight) a tick after 50 quote jobs: ours',
  (await riskBehindQuotes(50, true, undefined, { endpoint: 'createOrders', n: 5, priority: 'risk' })).ours,
)
summary(
  'risk job a tick after 50 read jobs (same Bottleneck): ours',
  (await riskBehindQuotes(50, true, { endpoint: 'getPortfolio', priority: 'read' })).ours,
)

console.log('\n# Sliding-window admission, budget 1,000/min at 0.9 headroom (900), 10 min of edge bursts\n')
await windowRun('plain reservoir 900 + reservoirRefreshInterval 60 s', () => {
  const b = new Bottleneck({
    minTime: 0,
    reservoir: 900,
    reservoirRefreshAmount: 900,
    reservoirRefreshInterval: MINUTE,
  })
  return {
    schedule: (d, fn) => b.schedule({ weight: requestWeight(d) }, fn),
    stop: () => b.stop({ dropWaitingJobs: true }),
  }
})
await windowRun('incremental refill 15/s up to 900 (reservoirIncrease*)', () => {
  const b = new Bottleneck({
    minTime: 0,
    reservoir: 900,
    reservoirIncreaseInterval: 1000,
    reservoirIncreaseAmount: 15,
    reservoirIncreaseMaximum: 900,
  })
  return {
    schedule: (d, fn) => b.schedule({ weight: requestWeight(d) }, fn),
    stop: () => b.stop({ dropWaitingJobs: true }),
  }
})
await windowRun('ours (createWeightLimiter defaults)', () => {
  const l = createWeightLimiter()
  return {
    schedule: (d, fn) => l.schedule({ endpoint: d.endpoint, n: d.n, priority: d.priority }, fn),
    stop: () => l.stop(),
  }
})
