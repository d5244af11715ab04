/**
 * Issue 34, point 2 end to end, at a counted size (the 30-second real-time flood with rss, the event
 * loop's delay and /livez latency measured is `npm run chaos:flood`): another client on the account
 * floods the `orders` channel (the mock's `foreignOrders` stream fault, 5,000 pushes a second of the
 * mock's clock) while the real bot (startBot, streams on, ops server on) quotes. After 30,000 pushes
 * through the bot's own stream parsing, counted on the mock: `/livez` answered every probe made during
 * the flood, within a bound a wedged loop cannot meet; the log got summaries (counts held at most
 * 1,000), never the list; and a stop in the middle of the flood runs the exit policy: our orders
 * cancelled, the dead-man switch cleared, the journal's run marked stopped.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { FOREIGN_KEPT_MAX } from '../../src/bot/orders/foreignOrders.ts'
import { systemClock } from '../../src/clock.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal, type Journal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { type HostileRun, startBotOnHostileVenue } from '../adversarial/hostileVenue.ts'

const PUSHES = 30_000
/** A probe slower than this is a wedged loop (issue 34: 2,000 pushes/s wedged it in ~3 s). */
const LIVEZ_BOUND_MS = 3_000

let run: HostileRun | undefined
let journal: Journal | undefined
let dir: string | undefined
afterEach(async () => {
  await run?.close()
  await journal?.close('test over').catch(() => undefined)
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  run = undefined
  journal = undefined
  dir = undefined
})

describe('a foreign-order flood through the stream', () => {
  it('30,000 pushes leave /livez answering and the log bounded; a stop mid-flood runs the exit policy', async () => {
    dir = mkdtempSync(join(tmpdir(), 'perpbot-flood-'))
    const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'journal.sqlite') })
    const j = createJournal({
      db,
      clock: systemClock,
      settings: JournalSettings.parse({ flushMs: 100 }),
      run: { version: 't', mode: 'dry-run', configHash: 'h' },
      venue: 'per-run',
    })
    journal = j
    const r = await startBotOnHostileVenue({
      mock: { seed: 71, scenario: 'calm', clock: 'real', catalogue: { eventCount: 5 } },
      ops: true,
      journal: j,
    })
    run = r
    const proxy = r.bot.proxyAddress
    const resting = () => r.venue.mock.exchange.accountOf(proxy)?.openOrders ?? []
    await vi.waitFor(() => expect(resting().length).toBeGreaterThan(0), { timeout: 30_000, interval: 100 })
    const opsUrl = r.bot.opsUrl
    if (opsUrl === undefined) throw new Error('no ops server')
    const stream = r.venue.stream
    if (stream === undefined) throw new Error('no stream')
    const heapBefore = process.memoryUsage().heapUsed

    r.venue.setFaults({ rules: [], stream: { foreignOrders: { perSecond: 5_000 } } })
    const probes: { status: number; ms: number }[] = []
    await vi.waitFor(
      async () => {
        const t0 = performance.now()
        const res = await fetch(`${opsUrl}/livez`)
        await res.text()
        probes.push({ status: res.status, ms: performance.now() - t0 })
        expect(stream.counts.foreignOrders).toBeGreaterThanOrEqual(PUSHES)
      },
      { timeout: 120_000, interval: 50 },
    )
    expect(probes.length).toBeGreaterThan(5)
    expect(probes.every((p) => p.status === 200)).toBe(true)
    expect(Math.max(...probes.map((p) => p.ms))).toBeLessThan(LIVEZ_BOUND_MS)
    // Memory: the book holds at most FOREIGN_KEPT_MAX of them (the test process holds the mock too).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024)
    // The bot read them: summaries name at most the kept count (with '+' past it), never a list.
    const summaries = r.logs.filter((l) => l.includes('foreign orders: leaving'))
    expect(summaries.length).toBeGreaterThan(0)
    expect(summaries.length).toBeLessThan(20)
    for (const l of summaries) {
      const held = (JSON.parse(l) as { foreignOrders?: number }).foreignOrders ?? 0
      expect(held).toBeLessThanOrEqual(FOREIGN_KEPT_MAX)
      expect(l.length).toBeLessThan(2_000)
    }
    expect(r.logs.reduce((n, l) => n + l.length, 0)).toBeLessThan(5 * 1024 * 1024)

    // Stop while the flood goes on: the exit policy works (the switch was armed until then).
    const owner = r.venue.mock.exchange.accountOf(proxy)?.owner ?? proxy
    expect(r.venue.mock.exchange.autoCancelStatus(owner).deadline).toBeGreaterThan(0)
    // The flood is still on as the stop begins: one more push tick landed (the fault stays set through
    // the stop). Asserting pushes *during* the 0.3-s stop raced the mock's push tick on a loaded machine.
    const flooded = stream.counts.foreignOrders
    await vi.waitFor(() => expect(stream.counts.foreignOrders).toBeGreaterThan(flooded), {
      timeout: 30_000,
      interval: 20,
    })
    const stop = await r.stopBot('SIGTERM')
    expect(stop.report.cancelAllFailed).toBe(false)
    expect(resting()).toEqual([])
    expect(r.venue.mock.exchange.autoCancelStatus(owner).deadline).toBe(0)
    await j.close('SIGTERM')
    journal = undefined
    const check = await openJournalDb(
      { kind: 'sqlite', path: join(dir, 'journal.sqlite') },
      { readonly: true },
    )
    try {
      const runs = await check.db.selectFrom('runs').select(['stopped_at', 'stop_reason']).execute()
      expect(runs).toHaveLength(1)
      expect(runs[0]?.stopped_at).not.toBeNull()
      expect(runs[0]?.stop_reason).toBe('SIGTERM')
    } finally {
      await check.close()
    }
  }, 180_000)
})
