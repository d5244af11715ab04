/**
 * Issue 24, point 3 (bot side): a venue that gaps its stream on about every other push. Each gap asks
 * for one REST resync, not a stream/poll flip per push; the bot's own lines stay few (the stream
 * layer's per-gap warning is helper C's part and is counted apart); and the bot quotes throughout.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type HostileRun, startBotOnHostileVenue } from '../adversarial/hostileVenue.ts'
import { HOSTILE_FAULTS } from '../adversarial/tampers.ts'

let run: HostileRun | undefined
afterEach(async () => {
  await run?.close()
  run = undefined
})

describe('a stream that gaps on every other push', () => {
  it('keeps the index on the stream with one resync per gap burst, few lines, quoting throughout', async () => {
    run = await startBotOnHostileVenue({
      mock: {
        seed: 71,
        scenario: 'calm',
        clock: 'real',
        catalogue: { eventCount: 5 },
        streamPushIntervalMs: 100,
      },
    })
    const r = run
    const resting = () => r.venue.mock.exchange.accountOf(r.bot.proxyAddress)?.openOrders.length ?? 0
    await vi.waitFor(
      () => expect(r.bot.status().details?.inputs).toMatchObject({ index: { source: 'stream' } }),
      {
        timeout: 30_000,
        interval: 100,
      },
    )
    await vi.waitFor(() => expect(resting()).toBeGreaterThan(0), { timeout: 30_000, interval: 100 })
    const inputs = () =>
      r.bot.status().details?.inputs as Record<
        string,
        { source: string; resyncs: number; gapsCoalesced: number; resumes: number }
      >
    const before = { ...inputs().index, lines: r.logs.length }
    const t0 = Date.now()
    r.venue.setFaults(HOSTILE_FAULTS.gapStorm)
    const reads0 = r.venue.exchanges.filter((x) => x.path === '/v1/info/tickers').length
    let samples = 0
    while (Date.now() - t0 < 6_000) {
      await new Promise((res) => setTimeout(res, 250))
      // Quoting throughout: orders rest and the index comes from the stream.
      expect(resting()).toBeGreaterThan(0)
      expect(inputs().index?.source).toBe('stream')
      samples++
    }
    r.venue.setFaults('none')
    expect(samples).toBeGreaterThan(15)
    const after = inputs().index
    const gaps =
      (after?.resyncs ?? 0) -
      (before.resyncs ?? 0) +
      (after?.gapsCoalesced ?? 0) -
      (before.gapsCoalesced ?? 0)
    // The stream layer already folds a burst of gaps into one signal per channel per 5 s hold
    // (perps/stream), so the bot sees a few gap episodes, not one per push: at least one came through.
    expect(gaps).toBeGreaterThan(0)
    expect(after?.resumes).toBe(before.resumes)
    // The resync reads cost what polling would: a read every few seconds, not one per gap.
    const reads = r.venue.exchanges.filter((x) => x.path === '/v1/info/tickers').length - reads0
    // At most one resync read per gap episode, and a gap triggers a read at most once per 5 s.
    expect(reads).toBeLessThanOrEqual(Math.min(gaps, Math.ceil(6_000 / 5_000) + 1))
    const lines = r.logs.slice(before.lines)
    const ours = lines.filter((l) => !l.includes('"msg":"stream gap"'))
    expect(ours.filter((l) => l.includes('polling (the stream is down'))).toEqual([])
    expect(ours.length).toBeLessThan(40)
  }, 60_000)
})
