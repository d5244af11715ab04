/**
 * The journal's SQLite batch writes on a worker thread (`sqliteWriter.worker.mjs`, its own
 * connection to the same WAL file): better-sqlite3 is synchronous, so on the bot's thread a batch's
 * transaction held the event loop (and a price move arriving then) for its whole length. The bot's
 * thread now only hands the batch over (a structured clone of plain rows); reads, the reconcile's
 * inserts and retention stay on the main connection. A failed write rejects (the batch writer keeps
 * the rows and retries); a dead worker fails every later write the same way.
 */
import { Worker } from 'node:worker_threads'
import type { JournalRow, RefusedRow, WriteResult } from '../rows.ts'
import { sqlitePackage } from './sqliteDriver.ts'

export interface SqliteWriterThread {
  /** Writes one batch in one transaction on the worker; resolves with the new fills and refused rows. */
  write(rows: readonly JournalRow[]): Promise<WriteResult>
  /** Closes the worker's connection and ends the thread. */
  close(): Promise<void>
}

type Reply = { id: number; newFills?: number; refused?: RefusedRow[]; error?: string; closed?: boolean }

export function startSqliteWriterThread(path: string): SqliteWriterThread {
  // The same build of better-sqlite3 as the main handle (sqliteDriver.ts: 13.x on Node 22+, 12.x on 20).
  const worker = new Worker(new URL('./sqliteWriter.worker.mjs', import.meta.url), {
    workerData: { path, driver: sqlitePackage() },
    // Plain JavaScript: none of the parent's loaders (tsx under the benches and tests: ~8 MB of rss a thread).
    execArgv: [],
  })
  // The journal's writer waits on it; the process need not.
  worker.unref()
  const waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>()
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
  worker.on('exit', (code) => failAll(new Error(`the journal's writer thread exited (code ${code})`)))
  const ask = (message: object): Promise<Reply> => {
    if (dead !== undefined) return Promise.reject(dead)
    const id = ++next
    return new Promise<Reply>((resolve, reject) => {
      waiting.set(id, { resolve, reject })
      worker.postMessage({ id, ...message })
    })
  }
  let closing: Promise<void> | undefined
  return {
    async write(rows) {
      const r = await ask({ rows })
      if (r.error !== undefined) throw new Error(r.error)
      return { newFills: r.newFills ?? 0, refused: r.refused ?? [] }
    },
    close() {
      closing ??= (async () => {
        if (dead === undefined) await ask({ close: true }).catch(() => undefined)
        await worker.terminate()
      })()
      return closing
    },
  }
}
