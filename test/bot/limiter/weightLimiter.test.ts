import Bottleneck from 'bottleneck'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ConfigError, InputValidationError } from '../../../src/errors.ts'
import { JobTooHeavyError, StoppedError } from '../../../src/perps/throttle/limiterErrors.ts'
import { createWeightLimiter, type WeightLimiter } from '../../../src/perps/throttle/weightLimiter.ts'
import { flushMicrotasks, tick } from './helpers.ts'

let limiters: WeightLimiter[] = []
function limiter(options: Parameters<typeof createWeightLimiter>[0] = {}): WeightLimiter {
  const l = createWeightLimiter(options)
  limiters.push(l)
  return l
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 })
})
afterEach(async () => {
  await Promise.all(limiters.map((l) => l.stop()))
  limiters = []
  vi.useRealTimers()
})

/** Records when each job's function started. */
function recorder(): {
  started: string[]
  at: Map<string, number>
  job: (name: string) => () => Promise<string>
} {
  const started: string[] = []
  const at = new Map<string, number>()
  return {
    started,
    at,
    job: (name) => async () => {
      started.push(name)
      at.set(name, Date.now())
      return name
    },
  }
}

describe('weights', () => {
  it('charges request and action weight from the shared table', async () => {
    const l = limiter()
    await Promise.all([
      l.schedule({ endpoint: 'modifyOrders', n: 45, priority: 'quote' }, async () => 'm'),
      l.schedule({ endpoint: 'getOpenOrders', priority: 'read' }, async () => 'all'),
      l.schedule({ endpoint: 'getOpenOrders', instrumentId: 7, priority: 'read' }, async () => 'one'),
      l.schedule({ endpoint: 'cancelOrders', n: 20, priority: 'risk' }, async () => 'c'),
      tick(),
    ])
    // 3 (modify 45) + 20 (open orders, all) + 1 (one instrument) + 2 (cancel 20); action: 45, cancels 0.
    expect(l.state().request.used).toBe(26)
    expect(l.state().action.used).toBe(45)
    expect(l.state().started).toEqual({ risk: 1, read: 2, quote: 1 })
  })

  it('applies headroom and the risk reserve to both budgets', () => {
    const s = limiter({ requestBudget: 1000, actionBudget: 5000, headroom: 0.9, riskReserve: 0.1 }).state()
    expect(s.request).toMatchObject({ limit: 900, reserve: 90, available: 900 })
    expect(s.action).toMatchObject({ limit: 4500, reserve: 450, available: 4500 })
  })

  it('returns weight exactly one window after the job settled, not when it started', async () => {
    const l = limiter({ requestBudget: 10, headroom: 1, riskReserve: 0 })
    let finish: () => void = () => {}
    const slow = l.schedule(
      { endpoint: 'getWithdrawals', priority: 'read' },
      () => new Promise<void>((r) => (finish = r)),
    )
    await tick()
    expect(l.state().request.used).toBe(10)
    await tick(30_000)
    finish()
    await slow
    const settledAt = Date.now()
    const r = recorder()
    const next = l.schedule({ endpoint: 'getTime', priority: 'read' }, r.job('next'))
    await tick(59_000)
    expect(r.started).toEqual([])
    await vi.advanceTimersByTimeAsync(settledAt + 60_000 - Date.now() + 5)
    await next
    expect(r.at.get('next')).toBeGreaterThanOrEqual(settledAt + 60_000)
    expect(l.state().request.used).toBe(1)
  })
})

describe('jobs that can never fit (Bottleneck would queue them forever)', () => {
  it('plain Bottleneck leaves a job heavier than its reservoir pending forever', async () => {
    const b = new Bottleneck({
      reservoir: 900,
      reservoirRefreshAmount: 900,
      reservoirRefreshInterval: 60_000,
      minTime: 0,
    })
    let settled = false
    void b
      .schedule({ weight: 1000 }, async () => 'never')
      .then(
        () => (settled = true),
        () => (settled = true),
      )
    await vi.advanceTimersByTimeAsync(10 * 60_000)
    expect(settled).toBe(false)
    await b.stop({ dropWaitingJobs: true })
  })

  it('rejects at once with JobTooHeavyError, per budget and priority', async () => {
    const l = limiter({ requestBudget: 100, actionBudget: 100, headroom: 1, riskReserve: 0.2 })
    const fn = vi.fn(async () => 'sent')
    // Risk may use the whole budget, quotes and reads only budget − reserve (80 here).
    const tooHeavyRisk = l.schedule({ endpoint: 'modifyOrders', n: 101, priority: 'risk' }, fn)
    const tooHeavyQuote = l.schedule({ endpoint: 'modifyOrders', n: 81, priority: 'quote' }, fn)
    await expect(tooHeavyRisk).rejects.toBeInstanceOf(JobTooHeavyError)
    await expect(tooHeavyQuote).rejects.toMatchObject({
      name: 'JobTooHeavyError',
      budget: 'action',
      weight: 81,
      maxWeight: 80,
    })
    expect(fn).not.toHaveBeenCalled()
    expect(l.state().rejectedTooHeavy).toBe(2)
    // The same weights within the caps go through.
    await Promise.all([l.schedule({ endpoint: 'modifyOrders', n: 80, priority: 'quote' }, fn), tick()])
    expect(fn).toHaveBeenCalledTimes(1)
  })

  it('rejects malformed jobs with InputValidationError', async () => {
    const l = limiter()
    const fn = async (): Promise<number> => 1
    await expect(l.schedule({ endpoint: 'modifyOrders', priority: 'quote' }, fn)).rejects.toBeInstanceOf(
      InputValidationError,
    )
    await expect(
      l.schedule({ endpoint: 'cancelOrders', n: 1.5, priority: 'risk' }, fn),
    ).rejects.toBeInstanceOf(InputValidationError)
    await expect(l.schedule({ endpoint: 'nope' as 'getTime', priority: 'read' }, fn)).rejects.toBeInstanceOf(
      InputValidationError,
    )
    await expect(
      l.schedule({ endpoint: 'getTime', priority: 'urgent' as 'risk' }, fn),
    ).rejects.toBeInstanceOf(InputValidationError)
  })

  it('rejects invalid settings with ConfigError', () => {
    expect(() => createWeightLimiter({ headroom: 1.5 })).toThrow(ConfigError)
    expect(() => createWeightLimiter({ riskReserve: 1 })).toThrow(ConfigError)
    expect(() => createWeightLimiter({ requestBudget: 1, headroom: 0.5 })).toThrow(ConfigError)
  })
})

describe('risk work never waits behind quotes', () => {
  it('a risk job submitted after 50 queued quote jobs runs first and is not delayed by their weight', async () => {
    const l = limiter() // defaults: request 900 (reserve 90), action 4500 (reserve 450)
    const r = recorder()
    // Quotes spend their whole share of the action budget (4,050 = 45 batches of 90 orders)…
    const first = Array.from({ length: 45 }, (_, i) =>
      l.schedule({ endpoint: 'modifyOrders', n: 90, priority: 'quote' }, r.job(`fill${i}`)),
    )
    await tick(200)
    expect(r.started).toHaveLength(45)
    // …so 50 more quote refreshes queue for a minute.
    const queued = Array.from({ length: 50 }, (_, i) =>
      l.schedule({ endpoint: 'modifyOrders', n: 19, priority: 'quote' }, r.job(`quote${i}`)),
    )
    await tick(200)
    expect(l.state().queued.quote).toBe(50)
    const submittedAt = Date.now()
    // A reduce-only order batch (action weight) and a cancel batch (request weight only) as risk.
    const reduce = l.schedule({ endpoint: 'createOrders', n: 19, priority: 'risk' }, r.job('reduceOnly'))
    const cancel = l.schedule({ endpoint: 'cancelOrders', n: 99, priority: 'risk' }, r.job('cancel'))
    await tick(20)
    await Promise.all([reduce, cancel])
    expect(r.started.slice(45)).toEqual(['reduceOnly', 'cancel'])
    expect(r.at.get('reduceOnly')).toBe(submittedAt)
    expect(r.at.get('cancel')).toBe(submittedAt)
    expect(l.state().queued.quote).toBe(50)
    // The quotes follow once their window frees up.
    await tick(61_000)
    await Promise.all([...first, ...queued])
    expect(r.started.slice(47)).toEqual(Array.from({ length: 50 }, (_, i) => `quote${i}`))
  })

  it('starts a risk job within the reserve at once, even right behind a burst of submissions', async () => {
    const l = limiter()
    const r = recorder()
    const t0 = Date.now()
    // 50 reads and 50 quote batches just handed over: Bottleneck admits them one by one (~2 ms each).
    const others = [
      ...Array.from({ length: 50 }, (_, i) =>
        l.schedule({ endpoint: 'getPortfolio', priority: 'read' }, r.job(`r${i}`)),
      ),
      ...Array.from({ length: 50 }, (_, i) =>
        l.schedule({ endpoint: 'modifyOrders', n: 19, priority: 'quote' }, r.job(`q${i}`)),
      ),
    ]
    const cancel = l.schedule({ endpoint: 'cancelOrders', n: 99, priority: 'risk' }, r.job('cancel'))
    const reduce = l.schedule({ endpoint: 'createOrders', n: 19, priority: 'risk' }, r.job('reduceOnly'))
    await flushMicrotasks()
    // No fake time has passed: neither risk job waited in Bottleneck (uncontended reads and quotes
    // take the synchronous fast path too; the reserve is only touched by risk).
    expect(r.started).toEqual(expect.arrayContaining(['cancel', 'reduceOnly']))
    expect([r.at.get('cancel'), r.at.get('reduceOnly')]).toEqual([t0, t0])
    expect(l.state().request.reserveAvailable).toBe(90 - 5 - 1)
    await Promise.all([cancel, reduce])
    await tick(1_000)
    await Promise.all(others)
  })

  it('admits uncontended work synchronously and queues once the shared budget is used up', async () => {
    const l = limiter({ requestBudget: 100, headroom: 1, riskReserve: 0.1 }) // reserve 10, shared 90
    const r = recorder()
    const jobs = Array.from({ length: 50 }, (_, i) =>
      l.schedule({ endpoint: 'getIndex', priority: 'read' }, r.job(`x${i}`)),
    )
    await flushMicrotasks()
    // 45 × weight 2 fill the shared 90 at once; the rest wait for the window, and never the reserve.
    expect(r.started).toHaveLength(45)
    expect(l.state().request.reserveAvailable).toBe(10)
    await tick(61_000)
    await Promise.all(jobs)
    expect(r.started).toHaveLength(50)
  })

  it('beyond the reserve, queues risk at top priority ahead of queued quotes', async () => {
    const l = limiter({ requestBudget: 100, headroom: 1, riskReserve: 0.1 }) // reserve 10, shared 90
    const r = recorder()
    const first = l.schedule({ endpoint: 'getWithdrawals', priority: 'risk' }, r.job('risk1')) // the reserve
    const quotes = Array.from({ length: 50 }, (_, i) =>
      l.schedule({ endpoint: 'getIndex', priority: 'quote' }, r.job(`q${i}`)),
    )
    await tick(500)
    expect(r.started.filter((n) => n.startsWith('q'))).toHaveLength(45) // 90 of shared weight
    const second = l.schedule({ endpoint: 'getWithdrawals', priority: 'risk' }, r.job('risk2'))
    await tick(500)
    expect(r.started).not.toContain('risk2')
    await tick(60_000)
    await Promise.all([first, second, ...quotes])
    expect(r.started.indexOf('risk2')).toBeLessThan(r.started.indexOf('q45'))
  })

  it('keeps the reserve from reads and quotes but lets risk use all of it', async () => {
    const l = limiter({ requestBudget: 100, headroom: 1, riskReserve: 0.2 })
    const r = recorder()
    const reads = Array.from({ length: 9 }, (_, i) =>
      l.schedule({ endpoint: 'getWithdrawals', priority: 'read' }, r.job(`read${i}`)),
    )
    await tick(100)
    expect(r.started).toHaveLength(8) // 80 of 100: the reserve of 20 stays
    const risks = Array.from({ length: 2 }, (_, i) =>
      l.schedule({ endpoint: 'getWithdrawals', priority: 'risk' }, r.job(`risk${i}`)),
    )
    await tick(100)
    await Promise.all(risks)
    expect(l.state().request.used).toBe(100)
    await tick(61_000)
    await Promise.all(reads)
  })
})

describe('stop', () => {
  it('rejects queued jobs and later schedules with StoppedError', async () => {
    const l = createWeightLimiter({ requestBudget: 10, headroom: 1, riskReserve: 0 })
    const first = l.schedule({ endpoint: 'getWithdrawals', priority: 'read' }, async () => 'ran')
    const queued = l
      .schedule({ endpoint: 'getWithdrawals', priority: 'read' }, async () => 'ran')
      .catch((e) => e)
    await tick()
    await expect(first).resolves.toBe('ran')
    const stopping = l.stop()
    await tick()
    await stopping
    expect(await queued).toBeInstanceOf(StoppedError)
    await expect(l.schedule({ endpoint: 'getTime', priority: 'risk' }, async () => 1)).rejects.toBeInstanceOf(
      StoppedError,
    )
  })
})
