/**
 * Records → table rows (pure), and the one batch write: every row of a batch in one transaction, each
 * table's rows in a few multi-row inserts keyed so a retried batch changes nothing (`on conflict do
 * nothing` for what happened once: fills, funding, commands, alerts; `do update` for what moves on:
 * a run's stop, a transfer's status, a minute's snapshot, a state value).
 */
import type { Kysely } from 'kysely'
import type {
  AlertsTable,
  CommandsTable,
  FillsTable,
  FundingTable,
  JournalDatabase,
  OrderEventsTable,
  PnlSnapshotsTable,
  RunsTable,
  StateTable,
  TransfersTable,
} from './tables.ts'

export type JournalRow =
  | { table: 'runs'; row: RunsTable }
  | { table: 'commands'; row: CommandsTable }
  | { table: 'order_events'; row: OrderEventsTable }
  | { table: 'fills'; row: FillsTable }
  | { table: 'funding'; row: FundingTable }
  | { table: 'transfers'; row: TransfersTable }
  | { table: 'pnl_snapshots'; row: PnlSnapshotsTable }
  | { table: 'alerts'; row: AlertsTable }
  | { table: 'state'; row: StateTable }

export type JournalTableName = JournalRow['table']

/** Rows a lost database may drop first: the venue cannot give them back, but nothing is rebuilt from them. */
export const BULK_TABLES: ReadonlySet<JournalTableName> = new Set([
  'commands',
  'order_events',
  'pnl_snapshots',
])

/** Rows per insert statement: under SQLite's bound-variable limit at 14 columns, and short on PostgreSQL. */
const CHUNK = 200

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK))
  return out
}

/** The last row per key: PostgreSQL refuses an upsert that touches one row twice in a statement. */
function lastPerKey<T>(rows: readonly T[], key: (r: T) => string): T[] {
  const m = new Map<string, T>()
  for (const r of rows) m.set(key(r), r)
  return [...m.values()]
}

interface Grouped {
  runs: RunsTable[]
  commands: CommandsTable[]
  order_events: OrderEventsTable[]
  fills: FillsTable[]
  funding: FundingTable[]
  transfers: TransfersTable[]
  pnl_snapshots: PnlSnapshotsTable[]
  alerts: AlertsTable[]
  state: StateTable[]
}

export function groupRows(rows: readonly JournalRow[]): Grouped {
  const g: Grouped = {
    runs: [],
    commands: [],
    order_events: [],
    fills: [],
    funding: [],
    transfers: [],
    pnl_snapshots: [],
    alerts: [],
    state: [],
  }
  for (const r of rows) {
    switch (r.table) {
      case 'runs':
        g.runs.push(r.row)
        break
      case 'commands':
        g.commands.push(r.row)
        break
      case 'order_events':
        g.order_events.push(r.row)
        break
      case 'fills':
        g.fills.push(r.row)
        break
      case 'funding':
        g.funding.push(r.row)
        break
      case 'transfers':
        g.transfers.push(r.row)
        break
      case 'pnl_snapshots':
        g.pnl_snapshots.push(r.row)
        break
      case 'alerts':
        g.alerts.push(r.row)
        break
      case 'state':
        g.state.push(r.row)
        break
    }
  }
  return g
}

/** Writes one batch in one transaction; returns the number of fills that were new. */
export async function writeRows(db: Kysely<JournalDatabase>, rows: readonly JournalRow[]): Promise<number> {
  const g = groupRows(rows)
  return db.transaction().execute(async (tx) => {
    let newFills = 0
    for (const c of chunks(lastPerKey(g.runs, (r) => r.run_id)))
      await tx
        .insertInto('runs')
        .values(c)
        .onConflict((oc) =>
          oc.column('run_id').doUpdateSet((eb) => ({
            stopped_at: eb.ref('excluded.stopped_at'),
            stop_reason: eb.ref('excluded.stop_reason'),
          })),
        )
        .execute()
    for (const c of chunks(g.commands))
      await tx
        .insertInto('commands')
        .values(c)
        .onConflict((oc) => oc.columns(['run_id', 'seq']).doNothing())
        .execute()
    for (const c of chunks(g.order_events))
      await tx
        .insertInto('order_events')
        .values(c)
        .onConflict((oc) => oc.columns(['run_id', 'seq']).doNothing())
        .execute()
    for (const c of chunks(g.fills)) {
      const r = await tx
        .insertInto('fills')
        .values(c)
        .onConflict((oc) => oc.columns(['venue', 'trade_id', 'order_id']).doNothing())
        .executeTakeFirst()
      newFills += Number(r.numInsertedOrUpdatedRows ?? 0n)
    }
    for (const c of chunks(g.funding))
      await tx
        .insertInto('funding')
        .values(c)
        .onConflict((oc) => oc.columns(['venue', 'key']).doNothing())
        .execute()
    for (const c of chunks(lastPerKey(g.transfers, (r) => `${r.venue}:${r.kind}:${r.id}`)))
      await tx
        .insertInto('transfers')
        .values(c)
        .onConflict((oc) =>
          oc.columns(['venue', 'kind', 'id']).doUpdateSet((eb) => ({
            status: eb.ref('excluded.status'),
            amount: eb.ref('excluded.amount'),
            fee: eb.ref('excluded.fee'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute()
    for (const c of chunks(lastPerKey(g.pnl_snapshots, (r) => `${r.venue}:${r.minute}:${r.iid}`)))
      await tx
        .insertInto('pnl_snapshots')
        .values(c)
        .onConflict((oc) =>
          oc.columns(['venue', 'minute', 'iid']).doUpdateSet((eb) => ({
            position: eb.ref('excluded.position'),
            realized_pnl: eb.ref('excluded.realized_pnl'),
            unrealized_pnl: eb.ref('excluded.unrealized_pnl'),
            fees: eb.ref('excluded.fees'),
            funding: eb.ref('excluded.funding'),
            volume: eb.ref('excluded.volume'),
            fills: eb.ref('excluded.fills'),
            mode: eb.ref('excluded.mode'),
          })),
        )
        .execute()
    for (const c of chunks(g.alerts))
      await tx
        .insertInto('alerts')
        .values(c)
        .onConflict((oc) => oc.columns(['key', 'at', 'resolved']).doNothing())
        .execute()
    for (const c of chunks(lastPerKey(g.state, (r) => r.name)))
      await tx
        .insertInto('state')
        .values(c)
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), at: eb.ref('excluded.at') })),
        )
        .execute()
    return newFills
  })
}
