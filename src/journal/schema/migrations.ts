/**
 * Versioned, forward-only migrations (Kysely's Migrator: a `kysely_migration` table and a lock, the
 * same on SQLite and PostgreSQL). A migration is never edited once released: a change is a new entry.
 * Column types are ones both databases read alike (text, integer/bigint, no autoincrement: every row's
 * key is chosen by the writer, so a retried batch is idempotent).
 */
import {
  type CreateTableBuilder,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely'
import { JournalConfigError } from '../errors.ts'
import { v4AccountAndVenue } from './migrationAccount.ts'
import { v5FillMids } from './migrationFillMids.ts'
import type { JournalDatabase } from './tables.ts'

// biome-ignore lint/suspicious/noExplicitAny: migrations run on a schema-less handle by design
type AnyDb = Kysely<any>

async function v1Core(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('runs')
    .addColumn('run_id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('stopped_at', 'bigint')
    .addColumn('stop_reason', 'text')
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('config_hash', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('commands')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('latency_ms', 'real', (c) => c.notNull())
    .addColumn('weight', 'integer', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('items', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commands_pk', ['run_id', 'seq'])
    .execute()
  await db.schema.createIndex('commands_ts').on('commands').column('ts').execute()
  await db.schema
    .createTable('order_events')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('oid', 'bigint')
    .addColumn('coid', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('price', 'text')
    .addColumn('qty', 'text')
    .addColumn('filled', 'text')
    .addPrimaryKeyConstraint('order_events_pk', ['run_id', 'seq'])
    .execute()
  await db.schema.createIndex('order_events_ts').on('order_events').column('ts').execute()
  await db.schema
    .createTable('fills')
    .addColumn('trade_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'bigint', (c) => c.notNull())
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.notNull())
    .addColumn('price', 'text', (c) => c.notNull())
    .addColumn('qty', 'text', (c) => c.notNull())
    .addColumn('taker', 'integer', (c) => c.notNull())
    .addColumn('fee', 'text', (c) => c.notNull())
    .addColumn('fee_asset', 'text', (c) => c.notNull())
    .addColumn('realized_pnl', 'text', (c) => c.notNull())
    .addColumn('liquidation', 'integer', (c) => c.notNull())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('coid', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    // One trade id per order side: both sides may be ours (a self-trade), so the key is the pair.
    .addPrimaryKeyConstraint('fills_pk', ['trade_id', 'order_id'])
    .execute()
  await db.schema.createIndex('fills_ts').on('fills').column('ts').execute()
  await db.schema
    .createTable('funding')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('size', 'text', (c) => c.notNull())
    .addColumn('rate', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('funding_ts').on('funding').column('ts').execute()
  await db.schema
    .createTable('transfers')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('fee', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('transfers_pk', ['kind', 'id'])
    .execute()
  await db.schema
    .createTable('pnl_snapshots')
    .addColumn('minute', 'bigint', (c) => c.notNull())
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('position', 'text', (c) => c.notNull())
    .addColumn('realized_pnl', 'text', (c) => c.notNull())
    .addColumn('unrealized_pnl', 'text', (c) => c.notNull())
    .addColumn('fees', 'text', (c) => c.notNull())
    .addColumn('funding', 'text', (c) => c.notNull())
    .addColumn('volume', 'text', (c) => c.notNull())
    .addColumn('fills', 'integer', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('pnl_snapshots_pk', ['minute', 'iid'])
    .execute()
}

/** Alert episodes (raised and resolved) and named restart state: what the JSON state files kept. */
async function v2AlertsAndState(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('resolved', 'integer', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('alerts_pk', ['key', 'at', 'resolved'])
    .execute()
  await db.schema.createIndex('alerts_at').on('alerts').column('at').execute()
  await db.schema
    .createTable('state')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute()
}

/**
 * Migration 3: the venue that numbered a row's ids (`venue`, '' for the real venue, whose trade ids,
 * order ids and withdrawal ids are global) joins the keys of fills, funding, transfers and snapshots.
 * Each dry run's embedded mock numbers from 1 again, so its rows carry `mock:<run id>` and a second
 * dry run's trade 1 no longer collides with the first's. SQLite cannot change a primary key in place:
 * each table is copied into a new one (rows kept, venue '') and renamed, the same on both databases.
 */
async function v3Venue(db: AnyDb): Promise<void> {
  const tables: { name: string; key: [string, ...string[]]; ts: string | undefined }[] = [
    { name: 'fills', key: ['venue', 'trade_id', 'order_id'], ts: 'ts' },
    { name: 'funding', key: ['venue', 'key'], ts: 'ts' },
    { name: 'transfers', key: ['venue', 'kind', 'id'], ts: undefined },
    { name: 'pnl_snapshots', key: ['venue', 'minute', 'iid'], ts: undefined },
  ]
  for (const t of tables) {
    const next = `${t.name}_v3`
    const columns = V3_COLUMNS[t.name] ?? []
    let create: CreateTableBuilder<string, string> = db.schema.createTable(next)
    for (const [name, type, notNull] of columns)
      create = create.addColumn(name, type, (c) => (notNull ? c.notNull() : c))
    await create
      .addColumn('venue', 'text', (c) => c.notNull().defaultTo(''))
      .addPrimaryKeyConstraint(`${t.name}_pk3`, t.key)
      .execute()
    const list = sql.join(columns.map(([name]) => sql.ref(name)))
    await sql`insert into ${sql.table(next)} (${list}) select ${list} from ${sql.table(t.name)}`.execute(db)
    await db.schema.dropTable(t.name).execute()
    await db.schema.alterTable(next).renameTo(t.name).execute()
    if (t.ts !== undefined)
      await db.schema.createIndex(`${t.name}_ts`).ifNotExists().on(t.name).column(t.ts).execute()
  }
  await db.schema.createIndex('pnl_snapshots_minute').on('pnl_snapshots').column('minute').execute()
}

type ColumnType = 'text' | 'bigint' | 'integer'
/** The columns of migration 1's tables, as migration 3 copies them (name, type, not null). */
const V3_COLUMNS: Record<string, readonly [string, ColumnType, boolean][]> = {
  fills: [
    ['trade_id', 'text', true],
    ['order_id', 'bigint', true],
    ['iid', 'integer', true],
    ['side', 'text', true],
    ['price', 'text', true],
    ['qty', 'text', true],
    ['taker', 'integer', true],
    ['fee', 'text', true],
    ['fee_asset', 'text', true],
    ['realized_pnl', 'text', true],
    ['liquidation', 'integer', true],
    ['ts', 'bigint', true],
    ['coid', 'text', false],
    ['source', 'text', true],
  ],
  funding: [
    ['key', 'text', true],
    ['iid', 'integer', true],
    ['size', 'text', true],
    ['rate', 'text', true],
    ['asset', 'text', true],
    ['amount', 'text', true],
    ['ts', 'bigint', true],
  ],
  transfers: [
    ['kind', 'text', true],
    ['id', 'text', true],
    ['asset', 'text', true],
    ['amount', 'text', true],
    ['fee', 'text', true],
    ['status', 'text', true],
    ['ts', 'bigint', true],
    ['updated_at', 'bigint', true],
  ],
  pnl_snapshots: [
    ['minute', 'bigint', true],
    ['iid', 'integer', true],
    ['position', 'text', true],
    ['realized_pnl', 'text', true],
    ['unrealized_pnl', 'text', true],
    ['fees', 'text', true],
    ['funding', 'text', true],
    ['volume', 'text', true],
    ['fills', 'integer', true],
    ['mode', 'text', true],
  ],
}

const up = (fn: (db: AnyDb) => Promise<void>): Migration => ({ up: fn })

/** In order; names sort as they apply. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_core': up(v1Core),
  '0002_alerts_and_state': up(v2AlertsAndState),
  '0003_venue': up(v3Venue),
  '0004_account_venue': up(v4AccountAndVenue),
  '0005_fill_mids': up(v5FillMids),
}
export const LATEST_MIGRATION = '0005_fill_mids'

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) }

/** Applies every pending migration (or up to `target`); a failure is a configuration error at start. */
export async function migrate(
  db: Kysely<JournalDatabase>,
  where: string,
  target?: string,
): Promise<string[]> {
  const migrator = new Migrator({ db, provider })
  const result = target === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(target)
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new JournalConfigError(`cannot migrate the journal at ${where} (migration ${failed})`, result.error)
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
