/**
 * Reads the mids the bot journaled at and after our fills (migration 5, `fill_mids`) for a window of
 * one account's fills. A journal the bot has not opened since that migration has no such table (the
 * report never migrates): undefined, and the report says so.
 */
import { sql } from 'kysely'
import type { JournalDb } from '../database.ts'
import { FILL_MID_HORIZONS_MS } from '../fillMids.ts'
import type { JournalScope } from '../journalScope.ts'
import { type FillMidsByFill, fillMidKey } from './markoutReport.ts'

export const FILL_MIDS_MIGRATION = '0005_fill_mids'

export async function loadFillMids(
  db: JournalDb,
  since: number,
  until: number,
  scope: JournalScope,
): Promise<FillMidsByFill | undefined> {
  const applied = await sql<{
    name: string
  }>`select name from kysely_migration where name = ${FILL_MIDS_MIGRATION}`
    .execute(db.db)
    .catch(() => ({ rows: [] }))
  if (applied.rows.length === 0) return undefined
  const rows = await db.db
    .selectFrom('fill_mids')
    .select(['trade_id', 'order_id', 'fill_ts', 'horizon_ms', 'mid'])
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .where('fill_ts', '>=', since)
    .where('fill_ts', '<=', until)
    .execute()
  const out = new Map<string, (string | undefined)[]>()
  for (const r of rows) {
    const k = FILL_MID_HORIZONS_MS.indexOf(Number(r.horizon_ms))
    if (k < 0) continue
    const key = fillMidKey(r.trade_id, r.order_id, r.fill_ts)
    let mids = out.get(key)
    if (mids === undefined) {
      mids = FILL_MID_HORIZONS_MS.map(() => undefined)
      out.set(key, mids)
    }
    mids[k] = r.mid
  }
  return out
}
