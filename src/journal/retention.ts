/**
 * Retention: commands, order events and per-minute snapshots are pruned after their configured days
 * (they are the bulk: ~60,000 commands a day for 10 instruments); fills, funding, transfers, runs and
 * alerts are kept (they are small, and PnL is rebuilt from them). SQLite reuses the freed pages, so the
 * file stops growing rather than shrinking.
 */
import type { JournalDb } from './database.ts'
import type { JournalSettings } from './settings.ts'

const DAY_MS = 86_400_000

export interface PruneResult {
  commands: number
  orderEvents: number
  snapshots: number
}

export async function pruneJournal(
  db: JournalDb,
  now: number,
  retention: JournalSettings['retention'],
): Promise<PruneResult> {
  const commandsBefore = now - retention.commandsDays * DAY_MS
  const snapshotsBefore = now - retention.snapshotsDays * DAY_MS
  return db.db.transaction().execute(async (tx) => {
    const c = await tx.deleteFrom('commands').where('ts', '<', commandsBefore).executeTakeFirst()
    const o = await tx.deleteFrom('order_events').where('ts', '<', commandsBefore).executeTakeFirst()
    const s = await tx.deleteFrom('pnl_snapshots').where('minute', '<', snapshotsBefore).executeTakeFirst()
    // The 2-s equity curve is bulk like commands (43,200 points a day at most); older windows' drawdown
    // walks the minute snapshots instead.
    await tx.deleteFrom('equity').where('at', '<', commandsBefore).execute()
    return {
      commands: Number(c.numDeletedRows),
      orderEvents: Number(o.numDeletedRows),
      snapshots: Number(s.numDeletedRows),
    }
  })
}
