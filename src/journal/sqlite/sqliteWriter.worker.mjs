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
  runs: { key: ['run_id'], update: ['stopped_at', 'stop_reason', 'account', 'venue'] },
  commands: { key: ['run_id', 'seq'], update: [] },
  order_events: { key: ['run_id', 'seq'], update: [] },
  fills: { key: ['account', 'venue', 'trade_id', 'order_id', 'ts'], update: [] },
  funding: { key: ['account', 'venue', 'key', 'ts'], update: [] },
  transfers: { key: ['account', 'venue', 'kind', 'id'], update: ['status', 'amount', 'fee', 'updated_at'] },
  pnl_snapshots: {
    key: ['account', 'venue', 'minute', 'iid'],
    update: [
      'position',
      'realized_pnl',
      'unrealized_pnl',
      'fees',
      'funding',
      'volume',
      'fills',
      'mode',
      'inventory_pnl',
      'span_ms',
    ],
  },
  alerts: { key: ['account', 'venue', 'key', 'at', 'resolved'], update: [] },
  state: { key: ['name'], update: ['value', 'at'] },
  equity: { key: ['account', 'venue', 'at'], update: [] },
  fill_mids: { key: ['account', 'venue', 'trade_id', 'order_id', 'fill_ts', 'horizon_ms'], update: [] },
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

/** A decimal string without its sign noise and trailing zeros ('1.50' and '1.5' are one amount). */
function canon(s) {
  let t = String(s).replace(/^\+/, '')
  if (t.includes('.')) t = t.replace(/0+$/, '').replace(/\.$/, '')
  t = t.replace(/^(-?)0+(?=\d)/, '$1')
  return t === '-0' ? '0' : t
}

// The fields a repeat of the same fill or funding row must carry unchanged (rows.ts's fillDifference).
const COMPARED = {
  fills: { exact: ['iid', 'side', 'liquidation'], amounts: ['price', 'qty', 'fee', 'realized_pnl'] },
  funding: { exact: ['iid'], amounts: ['amount', 'size'] },
}
const held = {
  fills: () =>
    db.prepare(
      'select iid, side, price, qty, fee, realized_pnl, liquidation from fills where account = @account and venue = @venue and trade_id = @trade_id and order_id = @order_id and ts = @ts',
    ),
  funding: () =>
    db.prepare(
      'select iid, amount, size from funding where account = @account and venue = @venue and key = @key and ts = @ts',
    ),
}
const heldStatements = new Map()

/** A fill or funding row not inserted: refused when the row held under its key differs. */
function refusal(table, row) {
  let s = heldStatements.get(table)
  if (s === undefined) {
    s = held[table]()
    heldStatements.set(table, s)
  }
  const names =
    table === 'fills' ? ['account', 'venue', 'trade_id', 'order_id', 'ts'] : ['account', 'venue', 'key', 'ts']
  const h = s.get(Object.fromEntries(names.map((n) => [n, row[n]])))
  if (h === undefined) return undefined
  const c = COMPARED[table]
  const d = []
  for (const k of c.exact) if (String(h[k]) !== String(row[k])) d.push(`${k} ${h[k]} ≠ ${row[k]}`)
  for (const k of c.amounts) if (canon(h[k]) !== canon(row[k])) d.push(`${k} ${h[k]} ≠ ${row[k]}`)
  if (d.length === 0) return undefined
  const at = new Date(Number(row.ts)).toISOString()
  return {
    table,
    key:
      table === 'fills'
        ? `trade ${row.trade_id} / order ${row.order_id} at ${at}`
        : `funding ${row.key} at ${at}`,
    differs: d.join(', '),
  }
}

const writeBatch = db.transaction((rows) => {
  let newFills = 0
  const refused = []
  for (const { table, row } of rows) {
    const r = statement(table, Object.keys(row)).run(row)
    if (table === 'fills') newFills += r.changes
    if (r.changes === 0 && (table === 'fills' || table === 'funding')) {
      const x = refusal(table, row)
      if (x !== undefined) refused.push(x)
    }
  }
  return { newFills, refused }
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
    const { newFills, refused } = writeBatch(m.rows)
    parentPort?.postMessage({ id: m.id, newFills, refused, ms: performance.now() - t0 })
  } catch (e) {
    parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) })
  }
})
