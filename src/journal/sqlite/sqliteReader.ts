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
  /** Threads started so far (one per stretch of reads: it ends when idle). */
  starts: number
  /** A thread is up now. */
  running: boolean
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

/**
 * How long the reader thread lives with nothing to read: it holds ~8 MB of rss (an isolate and a
 * SQLite connection), and the bot reads large only at start and when an operator asks (`/history`,
 * the equity curve); the next read starts it again (tens of ms, off the order path).
 */
export const READER_IDLE_MS = 30_000

/** The reader thread, started at the first read and ended after `idleMs` with no read pending. */
export function startSqliteReaderThread(path: string, idleMs = READER_IDLE_MS): SqliteReaderThread {
  const waiting = new Map<number, Pending>()
  const stats = { queries: 0, rows: 0, maxRows: 0, starts: 0 }
  let next = 0
  let dead: Error | undefined
  let worker: Worker | undefined
  let idle: ReturnType<typeof setTimeout> | undefined
  let closing: Promise<void> | undefined
  const failAll = (e: Error): void => {
    dead = e
    for (const w of waiting.values()) w.reject(e)
    waiting.clear()
  }
  const start = (): Worker => {
    stats.starts += 1
    // The same build of better-sqlite3 as the main handle (sqliteDriver.ts).
    const w = new Worker(new URL('./sqliteReader.worker.mjs', import.meta.url), {
      workerData: { path, driver: sqlitePackage() },
      // Plain JavaScript: none of the parent's loaders (tsx under the benches and tests: ~8 MB of rss a thread).
      execArgv: [],
    })
    // A pending read keeps its caller waiting, not the process.
    w.unref()
    w.on('message', (r: Reply) => {
      const p = waiting.get(r.id)
      waiting.delete(r.id)
      p?.resolve(r)
      if (waiting.size === 0 && closing === undefined) rest()
    })
    w.on('error', (e) => failAll(e))
    w.on('exit', (code) => {
      // Ended when idle: the next read starts another.
      if (w !== worker) return
      worker = undefined
      failAll(new Error(`the journal's reader thread exited (code ${code})`))
    })
    return w
  }
  /** Nothing pending: the thread ends unless a read comes within `idleMs`. */
  const rest = (): void => {
    clearTimeout(idle)
    idle = setTimeout(() => {
      const w = worker
      if (w === undefined || waiting.size > 0) return
      worker = undefined
      void w.terminate()
    }, idleMs)
    idle.unref()
  }
  const ask = <R>(message: object): Promise<Reply<R>> => {
    if (dead !== undefined) return Promise.reject(dead)
    clearTimeout(idle)
    worker ??= start()
    const w = worker
    const id = ++next
    return new Promise<Reply<R>>((resolve, reject) => {
      waiting.set(id, { resolve: (r: Reply<R>) => resolve(r), reject })
      w.postMessage({ id, ...message })
    })
  }
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
    stats: () => ({ ...stats, running: worker !== undefined }),
    close() {
      closing ??= (async () => {
        clearTimeout(idle)
        const w = worker
        if (w === undefined) return
        if (dead === undefined) await ask({ close: true }).catch(() => undefined)
        worker = undefined
        await w.terminate()
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
