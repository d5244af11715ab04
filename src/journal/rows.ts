/**
 * Records → table rows (pure), and the one batch write: every row of a batch in one transaction, each
 * table's rows in a few multi-row inserts keyed so a retried batch changes nothing (`on conflict do
 * nothing` for what happened once: fills, funding, commands, alerts; `do update` for what moves on:
 * a run's stop, a transfer's status, a minute's snapshot, a state value).
 */
import type { Kysely, Transaction } from 'kysely'
import { compareDecimal } from '../decimal.ts'
import type {
  AlertsTable,
  CommandsTable,
  EquityTable,
  FillMidsTable,
  FillsTable,
  FundingTable,
  JournalDatabase,
  OrderEventsTable,
  PnlSnapshotsTable,
  RunsTable,
  StateTable,
  TransfersTable,
} from './schema/tables.ts'

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
  | { table: 'equity'; row: EquityTable }
  | { table: 'fill_mids'; row: FillMidsTable }

export type JournalTableName = JournalRow['table']

/** Rows a lost database may drop first: the venue cannot give them back, but nothing is rebuilt from them. */
export const BULK_TABLES: ReadonlySet<JournalTableName> = new Set([
  'commands',
  'order_events',
  'pnl_snapshots',
  'equity',
  // Markout mids: no figure the venue reconciles is rebuilt from them.
  'fill_mids',
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
  equity: EquityTable[]
  fill_mids: FillMidsTable[]
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
    equity: [],
    fill_mids: [],
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
      case 'equity':
        g.equity.push(r.row)
        break
      case 'fill_mids':
        g.fill_mids.push(r.row)
        break
    }
  }
  return g
}

/**
 * A row the venue reported that the journal did not take: its key (account, venue, ids, time) is
 * already held by a row with other content. Never dropped silently: the journal counts and logs it.
 */
export interface RefusedRow {
  table: 'fills' | 'funding'
  /** The key, readable: `trade t1 / order 5 at 2026-…`. */
  key: string
  /** Which fields differ: `price 100.5 ≠ 101`. */
  differs: string
}

export interface WriteResult {
  newFills: number
  refused: RefusedRow[]
}

const sameDecimal = (a: string, b: string): boolean => {
  try {
    return compareDecimal(a, b) === 0
  } catch {
    return a === b
  }
}

/** The fields of a journaled fill that a repeat of the same fill must carry unchanged. */
export function fillDifference(
  held: Pick<FillsTable, 'iid' | 'side' | 'price' | 'qty' | 'fee' | 'realized_pnl' | 'liquidation'>,
  next: Pick<FillsTable, 'iid' | 'side' | 'price' | 'qty' | 'fee' | 'realized_pnl' | 'liquidation'>,
): string | undefined {
  const d: string[] = []
  if (Number(held.iid) !== Number(next.iid)) d.push(`instrument ${held.iid} ≠ ${next.iid}`)
  if (held.side !== next.side) d.push(`side ${held.side} ≠ ${next.side}`)
  for (const k of ['price', 'qty', 'fee', 'realized_pnl'] as const)
    if (!sameDecimal(held[k], next[k])) d.push(`${k} ${held[k]} ≠ ${next[k]}`)
  if (Number(held.liquidation) !== Number(next.liquidation)) d.push('liquidation flag')
  return d.length === 0 ? undefined : d.join(', ')
}

export function fundingDifference(
  held: Pick<FundingTable, 'iid' | 'amount' | 'size'>,
  next: Pick<FundingTable, 'iid' | 'amount' | 'size'>,
): string | undefined {
  const d: string[] = []
  if (Number(held.iid) !== Number(next.iid)) d.push(`instrument ${held.iid} ≠ ${next.iid}`)
  for (const k of ['amount', 'size'] as const)
    if (!sameDecimal(held[k], next[k])) d.push(`${k} ${held[k]} ≠ ${next[k]}`)
  return d.length === 0 ? undefined : d.join(', ')
}

const fillKey = (r: Pick<FillsTable, 'account' | 'venue' | 'trade_id' | 'order_id' | 'ts'>): string =>
  `${r.account}|${r.venue}|${r.trade_id}|${Number(r.order_id)}|${Number(r.ts)}`
const fundingKey = (r: Pick<FundingTable, 'account' | 'venue' | 'key' | 'ts'>): string =>
  `${r.account}|${r.venue}|${r.key}|${Number(r.ts)}`

/** The fills of a chunk that did not go in: refused when the row held under their key differs. */
async function refusedFills(
  tx: Transaction<JournalDatabase>,
  chunk: readonly FillsTable[],
  inserted: ReadonlySet<string>,
): Promise<RefusedRow[]> {
  const out: RefusedRow[] = []
  for (const r of chunk) {
    if (inserted.has(fillKey(r))) continue
    const held = await tx
      .selectFrom('fills')
      .select(['iid', 'side', 'price', 'qty', 'fee', 'realized_pnl', 'liquidation'])
      .where('account', '=', r.account)
      .where('venue', '=', r.venue)
      .where('trade_id', '=', r.trade_id)
      .where('order_id', '=', r.order_id)
      .where('ts', '=', r.ts)
      .executeTakeFirst()
    const differs = held === undefined ? undefined : fillDifference(held, r)
    if (differs !== undefined)
      out.push({
        table: 'fills',
        key: `trade ${r.trade_id} / order ${r.order_id} at ${new Date(Number(r.ts)).toISOString()}`,
        differs,
      })
  }
  return out
}

async function refusedFunding(
  tx: Transaction<JournalDatabase>,
  chunk: readonly FundingTable[],
  inserted: ReadonlySet<string>,
): Promise<RefusedRow[]> {
  const out: RefusedRow[] = []
  for (const r of chunk) {
    if (inserted.has(fundingKey(r))) continue
    const held = await tx
      .selectFrom('funding')
      .select(['iid', 'amount', 'size'])
      .where('account', '=', r.account)
      .where('venue', '=', r.venue)
      .where('key', '=', r.key)
      .where('ts', '=', r.ts)
      .executeTakeFirst()
    const differs = held === undefined ? undefined : fundingDifference(held, r)
    if (differs !== undefined)
      out.push({
        table: 'funding',
        key: `funding ${r.key} at ${new Date(Number(r.ts)).toISOString()}`,
        differs,
      })
  }
  return out
}

/**
 * Writes one batch in one transaction; returns how many fills were new and the fills and funding
 * rows refused (their key held by a row with other content).
 */
export async function writeRows(
  db: Kysely<JournalDatabase>,
  rows: readonly JournalRow[],
): Promise<WriteResult> {
  const g = groupRows(rows)
  return db.transaction().execute(async (tx) => {
    let newFills = 0
    const refused: RefusedRow[] = []
    for (const c of chunks(lastPerKey(g.runs, (r) => r.run_id)))
      await tx
        .insertInto('runs')
        .values(c)
        .onConflict((oc) =>
          oc.column('run_id').doUpdateSet((eb) => ({
            stopped_at: eb.ref('excluded.stopped_at'),
            stop_reason: eb.ref('excluded.stop_reason'),
            // A run's start may be written before its account was known (a bind after connect).
            account: eb.ref('excluded.account'),
            venue: eb.ref('excluded.venue'),
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
      const inserted = await tx
        .insertInto('fills')
        .values(c)
        .onConflict((oc) => oc.columns(['account', 'venue', 'trade_id', 'order_id', 'ts']).doNothing())
        .returning(['account', 'venue', 'trade_id', 'order_id', 'ts'])
        .execute()
      newFills += inserted.length
      if (inserted.length < c.length)
        refused.push(...(await refusedFills(tx, c, new Set(inserted.map(fillKey)))))
    }
    for (const c of chunks(g.funding)) {
      const inserted = await tx
        .insertInto('funding')
        .values(c)
        .onConflict((oc) => oc.columns(['account', 'venue', 'key', 'ts']).doNothing())
        .returning(['account', 'venue', 'key', 'ts'])
        .execute()
      if (inserted.length < c.length)
        refused.push(...(await refusedFunding(tx, c, new Set(inserted.map(fundingKey)))))
    }
    for (const c of chunks(lastPerKey(g.transfers, (r) => `${r.account}:${r.venue}:${r.kind}:${r.id}`)))
      await tx
        .insertInto('transfers')
        .values(c)
        .onConflict((oc) =>
          oc.columns(['account', 'venue', 'kind', 'id']).doUpdateSet((eb) => ({
            status: eb.ref('excluded.status'),
            amount: eb.ref('excluded.amount'),
            fee: eb.ref('excluded.fee'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute()
    for (const c of chunks(
      lastPerKey(g.pnl_snapshots, (r) => `${r.account}:${r.venue}:${r.minute}:${r.iid}`),
    ))
      await tx
        .insertInto('pnl_snapshots')
        .values(c)
        .onConflict((oc) =>
          oc.columns(['account', 'venue', 'minute', 'iid']).doUpdateSet((eb) => ({
            position: eb.ref('excluded.position'),
            realized_pnl: eb.ref('excluded.realized_pnl'),
            unrealized_pnl: eb.ref('excluded.unrealized_pnl'),
            fees: eb.ref('excluded.fees'),
            funding: eb.ref('excluded.funding'),
            volume: eb.ref('excluded.volume'),
            fills: eb.ref('excluded.fills'),
            mode: eb.ref('excluded.mode'),
            inventory_pnl: eb.ref('excluded.inventory_pnl'),
            span_ms: eb.ref('excluded.span_ms'),
          })),
        )
        .execute()
    for (const c of chunks(g.alerts))
      await tx
        .insertInto('alerts')
        .values(c)
        .onConflict((oc) => oc.columns(['account', 'venue', 'key', 'at', 'resolved']).doNothing())
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
    for (const c of chunks(g.equity))
      await tx
        .insertInto('equity')
        .values(c)
        .onConflict((oc) => oc.columns(['account', 'venue', 'at']).doNothing())
        .execute()
    for (const c of chunks(g.fill_mids))
      await tx
        .insertInto('fill_mids')
        .values(c)
        .onConflict((oc) =>
          oc.columns(['account', 'venue', 'trade_id', 'order_id', 'fill_ts', 'horizon_ms']).doNothing(),
        )
        .execute()
    return { newFills, refused }
  })
}
