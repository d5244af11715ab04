/**
 * The journal's SQLite reads off the bot's thread (issue 34 point 6): a Kysely handle whose queries
 * run on a worker thread (`sqliteReader.worker.mjs`, a read-only connection to the same WAL file).
 * better-sqlite3 is synchronous: on the main handle a read of a journal of a million fills held the
 * event loop (and `/livez`, and a price move) for the whole statement. Selects only, no transactions:
 * the reads that can be large (the PnL baseline at start, `/history`, the equity curve) go here; the
 * writer's, the reconcile's and retention's statements stay on the main handle or the writer thread.
 */
import { Worker } from 'node:worker_threads'
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely'
import type { JournalDatabase } from '../schema/tables.ts'
import { sqlitePackage } from './sqliteDriver.ts'

/** What the reader thread did, for tests and benches: statements run and the largest answer. */
export interface ReaderStats {
  queries: number
  rows: number
  maxRows: number
}

export interface SqliteReaderThread {
  /** Runs one select on the thread; resolves with its rows (the caller's row type: SQLite's answer to its columns). */
  all<R>(sql: string, parameters: readonly unknown[]): Promise<R[]>
  stats(): ReaderStats
  close(): Promise<void>
}

type Reply<R = unknown> = { id: number; rows?: R[]; error?: string; closed?: boolean }
/** A request's settlement (method syntax: each request resolves with its own row type). */
interface Pending {
  resolve(reply: Reply): void
  reject(e: Error): void
}

export function startSqliteReaderThread(path: string): SqliteReaderThread {
  // The same build of better-sqlite3 as the main handle (sqliteDriver.ts).
  const worker = new Worker(new URL('./sqliteReader.worker.mjs', import.meta.url), {
    workerData: { path, driver: sqlitePackage() },
  })
  // A pending read keeps its caller waiting, not the process.
  worker.unref()
  const waiting = new Map<number, Pending>()
  const stats: ReaderStats = { queries: 0, rows: 0, maxRows: 0 }
  let next = 0
  let dead: Error | undefined
  const failAll = (e: Error): void => {
    dead = e
    for (const w of waiting.values()) w.reject(e)
    waiting.clear()
  }
  worker.on('message', (r: Reply) => {
    const w = waiting.get(r.id)
    waiting.delete(r.id)
    w?.resolve(r)
  })
  worker.on('error', (e) => failAll(e))
  worker.on('exit', (code) => failAll(new Error(`the journal's reader thread exited (code ${code})`)))
  const ask = <R>(message: object): Promise<Reply<R>> => {
    if (dead !== undefined) return Promise.reject(dead)
    const id = ++next
    return new Promise<Reply<R>>((resolve, reject) => {
      waiting.set(id, { resolve: (r: Reply<R>) => resolve(r), reject })
      worker.postMessage({ id, ...message })
    })
  }
  let closing: Promise<void> | undefined
  return {
    async all<R>(sql: string, parameters: readonly unknown[]) {
      const r = await ask<R>({ sql, parameters })
      if (r.error !== undefined) throw new Error(r.error)
      const rows = r.rows ?? []
      stats.queries += 1
      stats.rows += rows.length
      stats.maxRows = Math.max(stats.maxRows, rows.length)
      return rows
    },
    stats: () => ({ ...stats }),
    close() {
      closing ??= (async () => {
        if (dead === undefined) await ask({ close: true }).catch(() => undefined)
        await worker.terminate()
      })()
      return closing
    },
  }
}

class ReaderConnection implements DatabaseConnection {
  readonly #thread: SqliteReaderThread
  constructor(thread: SqliteReaderThread) {
    this.#thread = thread
  }
  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: await this.#thread.all<R>(q.sql, q.parameters) }
  }
  // biome-ignore lint/correctness/useYield: streaming is not offered by the reader thread
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the journal reader thread does not stream')
  }
}

class ReaderDriver implements Driver {
  readonly #thread: SqliteReaderThread
  readonly #connection: ReaderConnection
  constructor(thread: SqliteReaderThread) {
    this.#thread = thread
    this.#connection = new ReaderConnection(thread)
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the journal reader thread runs no transactions')
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.#thread.close()
  }
}

/** A Kysely handle over the reader thread (SQLite's SQL; selects only). */
export function readerKysely(thread: SqliteReaderThread): Kysely<JournalDatabase> {
  return new Kysely<JournalDatabase>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new ReaderDriver(thread),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  })
}
