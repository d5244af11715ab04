// The journal's SQLite writes on a worker thread (sqliteWriter.ts): better-sqlite3 runs synchronously,
// so a batch written on the bot's thread held its event loop for the whole transaction. Each message
// is one batch of rows already validated and mapped by the journal (rows.ts's `JournalRow`), written
// in one transaction with the same conflict rules as rows.ts (kept in step by the journal tests,
// which run the same cases through this worker on SQLite and through rows.ts on PostgreSQL).
// Plain JavaScript: a worker thread does not inherit the TypeScript loader under every runner.
import { createRequire } from 'node:module'
import { parentPort, workerData } from 'node:worker_threads'

// The package the main thread chose for this Node (sqliteDriver.ts).
const Database = createRequire(import.meta.url)(workerData.driver)

/** Per table: the conflict target, and the columns an upsert moves (none: do nothing). */
const CONFLICT = {
  runs: { key: ['run_id'], update: ['stopped_at', 'stop_reason'] },
  commands: { key: ['run_id', 'seq'], update: [] },
  order_events: { key: ['run_id', 'seq'], update: [] },
  fills: { key: ['venue', 'trade_id', 'order_id'], update: [] },
  funding: { key: ['venue', 'key'], update: [] },
  transfers: { key: ['venue', 'kind', 'id'], update: ['status', 'amount', 'fee', 'updated_at'] },
  pnl_snapshots: {
    key: ['venue', 'minute', 'iid'],
    update: ['position', 'realized_pnl', 'unrealized_pnl', 'fees', 'funding', 'volume', 'fills', 'mode'],
  },
  alerts: { key: ['key', 'at', 'resolved'], update: [] },
  state: { key: ['name'], update: ['value', 'at'] },
}
const IDENT = /^[a-z_]+$/

const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('busy_timeout = 5000')
db.pragma('synchronous = NORMAL')

const statements = new Map()
function statement(table, columns) {
  const id = `${table}:${columns.join(',')}`
  let s = statements.get(id)
  if (s !== undefined) return s
  const c = CONFLICT[table]
  if (c === undefined || !columns.every((x) => IDENT.test(x)))
    throw new Error(`unknown journal table or column: ${id}`)
  const action =
    c.update.length === 0
      ? 'do nothing'
      : `do update set ${c.update.map((u) => `${u} = excluded.${u}`).join(', ')}`
  s = db.prepare(
    `insert into ${table} (${columns.join(', ')}) values (${columns.map((x) => `@${x}`).join(', ')}) on conflict (${c.key.join(', ')}) ${action}`,
  )
  statements.set(id, s)
  return s
}

const writeBatch = db.transaction((rows) => {
  let newFills = 0
  for (const { table, row } of rows) {
    const r = statement(table, Object.keys(row)).run(row)
    if (table === 'fills') newFills += r.changes
  }
  return newFills
})

parentPort?.on('message', (m) => {
  if (m.close === true) {
    try {
      db.close()
    } finally {
      parentPort?.postMessage({ id: m.id, closed: true })
    }
    return
  }
  const t0 = performance.now()
  try {
    const newFills = writeBatch(m.rows)
    parentPort?.postMessage({ id: m.id, newFills, ms: performance.now() - t0 })
  } catch (e) {
    parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) })
  }
})
