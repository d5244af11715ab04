import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/errors.ts'
import { journalTarget, openJournalDb } from '../../src/journal/database.ts'
import { redactUrl } from '../../src/journal/errors.ts'
import { LATEST_MIGRATION, MIGRATIONS } from '../../src/journal/schema/migrations.ts'
import { describeBackends } from './backends.ts'

describeBackends('migrations', (backend) => {
  it('a database made by the first schema is migrated forward and keeps its rows', async () => {
    const target = await backend.fresh()
    const old = await openJournalDb(target, { migrateTo: '0001_core' })
    // The first schema's columns (no venue yet), as a release of it wrote them.
    await sql`insert into fills (trade_id, order_id, iid, side, price, qty, taker, fee, fee_asset,
      realized_pnl, liquidation, ts, coid, source)
      values ('x1', 5, 1, 'long', '1', '1', 0, '0', 'USDC', '0', 0, 1, null, 'rest')`.execute(old.db)
    await sql`insert into pnl_snapshots (minute, iid, position, realized_pnl, unrealized_pnl, fees,
      funding, volume, fills, mode) values (60000, 1, '0', '0', '1', '0', '0', '0', 0, 'quoting')`.execute(
      old.db,
    )
    // The first schema has no alerts table yet.
    await expect(old.db.selectFrom('alerts').selectAll().execute()).rejects.toThrow()
    await old.close()

    const now = await openJournalDb(target)
    try {
      // Migration 3 kept the rows, under the real venue's key ('').
      expect(await now.db.selectFrom('fills').select(['trade_id', 'venue']).execute()).toEqual([
        { trade_id: 'x1', venue: '' },
      ])
      expect(await now.db.selectFrom('pnl_snapshots').select(['unrealized_pnl', 'venue']).execute()).toEqual([
        { unrealized_pnl: '1', venue: '' },
      ])
      await now.db.insertInto('state').values({ name: 'n', value: '{}', at: 1 }).execute()
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        now.db,
      )
      expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(MIGRATIONS))
      expect(Object.keys(MIGRATIONS).at(-1)).toBe(LATEST_MIGRATION)
    } finally {
      await now.close()
    }
    // Opening again applies nothing and changes nothing.
    const again = await openJournalDb(target)
    expect(await again.db.selectFrom('fills').select('trade_id').execute()).toHaveLength(1)
    await again.close()
  })

  it.runIf(backend.name === 'postgres')(
    'a read-only database is a configuration error at start',
    async () => {
      const target = await backend.fresh()
      const admin = new pg.Client({ connectionString: backend.adminUrl() })
      const name = target.kind === 'postgres' ? new URL(target.url).pathname.slice(1) : ''
      await admin.connect()
      await admin.query(`alter database ${name} set default_transaction_read_only = on`)
      await admin.end()
      const e = await openJournalDb(target).catch((x: unknown) => x)
      expect(e).toBeInstanceOf(ConfigError)
      expect((e as ConfigError).shortMessage).toContain(`/${name}`)
    },
  )
})

describe('journal target and bad databases', () => {
  let dir = ''
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'perpbot-journal-bad-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('picks the database as run does: live uses DATABASE_URL, dry runs a file of their own', () => {
    const env = { DATABASE_URL: 'postgres://bot:hunter2@db.example:5432/perpbot' }
    expect(journalTarget({ stateDir: '/s', mode: 'live', env })).toEqual({
      kind: 'postgres',
      url: env.DATABASE_URL,
    })
    expect(journalTarget({ stateDir: '/s', mode: 'dry-run', env })).toEqual({
      kind: 'sqlite',
      path: '/s/journal-dry-run.sqlite',
    })
    expect(journalTarget({ stateDir: '/s', mode: 'live', env: {} })).toEqual({
      kind: 'sqlite',
      path: '/s/journal-live.sqlite',
    })
    // An accelerated dry run (--speed ≠ 1) dates its rows ahead of the wall: a file of its own.
    expect(journalTarget({ stateDir: '/s', mode: 'dry-run', env, accelerated: true })).toEqual({
      kind: 'sqlite',
      path: '/s/journal-dry-run-accelerated.sqlite',
    })
    expect(journalTarget({ stateDir: '/s', mode: 'live', env: {}, accelerated: true })).toEqual({
      kind: 'sqlite',
      path: '/s/journal-live.sqlite',
    })
    expect(() =>
      journalTarget({ stateDir: '/s', mode: 'live', env: { DATABASE_URL: 'mysql://u:pw@h/d' } }),
    ).toThrow(/DATABASE_URL must be a postgres:\/\/ URL \(got mysql:\/\/u:\*\*\*@h\/d\)/)
    expect(redactUrl('postgres://bot:hunter2@db:5432/x')).toBe('postgres://bot:***@db:5432/x')
    expect(redactUrl('postgres://db:5432/x')).toBe('postgres://db:5432/x')
  })

  it('an unusable SQLite path is a configuration error naming the path', async () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, 'not a directory')
    const path = join(file, 'journal.sqlite')
    const e = await openJournalDb({ kind: 'sqlite', path }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ConfigError)
    expect((e as ConfigError).shortMessage).toContain(path)
  })

  it('a file that is not a database is a configuration error naming the path', async () => {
    const path = join(dir, 'garbage.sqlite')
    writeFileSync(path, 'x'.repeat(4096))
    const e = await openJournalDb({ kind: 'sqlite', path }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ConfigError)
    expect((e as ConfigError).shortMessage).toContain(path)
  })

  it.runIf(process.getuid?.() !== 0)(
    'a read-only SQLite file is a configuration error naming the path',
    async () => {
      const path = join(dir, 'ro.sqlite')
      const db = await openJournalDb({ kind: 'sqlite', path })
      await db.close()
      chmodSync(path, 0o444)
      const e = await openJournalDb({ kind: 'sqlite', path }).catch((x: unknown) => x)
      expect(e).toBeInstanceOf(ConfigError)
      expect((e as ConfigError).shortMessage).toContain(path)
    },
  )

  it('the report opens a missing journal as a clear error, never creating one', async () => {
    const path = join(dir, 'none', 'journal-live.sqlite')
    const e = await openJournalDb({ kind: 'sqlite', path }, { readonly: true }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ConfigError)
    expect((e as ConfigError).shortMessage).toBe(`no journal at ${path} (the bot writes it when it runs)`)
  })

  it('an unreachable PostgreSQL is a configuration error with the URL but not its password', async () => {
    // A port nothing listens on (bound then closed).
    const { createServer } = await import('node:net')
    const port = await new Promise<number>((r) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const a = s.address()
        s.close(() => r(typeof a === 'object' && a ? a.port : 1))
      })
    })
    const url = `postgres://bot:s3cretpw@127.0.0.1:${port}/perpbot`
    const e = await openJournalDb({ kind: 'postgres', url }, { connectTimeoutMs: 1_000 }).catch(
      (x: unknown) => x,
    )
    expect(e).toBeInstanceOf(ConfigError)
    const text = `${(e as ConfigError).message}`
    expect(text).toContain(`postgres://bot:***@127.0.0.1:${port}/perpbot`)
    expect(text).not.toContain('s3cretpw')
  })
})
