/**
 * Migration 4: every journal row names its account (the owner address the venue reports for our
 * credentials, lower case) and its venue (the exchange's EIP-712 domain, or `mock:<run id>` for an
 * embedded mock started for one run), so several accounts share one database without mixing books.
 *
 * Existing rows cannot know their account: they get `unknown` (kept apart; the bot claims them at
 * open when the journal names exactly one account key, see `journalScope.ts`). Commands and order
 * events take the venue of their run (a dry run's is `mock:<run id>`). A fill's key gains its time:
 * a venue whose ids restarted numbers a new trade with an old trade's ids, and both must be kept
 * (funding likewise). Snapshots gain the opening inventory's change in value and the span of the
 * minute the sample stands for (wall time the report counts); runs gain the clock's rate.
 *
 * SQLite cannot change a primary key in place: a table whose key changes is copied into a new one
 * and renamed (as migration 3 did), the same on both databases.
 */
import { type CreateTableBuilder, type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations run on a schema-less handle by design
type AnyDb = Kysely<any>

type ColumnType = 'text' | 'bigint' | 'integer' | 'real'
type Column = readonly [name: string, type: ColumnType, notNull: boolean]

/** The account of a row written before migration 4 (or before the bot knew its account). */
export const UNKNOWN_ACCOUNT = 'unknown'

const COLUMNS: Record<'alerts' | 'fills' | 'funding' | 'transfers' | 'pnl_snapshots', readonly Column[]> = {
  alerts: [
    ['key', 'text', true],
    ['at', 'bigint', true],
    ['resolved', 'integer', true],
    ['severity', 'text', true],
    ['title', 'text', true],
    ['message', 'text', true],
  ],
  fills: [
    ['venue', 'text', true],
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
    ['venue', 'text', true],
    ['key', 'text', true],
    ['iid', 'integer', true],
    ['size', 'text', true],
    ['rate', 'text', true],
    ['asset', 'text', true],
    ['amount', 'text', true],
    ['ts', 'bigint', true],
  ],
  transfers: [
    ['venue', 'text', true],
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
    ['venue', 'text', true],
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

/** Copies `name` into a table with the account (and venue, where missing) in its key; rows kept. */
async function rebuild(
  db: AnyDb,
  name: keyof typeof COLUMNS,
  key: readonly string[],
  extra: (c: CreateTableBuilder<string, string>) => CreateTableBuilder<string, string>,
  index: readonly string[] | undefined,
): Promise<void> {
  const next = `${name}_v4`
  const columns = COLUMNS[name]
  let create: CreateTableBuilder<string, string> = db.schema.createTable(next)
  for (const [column, type, notNull] of columns)
    create = create.addColumn(column, type, (c) => (notNull ? c.notNull() : c))
  create = create.addColumn('account', 'text', (c) => c.notNull().defaultTo(UNKNOWN_ACCOUNT))
  if (!columns.some(([c]) => c === 'venue'))
    create = create.addColumn('venue', 'text', (c) => c.notNull().defaultTo(''))
  await extra(create)
    .addPrimaryKeyConstraint(`${name}_pk4`, [...key])
    .execute()
  const list = sql.join(columns.map(([c]) => sql.ref(c)))
  await sql`insert into ${sql.table(next)} (${list}) select ${list} from ${sql.table(name)}`.execute(db)
  await db.schema.dropTable(name).execute()
  await db.schema.alterTable(next).renameTo(name).execute()
  if (index !== undefined)
    await db.schema
      .createIndex(`${name}_scope_${index.at(-1) ?? ''}`)
      .on(name)
      .columns([...index])
      .execute()
}

export async function v4AccountAndVenue(db: AnyDb): Promise<void> {
  const same = (c: CreateTableBuilder<string, string>) => c
  for (const table of ['runs', 'commands', 'order_events']) {
    await db.schema
      .alterTable(table)
      .addColumn('account', 'text', (c) => c.notNull().defaultTo(UNKNOWN_ACCOUNT))
      .execute()
    await db.schema
      .alterTable(table)
      .addColumn('venue', 'text', (c) => c.notNull().defaultTo(''))
      .execute()
  }
  await db.schema
    .alterTable('runs')
    .addColumn('clock_rate', 'real', (c) => c.notNull().defaultTo(1))
    .execute()
  // A dry run's or a simulation's rows were its own mock's (migration 3 keyed them `mock:<run id>`).
  await sql`update runs set venue = 'mock:' || run_id where mode <> 'live'`.execute(db)
  for (const table of ['commands', 'order_events'])
    await sql`update ${sql.table(table)} set venue = 'mock:' || run_id
      where run_id in (select run_id from runs where mode <> 'live')`.execute(db)
  await db.schema.createIndex('runs_scope').on('runs').columns(['account', 'venue', 'started_at']).execute()
  await rebuild(db, 'alerts', ['account', 'venue', 'key', 'at', 'resolved'], same, ['account', 'venue', 'at'])
  await rebuild(db, 'fills', ['account', 'venue', 'trade_id', 'order_id', 'ts'], same, [
    'account',
    'venue',
    'ts',
  ])
  await rebuild(db, 'funding', ['account', 'venue', 'key', 'ts'], same, ['account', 'venue', 'ts'])
  await rebuild(db, 'transfers', ['account', 'venue', 'kind', 'id'], same, ['account', 'venue', 'ts'])
  await rebuild(
    db,
    'pnl_snapshots',
    ['account', 'venue', 'minute', 'iid'],
    (c) =>
      c
        .addColumn('inventory_pnl', 'text', (x) => x.notNull().defaultTo('0'))
        .addColumn('span_ms', 'integer', (x) => x.notNull().defaultTo(60_000)),
    ['account', 'venue', 'minute'],
  )
  // Retention prunes by time across accounts.
  await db.schema.createIndex('pnl_snapshots_minute4').on('pnl_snapshots').column('minute').execute()
  // The account's net PnL every 2 s of bot time (when it moved): the curve the drawdown walks.
  await db.schema
    .createTable('equity')
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('venue', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('net', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('equity_pk', ['account', 'venue', 'at'])
    .execute()
  await db.schema.createIndex('equity_at').on('equity').column('at').execute()
}
