/**
 * Deposits into the journal (issue 26 point 2): the real bot on the mock over loopback polls
 * `GET /v1/account/deposits` and journals each deposit once, on its hash, following its status
 * (pending, then confirmed); at start the reconcile reads what changed while the bot was down (a
 * still-pending deposit's later status, a new one), on SQLite and PostgreSQL; `perpbot report`
 * shows them per status in the asset's units.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatTransfers } from '../../src/cli/report/reportFormat.ts'
import { systemClock } from '../../src/clock.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { summarizeTransfers } from '../../src/journal/reading/report.ts'
import { loadReportInput } from '../../src/journal/reading/reportQueries.ts'
import type { HistoryWindow, VenueHistory } from '../../src/journal/reconcile.ts'
import { reconcileAtStart } from '../../src/journal/reconcile.ts'
import type { TransferInput } from '../../src/journal/records.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { startBotOnMock } from '../../src/sim/botOnMock.ts'
import { describeBackends } from './backends.ts'
import { SCOPE } from './fixtures.ts'

describe('deposits journaled by the running bot', () => {
  it('one row per hash, its status followed from pending to confirmed', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-deposits-'))
    const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'j.sqlite') })
    const journal = createJournal({
      db,
      clock: systemClock,
      settings: JournalSettings.parse({ flushMs: 50 }),
      venue: 'per-run',
      run: { version: 't', mode: 'dry-run', configHash: 'h' },
    })
    const run = await startBotOnMock({
      mock: { seed: 3, scenario: 'calm', clock: 'accelerated', speed: 20, catalogue: { eventCount: 5 } },
      overrides: { 'polling.depositsMs': 5_000 },
      logLevel: 'warn',
      journal,
    })
    try {
      // Pending for 20 blocks of 2 s (40 s of mock time, 2 s of wall), then confirmed.
      const hash = run.mock.exchange.deposit(run.bot.proxyAddress, '250', {
        requiredConfirmations: 20,
        blockMs: 2_000,
      })
      const row = () => db.db.selectFrom('transfers').selectAll().where('kind', '=', 'deposit').execute()
      const seen: string[] = []
      const deadline = Date.now() + 20_000
      for (;;) {
        await journal.flush()
        const rows = await row()
        const status = rows[0]?.status
        if (status !== undefined && seen.at(-1) !== status) seen.push(status)
        if (status === 'confirmed' || Date.now() > deadline) break
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(seen).toEqual(['pending', 'confirmed'])
      const rows = await row()
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ id: hash, asset: 'pUSD', amount: '250000000', status: 'confirmed' })
      expect(rows[0]?.venue).toBe(journal.venue)
      // The report reads the amount in pUSD (the asset's decimals journaled at start).
      const input = await loadReportInput(db, 0, Number.MAX_SAFE_INTEGER, journal.scope())
      expect(formatTransfers(summarizeTransfers(input))).toContain('deposits: 1 confirmed 250.00 pUSD')
    } finally {
      await run.stop('test over')
      await journal.close('test over')
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

const T0 = Date.UTC(2026, 10, 20)
const deposit = (n: number, status: string, ts: number): TransferInput => ({
  kind: 'deposit',
  id: `0x${String(n).padStart(64, '0')}`,
  asset: 'pUSD',
  amount: String(n * 1_000_000),
  fee: '0',
  status,
  ts,
  updatedAt: ts,
})

function venueWith(deposits: TransferInput[], asked: HistoryWindow[]): VenueHistory {
  return {
    async *fillPages() {},
    async *fundingPages() {},
    async *depositPages(w) {
      asked.push(w)
      yield { rows: deposits.filter((d) => d.ts >= w.since && d.ts <= w.until), more: false }
    },
  }
}

describeBackends('deposits reconciled at start', (backend) => {
  it('reads from the oldest pending deposit; a status changed while down is kept, once', async () => {
    const db = await openJournalDb(await backend.fresh())
    try {
      const start = (deposits: TransferInput[], now: number, asked: HistoryWindow[]) =>
        reconcileAtStart({
          db,
          venue: venueWith(deposits, asked),
          now,
          maxPages: 5,
          firstLookbackMs: 86_400_000,
          scope: SCOPE,
        })
      const first: HistoryWindow[] = []
      const fourth = deposit(4, 'confirmed', T0 - 60_000)
      await start(
        [deposit(1, 'confirmed', T0 - 3_600_000), deposit(2, 'pending', T0 - 600_000), fourth],
        T0,
        first,
      )
      expect(first).toEqual([{ since: T0 - 86_400_000, until: T0 }])
      // Down for an hour: deposit 2 confirmed, deposit 3 arrived.
      const second: HistoryWindow[] = []
      const later = [
        deposit(1, 'confirmed', T0 - 3_600_000),
        deposit(2, 'confirmed', T0 - 600_000),
        fourth,
        deposit(3, 'pending', T0 + 1_800_000),
      ]
      const r = await start(later, T0 + 3_600_000, second)
      // From the pending one, older than the newest journaled deposit less the overlap.
      expect(second).toEqual([{ since: T0 - 600_000, until: T0 + 3_600_000 }])
      expect(r.deposits).toEqual({ pages: 1, seen: 3 })
      const rows = await db.db.selectFrom('transfers').select(['id', 'status']).orderBy('ts').execute()
      expect(rows.map((x) => x.status)).toEqual(['confirmed', 'confirmed', 'confirmed', 'pending'])
      const input = await loadReportInput(db, T0 - 86_400_000, T0 + 86_400_000, SCOPE)
      expect(summarizeTransfers({ ...input, assetDecimals: new Map([['pUSD', 6]]) })).toEqual([
        { kind: 'deposit', status: 'confirmed', asset: 'pUSD', count: 3, amount: '7', unit: 'pUSD' },
        { kind: 'deposit', status: 'pending', asset: 'pUSD', count: 1, amount: '3', unit: 'pUSD' },
      ])
    } finally {
      await db.close()
    }
  })
})
