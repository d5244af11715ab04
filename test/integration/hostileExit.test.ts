/**
 * Issue 24, point 1: the exit is never held by anything local. The real bot against the hostile venue
 * (test/adversarial/) on its real-time clock; each case makes the bot's own waits long (a risk pause
 * after a 429 on the dead-man refresh, a back-off grown by 429s without Retry-After, the breaker, a
 * refused venue clock), then stops it as SIGTERM does. The exit policy's cancel-all must go out at
 * once, answer a 429 on the venue's own Retry-After within the budget, and leave nothing resting; the
 * whole stop within 10 s of wall time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type HostileRun, startBotOnHostileVenue } from '../adversarial/hostileVenue.ts'
import { lyingClock, onEndpoints, onReads, rateLimited } from '../adversarial/tampers.ts'

const EXIT_LIMIT_MS = 10_000
const CANCEL_ALL_PATH = '/v1/trade/orders/all'

let run: HostileRun | undefined
afterEach(async () => {
  await run?.close()
  run = undefined
})

async function quoting(seed: number, overrides: Record<string, unknown> = {}): Promise<HostileRun> {
  run = await startBotOnHostileVenue({
    mock: { seed, scenario: 'calm', clock: 'real', catalogue: { eventCount: 10 } },
    overrides: { 'polling.timeSyncMs': 500, ...overrides },
  })
  const r = run
  await vi.waitFor(() => expect(resting(r).length).toBeGreaterThan(0), { timeout: 30_000, interval: 100 })
  return r
}

function resting(r: HostileRun): { order_id: number }[] {
  return r.venue.mock.exchange.accountOf(r.bot.proxyAddress)?.openOrders ?? []
}

const cancelAllsSince = (r: HostileRun, from: number) =>
  r.venue.exchanges.filter((x) => x.method === 'DELETE' && x.path === CANCEL_ALL_PATH && x.at >= from)

/** Stops the bot and checks the exit: in time, cancel-all accepted, nothing of ours resting. */
async function expectCleanExit(r: HostileRun) {
  const stop = await r.stopBot('SIGTERM')
  expect(stop.elapsedMs).toBeLessThan(EXIT_LIMIT_MS)
  expect(stop.report.cancelAllFailed).toBe(false)
  expect(cancelAllsSince(r, stop.from).some((x) => x.status === 200)).toBe(true)
  expect(resting(r)).toEqual([])
  return stop
}

describe('the exit is never held by anything local', () => {
  it('a 429 on the dead-man refresh (Retry-After 60 s) pauses risk work, yet the exit cancel-all goes at once', async () => {
    const r = await quoting(41, { 'ops.deadManSwitch.refreshMs': 1_000 })
    const refused = rateLimited({ match: onEndpoints('setAutoCancel'), retryAfterSeconds: 60, count: 1 })
    r.venue.use('429 on the dead-man refresh', refused.tamper)
    await vi.waitFor(() => expect(refused.answered).toBe(1), { timeout: 10_000, interval: 20 })
    await vi.waitFor(() => expect(r.bot.status().limiter.details?.riskPausedUntil).toBeDefined(), {
      timeout: 5_000,
      interval: 20,
    })
    const stop = await expectCleanExit(r)
    // At once: no wait for the pause, the in-flight batch aside.
    expect(stop.elapsedMs).toBeLessThan(4_000)
  }, 60_000)

  it('429s without Retry-After on everything grow our back-off, which holds neither risk work nor the exit', async () => {
    const r = await quoting(42, { 'ops.deadManSwitch.refreshMs': 1_000 })
    // The dead-man refresh (risk work) is refused too: risk work waits the base pause only.
    const storm = rateLimited({ match: (req) => req.path !== CANCEL_ALL_PATH, count: 60 })
    r.venue.use('429 storm', storm.tamper)
    await vi.waitFor(() => expect(r.bot.status().limiter.backoffUntil).toBeGreaterThan(Date.now() + 8_000), {
      timeout: 30_000,
      interval: 20,
    })
    expect(storm.answered).toBeGreaterThanOrEqual(4)
    const riskUntil = r.bot.status().limiter.details?.riskPausedUntil
    expect(typeof riskUntil === 'number' ? riskUntil : 0).toBeLessThan(Date.now() + 1_500)
    await expectCleanExit(r)
  }, 60_000)

  it('a 429 answered to the exit cancel-all is retried on the venue Retry-After, within the budget', async () => {
    const r = await quoting(43)
    const refused = rateLimited({ match: onEndpoints('cancelAll'), retryAfterSeconds: 2, count: 1 })
    r.venue.use('429 on cancel-all', refused.tamper)
    const stop = await expectCleanExit(r)
    const cancels = cancelAllsSince(r, stop.from)
    expect(cancels.map((x) => x.status)).toEqual([429, 200])
    const gap = (cancels[1]?.at ?? 0) - (cancels[0]?.at ?? 0)
    expect(gap).toBeGreaterThanOrEqual(1_900)
    expect(gap).toBeLessThan(4_000)
  }, 60_000)

  it('a Retry-After longer than the budget is capped by it: one more try before the budget ends', async () => {
    const r = await quoting(44)
    const refused = rateLimited({ match: onEndpoints('cancelAll'), retryAfterSeconds: 120, count: 1 })
    r.venue.use('429 on cancel-all', refused.tamper)
    const stop = await expectCleanExit(r)
    expect(cancelAllsSince(r, stop.from).map((x) => x.status)).toEqual([429, 200])
  }, 60_000)

  it('with the reads rate-limited too (Retry-After 30 s) the exit goes at once', async () => {
    const r = await quoting(45, { 'streams.enabled': false })
    r.venue.use('429 on reads', rateLimited({ match: onReads, retryAfterSeconds: 30, count: 5 }).tamper)
    await vi.waitFor(() => expect(r.bot.status().limiter.backoffUntil).toBeGreaterThan(Date.now() + 10_000), {
      timeout: 10_000,
      interval: 20,
    })
    await expectCleanExit(r)
  }, 60_000)

  it('a venue clock refused mid-run: the exit cancel-all is signed with the local clock, and the report says so', async () => {
    const r = await quoting(46)
    r.venue.use('lying clock', lyingClock(3_600_000))
    await vi.waitFor(
      () => expect(r.logs.some((l) => l.includes('venue clock differs from the local clock'))).toBe(true),
      { timeout: 15_000, interval: 50 },
    )
    const stop = await expectCleanExit(r)
    expect(stop.report.exitClock).toBe('local')
    expect(r.logs.some((l) => l.includes('signed with the local clock'))).toBe(true)
  }, 60_000)
})
