/**
 * Migration 5: the mid of the instrument's book (best bid and offer) at each of our fills and 1 s,
 * 10 s and 60 s after it, as the bot saw it (`fillMids.ts`): what `perpbot report`'s markouts, spread
 * captured and adverse selection are computed from. One row per fill and horizon, written once the
 * horizon has passed, keyed by the fill's own key; a fill or horizon with no row is unknown (the bot
 * was down, had no fresh touch, or the fill is older than this migration). Nothing is rewritten:
 * existing fills simply have no rows.
 */
import type { Kysely } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations run on a schema-less handle by design
type AnyDb = Kysely<any>

export async function v5FillMids(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('fill_mids')
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('venue', 'text', (c) => c.notNull())
    .addColumn('trade_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'bigint', (c) => c.notNull())
    .addColumn('fill_ts', 'bigint', (c) => c.notNull())
    .addColumn('horizon_ms', 'integer', (c) => c.notNull())
    .addColumn('mid', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('fill_mids_pk', [
      'account',
      'venue',
      'trade_id',
      'order_id',
      'fill_ts',
      'horizon_ms',
    ])
    .execute()
  await db.schema
    .createIndex('fill_mids_scope_ts')
    .on('fill_mids')
    .columns(['account', 'venue', 'fill_ts'])
    .execute()
}
