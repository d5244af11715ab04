/**
 * Every exit path applies the exit policy (issue 11, item 1): the real bot against the mock over
 * loopback, quoting on the mock's real-time clock, then `stop('SIGTERM')` while the venue is hostile:
 * (a) reads paused by a burst of 429s (venue healthy again), (b) quotes held by the rate-limit breaker,
 * (c) every read held unanswered, (d) a dead venue (every request failing, or the server gone).
 * The stop must end within the stop budget (ops.shutdownTimeoutMs) on the wall clock, and cancel-all
 * must reach the venue when it is reachable (nothing of ours left resting) or be reported as failed
 * with the orders that may remain named in the log.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { StopReport } from '../../src/bot/startup/stopSequence.ts'
import type { FaultConfig } from '../../src/mock/faults.ts'
import type { MockRequest, MockResponse } from '../../src/mock/mockHttp.ts'
import { type BotOnMock, startBotOnMock } from '../../src/sim/botOnMock.ts'

/** ops.shutdownTimeoutMs of the shipped configuration. */
const STOP_BUDGET_MS = 8_000
const CANCEL_ALL_PATH = '/v1/trade/orders/all'

interface Run {
  run: BotOnMock
  exchanges: { req: MockRequest; res: MockResponse; fault: string | undefined; at: number }[]
  logs: string[]
}

let current: Run | undefined

afterEach(async () => {
  // A failed assertion still leaves nothing running.
  if (current !== undefined) await current.run.stop('test over').catch(() => undefined)
  current = undefined
})

/** Starts the bot on a calm mock (real-time clock) and waits until it has orders resting. */
async function startQuoting(
  seed: number,
  overrides: Record<string, unknown> = {},
  onExchange?: (req: MockRequest, res: MockResponse) => void,
): Promise<Run> {
  const exchanges: Run['exchanges'] = []
  const logs: string[] = []
  const run = await startBotOnMock({
    mock: { seed, scenario: 'calm', clock: 'real', catalogue: { eventCount: 20 } },
    // Reads that every poller sends often, so some are queued or in flight when the stop comes.
    overrides: { 'polling.timeSyncMs': 500, ...overrides },
    logLevel: 'info',
    onExchange: ({ req, res, fault }) => {
      exchanges.push({ req, res, fault, at: Date.now() })
      onExchange?.(req, res)
    },
    onLogLine: (line) => void logs.push(line),
  })
  current = { run, exchanges, logs }
  await vi.waitFor(() => expect(resting(run).length).toBeGreaterThan(0), { timeout: 30_000, interval: 100 })
  return current
}

/** Our orders resting on the mock's book. */
function resting(run: BotOnMock): { order_id: number; created_timestamp: number }[] {
  return run.mock.exchange.accountOf(run.bot.proxyAddress)?.openOrders ?? []
}

/** Reads queued in the bot's limiter. */
function queuedReads(r: Run): number {
  const queued = r.run.bot.status().limiter.details?.queued as { read?: number } | undefined
  return queued?.read ?? 0
}

/** Stops the bot (as SIGTERM does), timing it on the wall clock. */
async function timedStop(r: Run): Promise<{ report: StopReport; elapsedMs: number; from: number }> {
  const from = Date.now()
  const report = await Promise.race([
    r.run.bot.stop('SIGTERM'),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('stop did not finish within twice the budget')), 2 * STOP_BUDGET_MS),
    ),
  ])
  return { report, elapsedMs: Date.now() - from, from }
}

const cancelAllsSince = (r: Run, from: number) =>
  r.exchanges.filter((x) => x.req.method === 'DELETE' && x.req.path === CANCEL_ALL_PATH && x.at >= from)

/** Asserts the exit policy ran against a reachable venue: in time, cancel-all sent, book empty. */
function expectCleanStop(r: Run, stop: { report: StopReport; elapsedMs: number; from: number }): void {
  expect(stop.elapsedMs).toBeLessThan(STOP_BUDGET_MS)
  // The pollers stopped at once: their aborts reached the queued and in-flight reads.
  expect(r.logs.filter((l) => l.includes('did not stop within'))).toEqual([])
  expect(stop.report.cancelAllFailed).toBe(false)
  const cancels = cancelAllsSince(r, stop.from)
  expect(cancels.length).toBeGreaterThan(0)
  expect(cancels.some((x) => x.res.status === 200)).toBe(true)
  expect(resting(r.run)).toEqual([])
  expect(r.logs.some((l) => l.includes('exit policy: cancelled all open orders'))).toBe(true)
}

const rateLimitedReads = (retryAfterSeconds: number): FaultConfig => ({
  rules: [{ match: { kind: 'read' }, rateLimitBurst: { probability: 1, length: 1_000, retryAfterSeconds } }],
})

describe('exit paths: SIGTERM on a hostile venue still applies the exit policy', () => {
  it('(a) during a rate-limit pause (a burst of 429s on reads, venue healthy again)', async () => {
    // Every input polling (as when the streams are down), so many reads queue behind the pause.
    const r = await startQuoting(21, { 'streams.enabled': false })
    const from = Date.now()
    r.run.mock.setFaults(rateLimitedReads(30))
    await vi.waitFor(
      () => expect(r.exchanges.filter((x) => x.res.status === 429 && x.at >= from).length).toBeGreaterThan(0),
      { timeout: 10_000, interval: 20 },
    )
    r.run.mock.setFaults('none')
    // The reads are paused for the venue's Retry-After (30 s), far longer than the stop budget, and
    // the pollers' reads queue behind the pause.
    await vi.waitFor(
      () => expect(r.run.bot.status().limiter.backoffUntil).toBeGreaterThan(Date.now() + STOP_BUDGET_MS),
      { timeout: 5_000, interval: 20 },
    )
    await vi.waitFor(() => expect(queuedReads(r)).toBeGreaterThan(2), { timeout: 10_000, interval: 20 })
    const stop = await timedStop(r)
    expectCleanStop(r, stop)
  }, 60_000)

  it('(b) during a breaker hold (429s on quotes opened the breaker)', async () => {
    const r = await startQuoting(22)
    r.run.mock.setFaults({
      rules: [
        {
          match: { endpoint: ['createOrders', 'modifyOrders'] },
          rateLimitBurst: { probability: 1, length: 1_000, retryAfterSeconds: 1 },
        },
      ],
    })
    await vi.waitFor(() => expect(r.run.bot.status().limiter.details?.breaker).toBe('open'), {
      timeout: 20_000,
      interval: 20,
    })
    r.run.mock.setFaults('none')
    const stop = await timedStop(r)
    expectCleanStop(r, stop)
  }, 60_000)

  it('(c) during a stalled read (the venue holds every read unanswered)', async () => {
    const r = await startQuoting(23)
    r.run.mock.setFaults({
      rules: [{ match: { kind: 'read' }, timeout: { probability: 1, holdMs: 120_000 } }],
    })
    // With the streams healthy the pollers stand down, so REST reads are few: one held is the case.
    await vi.waitFor(() => expect(r.run.mock.faults.pending).toBeGreaterThanOrEqual(1), {
      timeout: 20_000,
      interval: 20,
    })
    const stop = await timedStop(r)
    expectCleanStop(r, stop)
  }, 60_000)

  it('the venue rate-limits the cancel-all itself: it goes again after its Retry-After, within the budget', async () => {
    let run: BotOnMock | undefined
    const r = await startQuoting(26, {}, (req, res) => {
      // One 429 on cancel-all, then the venue accepts it again.
      if (req.path === CANCEL_ALL_PATH && res.status === 429) run?.mock.setFaults('none')
    })
    run = r.run
    r.run.mock.setFaults({
      rules: [
        {
          match: { endpoint: 'cancelAll' },
          rateLimitBurst: { probability: 1, length: 1, retryAfterSeconds: 1 },
        },
      ],
    })
    const stop = await timedStop(r)
    const cancels = cancelAllsSince(r, stop.from)
    expect(cancels.map((x) => x.res.status)).toEqual([429, 200])
    expect(r.logs.some((l) => l.includes('the venue rate-limited cancel-all'))).toBe(true)
    expectCleanStop(r, stop)
  }, 60_000)

  it('(d) with a dead venue (every request fails): the report says cancel-all failed and the log names the orders', async () => {
    const r = await startQuoting(24)
    // Orders resting for a second have been acknowledged to the bot (younger ones may be in flight).
    const settled = () => resting(r.run).filter((o) => o.created_timestamp <= Date.now() - 1_000)
    await vi.waitFor(() => expect(settled().length).toBeGreaterThan(0), { timeout: 10_000, interval: 50 })
    const before = settled().map((o) => o.order_id)
    r.run.mock.setFaults({ rules: [{ error503: 1 }] })
    const stop = await timedStop(r)
    expect(stop.elapsedMs).toBeLessThan(STOP_BUDGET_MS)
    expect(stop.report.cancelAllFailed).toBe(true)
    // cancel-all was attempted (and refused by the dead venue).
    expect(cancelAllsSince(r, stop.from).length).toBeGreaterThan(0)
    const failed = r.logs.find((l) => l.includes('exit policy: cancel-all failed'))
    expect(failed).toBeDefined()
    const named = (JSON.parse(failed ?? '{}') as { ordersMayRemain?: { oid: number }[] }).ordersMayRemain
    expect(named?.map((o) => o.oid).sort()).toEqual(expect.arrayContaining(before.sort()))
    // Those orders do rest on the venue still: this is what the log warns about.
    expect(resting(r.run).length).toBeGreaterThan(0)
  }, 60_000)

  it('(d) with a dead venue (the server is gone): the report says cancel-all failed', async () => {
    const r = await startQuoting(25)
    // The log can name only orders the bot has heard of: wait for an acknowledged one.
    await vi.waitFor(() => expect(r.run.bot.status().instruments.some((i) => i.openOrders > 0)).toBe(true), {
      timeout: 10_000,
      interval: 50,
    })
    await r.run.server.close()
    const stop = await timedStop(r)
    expect(stop.elapsedMs).toBeLessThan(STOP_BUDGET_MS)
    expect(stop.report.cancelAllFailed).toBe(true)
    const failed = r.logs.find((l) => l.includes('exit policy: cancel-all failed'))
    const named = (JSON.parse(failed ?? '{}') as { ordersMayRemain?: { oid: number }[] }).ordersMayRemain
    expect(named?.length).toBeGreaterThan(0)
  }, 60_000)
})
