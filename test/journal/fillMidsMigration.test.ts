/**
 * Migration 5 (`fill_mids`) on both engines: a journal of migration 4 reads as "no markouts recorded"
 * to the report (which never migrates), migrates at the bot's next open keeping its fills (which
 * report unknown markouts), and then takes the mids through the writer (SQLite's worker thread,
 * PostgreSQL's rows.ts), a repeat kept once.
 */
import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { loadFillMids } from '../../src/journal/reading/markoutQueries.ts'
import { markoutsOf, withMids } from '../../src/journal/reading/markoutReport.ts'
import { loadReportInput } from '../../src/journal/reading/reportQueries.ts'
import { LATEST_MIGRATION } from '../../src/journal/schema/migrations.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { describeBackends } from './backends.ts'
import { fill, T0 } from './fixtures.ts'

const settings = JournalSettings.parse({ flushMs: 50, batchRows: 100 })
const SCOPE = { account: '0x00000000000000000000000000000000000000aa', venue: 'Polymarket/1/137' }

describeBackends('migration 5: fill mids', (backend) => {
  it('an older journal migrates; its fills report unknown markouts; new mids are written once', async () => {
    const target = await backend.fresh()
    const clock = new SimulatedClock()
    clock.set(T0)
    const open = (db: Awaited<ReturnType<typeof openJournalDb>>) =>
      createJournal({
        db,
        clock,
        settings,
        run: { version: 't', mode: 'live', configHash: 'h' },
        ...SCOPE,
      })
    // A release of migration 4 wrote a fill.
    const v4 = open(await openJournalDb(target, { migrateTo: '0004_account_venue' }))
    v4.fill(fill(1), 'stream')
    await v4.close('stop')

    // The report reads it as it is: no mids table, said as such (undefined), never migrated.
    const reader = await openJournalDb(target, { readonly: true })
    try {
      expect(await loadFillMids(reader, T0, T0 + 600_000, SCOPE)).toBeUndefined()
    } finally {
      await reader.close()
    }

    // The bot's next open migrates: the old fill is kept and has no mids.
    const db = await openJournalDb(target)
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
      db.db,
    )
    expect(applied.rows.map((r) => r.name).at(-1)).toBe(LATEST_MIGRATION)
    expect(LATEST_MIGRATION).toBe('0005_fill_mids')
    const journal = open(db)
    journal.fill(fill(2), 'stream')
    const f2 = fill(2)
    const mid = (horizonMs: number, m: string) =>
      journal.fillMid({
        tradeId: f2.tradeId,
        orderId: f2.orderId,
        fillTs: f2.ts,
        horizonMs,
        mid: m,
        at: f2.ts + horizonMs,
      })
    mid(0, '100.25')
    mid(1_000, '100.75')
    mid(1_000, '100.75')
    mid(60_000, '99.5')
    await journal.flush()
    const count = await db.db
      .selectFrom('fill_mids')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(3)

    const mids = await loadFillMids(db, T0, T0 + 600_000, SCOPE)
    const input = await loadReportInput(db, T0, T0 + 600_000, SCOPE)
    const fills = withMids(input.fills, mids)
    expect(fills.map((f) => [f.tradeId, f.mids])).toEqual([
      ['t1', [undefined, undefined, undefined, undefined]],
      ['t2', ['100.25', '100.75', undefined, '99.5']],
    ])
    // The old fill counts among the fills but is measured nowhere.
    const s = markoutsOf(fills)
    expect(s.fills).toBe(2)
    expect(s.measured).toEqual({ captured: 1, at: { 1000: 1, 10000: 0, 60000: 1 }, adverse: 1 })
    // Bought at 100.5 with the mid at 100.25: −24.88 bps for us; 10 s unknown.
    expect(s.capturedBps).toBeCloseTo(((100.25 - 100.5) / 100.5) * 10_000, 9)
    expect(s.markoutBps[10_000]).toBeUndefined()
    // Another account's report never sees these mids.
    expect((await loadFillMids(db, T0, T0 + 600_000, { ...SCOPE, account: 'unknown' }))?.size).toBe(0)
    await journal.close('stop')
  })
})
