// The journal's SQLite reads on a worker thread (sqliteReader.ts): better-sqlite3 runs synchronously,
// so a read of a large journal (the PnL baseline's pages at start, `/history`'s window) held the bot's
// event loop for as long as SQLite took. Each message is one compiled select (Kysely's SQL and its
// parameters); the reply is its rows. A read-only connection: a statement that writes is refused.
// Plain JavaScript: a worker thread does not inherit the TypeScript loader under every runner.
import { createRequire } from 'node:module'
import { parentPort, workerData } from 'node:worker_threads'

// The package the main thread chose for this Node (sqliteDriver.ts).
const Database = createRequire(import.meta.url)(workerData.driver)

const db = new Database(workerData.path, { readonly: true, fileMustExist: true })
db.pragma('busy_timeout = 5000')

/** Prepared statements by SQL text, bounded (the reads are a few dozen shapes). */
const statements = new Map()
function statement(text) {
  let s = statements.get(text)
  if (s !== undefined) return s
  s = db.prepare(text)
  if (!s.reader) throw new Error('the journal reader thread runs selects only')
  if (statements.size >= 256) statements.delete(statements.keys().next().value)
  statements.set(text, s)
  return s
}

parentPort?.on('message', (m) => {
  if (m.close === true) {
    try {
      db.close()
    } finally {
      parentPort?.postMessage({ id: m.id, closed: true })
    }
    return
  }
  try {
    const rows = statement(m.sql).all(m.parameters)
    parentPort?.postMessage({ id: m.id, rows })
  } catch (e) {
    parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) })
  }
})
