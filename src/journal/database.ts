/**
 * Opens the journal's database: SQLite (better-sqlite3, WAL) in `ops.stateDir` by default, PostgreSQL
 * (`pg`) when DATABASE_URL is a postgres:// URL; both behind one Kysely handle, so every query is
 * written once. Opening proves the database usable (reachable, migrated, writable) or throws a
 * `JournalConfigError` naming the file or the URL without its password.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely'
import { fieldOf } from '../guards.ts'
import { JournalConfigError, redactUrl } from './errors.ts'
import { type IntegrityProbe, postgresIntegrity, sqliteIntegrity } from './integrity.ts'
import { migrate } from './schema/migrations.ts'
import type { JournalDatabase } from './schema/tables.ts'
import { type SqliteHandle, sqliteDriver } from './sqlite/sqliteDriver.ts'
import { readerKysely, type SqliteReaderThread, startSqliteReaderThread } from './sqlite/sqliteReader.ts'
import { type SqliteWriterThread, startSqliteWriterThread } from './sqlite/sqliteWriter.ts'

export type JournalTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }

/**
 * Where a run journals: live runs use DATABASE_URL when set (postgres:// or postgresql://), else
 * `<stateDir>/journal-live.sqlite`; dry runs always a file of their own (`journal-dry-run.sqlite`): a
 * mock account's numbers never mix with money. A dry run on an accelerated mock clock (`--speed` ≠ 1,
 * `mock.clock: accelerated`) writes rows dated ahead of the wall: it has a file of its own too
 * (`journal-dry-run-accelerated.sqlite`), so real-time dry runs' windows never meet its future.
 */
export function journalTarget(o: {
  stateDir: string
  mode: 'live' | 'dry-run' | 'paper'
  env: Readonly<Record<string, string | undefined>>
  accelerated?: boolean | undefined
}): JournalTarget {
  const url = o.env.DATABASE_URL
  if (o.mode === 'live' && url !== undefined && url !== '') {
    if (!/^postgres(ql)?:\/\//.test(url))
      throw new JournalConfigError(`DATABASE_URL must be a postgres:// URL (got ${redactUrl(url)})`)
    return { kind: 'postgres', url }
  }
  const suffix = o.mode === 'dry-run' && o.accelerated === true ? '-accelerated' : ''
  return { kind: 'sqlite', path: resolve(o.stateDir, `journal-${o.mode}${suffix}.sqlite`) }
}

/** The target as it may be printed. */
export function describeTarget(t: JournalTarget): string {
  return t.kind === 'sqlite' ? t.path : redactUrl(t.url)
}

export interface JournalDb {
  readonly db: Kysely<JournalDatabase>
  /**
   * The handle for reads that can be large (the PnL baseline, `/history`, the equity curve): SQLite's
   * runs them on a reader thread (sqliteReader.ts), off the bot's event loop; PostgreSQL's is `db`
   * (its I/O is asynchronous). Selects only.
   */
  readonly reads: Kysely<JournalDatabase>
  /** SQLite: the reader thread behind `reads` (its statement counts), when there is one. */
  readonly readThread?: SqliteReaderThread | undefined
  readonly kind: JournalTarget['kind']
  /** The file or the URL without its password. */
  readonly where: string
  /** Bytes on disk (SQLite: the file and its WAL) or the database's size (PostgreSQL). */
  sizeBytes(): Promise<number>
  /**
   * SQLite: the journal's batches written on a worker thread (off the bot's event loop); undefined
   * where the main handle writes them (PostgreSQL's I/O is asynchronous already, or `writerThread: false`).
   */
  readonly writeThread?: SqliteWriterThread | undefined
  /** What is damaged now (integrity.ts: the file gone, its WAL corrupt, the disk full, the connection lost), or undefined. */
  integrity?: IntegrityProbe | undefined
  close(): Promise<void>
}

export interface OpenOptions {
  /** Reader only (`perpbot report`): never creates or migrates; the database must exist. */
  readonly?: boolean | undefined
  /** Apply migrations up to this one only (tests of upgrades). */
  migrateTo?: string | undefined
  /** Connection timeout for PostgreSQL, ms. */
  connectTimeoutMs?: number | undefined
  /** SQLite: write the journal's batches on a worker thread (default true; never for a reader). */
  writerThread?: boolean | undefined
  /** SQLite: large reads on a reader thread (default true; `false` reads on the main handle). */
  readerThread?: boolean | undefined
}

export async function openJournalDb(target: JournalTarget, options: OpenOptions = {}): Promise<JournalDb> {
  return target.kind === 'sqlite' ? openSqlite(target.path, options) : openPostgres(target.url, options)
}

async function openSqlite(path: string, options: OpenOptions): Promise<JournalDb> {
  if (options.readonly && !existsSync(path))
    throw new JournalConfigError(`no journal at ${path} (the bot writes it when it runs)`)
  let handle: SqliteHandle
  try {
    if (!options.readonly) mkdirSync(dirname(path), { recursive: true })
    const Database = sqliteDriver()
    handle = new Database(path, {
      readonly: options.readonly === true,
      fileMustExist: options.readonly === true,
    })
  } catch (e) {
    const missing = options.readonly && fieldOf(e, 'code') === 'SQLITE_CANTOPEN'
    throw new JournalConfigError(
      missing
        ? `no journal at ${path} (the bot writes it when it runs)`
        : `cannot open the journal at ${path}`,
      e,
    )
  }
  const db = new Kysely<JournalDatabase>({ dialect: new SqliteDialect({ database: handle }) })
  try {
    handle.pragma('busy_timeout = 5000')
    if (!options.readonly) {
      handle.pragma('journal_mode = WAL')
      // WAL + NORMAL: a commit survives a process crash (kill -9); only a power loss may lose the last ones.
      handle.pragma('synchronous = NORMAL')
      await migrate(db, path, options.migrateTo)
      // A write probe: a read-only file or directory fails here, at start, not on the first batch.
      handle.pragma(
        `user_version = ${(Number(handle.pragma('user_version', { simple: true })) + 1) % 1_000_000}`,
      )
    }
  } catch (e) {
    await db.destroy().catch(() => undefined)
    if (e instanceof JournalConfigError) throw e
    throw new JournalConfigError(`cannot use the journal at ${path} (read-only or not a database?)`, e)
  }
  const writeThread =
    options.readonly !== true && options.writerThread !== false ? startSqliteWriterThread(path) : undefined
  const readThread = options.readerThread !== false ? startSqliteReaderThread(path) : undefined
  const reads = readThread === undefined ? db : readerKysely(readThread)
  return {
    db,
    reads,
    readThread,
    kind: 'sqlite',
    where: path,
    writeThread,
    integrity: options.readonly === true ? undefined : sqliteIntegrity(path),
    async sizeBytes() {
      const size = (p: string): number => {
        try {
          return statSync(p).size
        } catch {
          return 0
        }
      }
      return size(path) + size(`${path}-wal`)
    },
    close: async () => {
      await writeThread?.close()
      if (reads !== db) await reads.destroy()
      await db.destroy()
    },
  }
}

async function openPostgres(url: string, options: OpenOptions): Promise<JournalDb> {
  const where = redactUrl(url)
  // Loaded only for PostgreSQL: a SQLite journal never needs the driver (~0.5 MB of heap at start).
  const { default: pg } = await import('pg')
  /** int8 as a number: our int8 columns are Unix ms and order ids, well inside 2^53. */
  const pgTypes = new pg.TypeOverrides()
  pgTypes.setTypeParser(20, (v: string) => Number(v))
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    types: pgTypes,
  })
  // An idle client's error (the server went away) must not crash the process; the writer sees it.
  pool.on('error', () => undefined)
  // Nor a checked-out client's: pg emits 'error' on a client whose connection dies even while its
  // query is being rejected (a failover, a terminated backend), and the pool listens only to idle
  // ones. The query's rejection still reaches the writer; the pool drops the dead client.
  pool.on('connect', (client) => client.on('error', () => undefined))
  const db = new Kysely<JournalDatabase>({ dialect: new PostgresDialect({ pool }) })
  try {
    await sql`select 1`.execute(db)
  } catch (e) {
    await db.destroy().catch(() => undefined)
    throw new JournalConfigError(`cannot reach the journal database at ${where}`, e)
  }
  try {
    if (!options.readonly) {
      await migrate(db, where, options.migrateTo)
      // A write probe: a read-only database (or a standby) fails here, at start.
      await db.transaction().execute(async (tx) => {
        await sql`select pg_current_xact_id()`.execute(tx)
      })
    }
  } catch (e) {
    await db.destroy().catch(() => undefined)
    if (e instanceof JournalConfigError) throw e
    throw new JournalConfigError(`cannot write the journal database at ${where} (read-only?)`, e)
  }
  return {
    db,
    reads: db,
    kind: 'postgres',
    where,
    integrity: options.readonly === true ? undefined : postgresIntegrity(db, where),
    async sizeBytes() {
      const r = await sql<{ size: number }>`select pg_database_size(current_database()) as size`.execute(db)
      return Number(r.rows[0]?.size ?? 0)
    },
    close: () => db.destroy(),
  }
}

/** A database file for tests and benches beside others in `dir`. */
export const sqliteTarget = (dir: string, name = 'journal.sqlite'): JournalTarget => ({
  kind: 'sqlite',
  path: join(dir, name),
})
