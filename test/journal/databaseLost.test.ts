/**
 * A PostgreSQL journal whose database goes away mid-run (connections killed, new ones refused): the
 * journal reports `failing` once (the bot's alert), keeps its rows queued, and writes them all when
 * the database is back — nothing lost within the bound, nothing written twice.
 */
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../src/alerts/alert.ts'
import { journalHealthAlerts } from '../../src/bot/startup/botJournal.ts'
import type { WriterState } from '../../src/journal/batchWriter.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { postgresEnabled, startPostgres, type TestPostgres } from '../helpers/postgres.ts'
import { fill } from './fixtures.ts'

describe.runIf(postgresEnabled())('journal: database lost mid-run (postgres)', () => {
  let server: TestPostgres | undefined
  beforeAll(async () => {
    server = await startPostgres()
  }, 30_000)
  afterAll(async () => server?.stop())

  const admin = async (q: string): Promise<void> => {
    const c = new pg.Client({ connectionString: server?.url })
    await c.connect()
    try {
      await c.query(q)
    } finally {
      await c.end()
    }
  }

  it('a connection killed in the middle of a query rejects that query and does not crash the process', async () => {
    if (server === undefined) throw new Error('no server')
    const url = await server.createDatabase('killed_db')
    const db = await openJournalDb({ kind: 'postgres', url })
    try {
      // Its outcome is taken at once: the rejection comes while the test is still ending the backend.
      const slow = sql`select pg_sleep(5)`.execute(db.db).then(
        () => 'resolved',
        (e: unknown) => e,
      )
      // Wait until the query runs on the server, then end its backend (as a failover or a DBA would).
      for (let i = 0; i < 100; i++) {
        const c = new pg.Client({ connectionString: server.url })
        await c.connect()
        const r = await c.query(
          `select count(*)::int as n from pg_stat_activity where datname = 'killed_db' and query like '%pg_sleep%' and state = 'active'`,
        )
        await c.end()
        if ((r.rows[0] as { n: number }).n > 0) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = 'killed_db'`)
      expect(await slow).toBeInstanceOf(Error)
      // The writer retries a failed batch; the pool serves a retry on a new connection. (The first
      // may still get the dead one: pg hands a client back before its socket's end arrives.)
      let one: unknown
      for (let i = 0; i < 3 && one === undefined; i++)
        one = await sql`select 1 as one`.execute(db.db).then(
          (r) => r.rows[0],
          () => undefined,
        )
      expect(one).toEqual({ one: 1 })
    } finally {
      await db.close()
    }
  })

  it('failing once, rows kept, all written once when it is back', async () => {
    if (server === undefined) throw new Error('no server')
    const url = await server.createDatabase('lost_db')
    const db = await openJournalDb({ kind: 'postgres', url })
    const clock = new SimulatedClock()
    clock.set(Date.UTC(2026, 10, 20))
    const states: WriterState[] = []
    const journal = createJournal({
      db,
      clock,
      settings: JournalSettings.parse({ flushMs: 10 }),
      run: { version: 't', mode: 'live', configHash: 'h' },
      onStateChange: (s) => states.push(s),
    })
    const alerts: Alert[] = []
    const health = journalHealthAlerts({ journal, clock, alerts: { send: (a) => void alerts.push(a) } })
    journal.fill(fill(1), 'stream')
    await journal.flush()

    await admin('alter database lost_db allow_connections false')
    await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = 'lost_db'`)
    for (let i = 2; i <= 50; i++) journal.fill(fill(i), 'stream')
    await journal.flush()
    expect(states).toEqual(['failing'])
    const lost = journal.stats()
    expect(lost).toMatchObject({ state: 'failing', depth: 49, droppedTotal: 0 })
    expect(lost.lastError).toBeDefined()
    await journal.flush()
    expect(states).toEqual(['failing'])

    await admin('alter database lost_db allow_connections true')
    await journal.flush()
    expect(states).toEqual(['failing', 'ok'])
    expect(journal.stats()).toMatchObject({ state: 'ok', depth: 0, droppedTotal: 0 })
    const rows = await db.db.selectFrom('fills').select('trade_id').execute()
    expect(rows).toHaveLength(50)
    // One alert episode: raised when the database went away, resolved once when it came back.
    expect(alerts.map((a) => [a.key, a.resolved === true])).toEqual([
      ['journal', false],
      ['journal', true],
    ])
    expect(alerts[0]?.message).toContain('Trading goes on')
    expect(alerts[0]?.message).not.toMatch(/:\/\/[^@\s]*:[^@\s]*@/) // no password in a URL
    expect(alerts[1]?.message).toContain('nothing was dropped')
    health.stop()
    await journal.close('done')
  })
})
