/**
 * The opening inventory (positions and marks when the bot first ran on an account), kept as restart
 * state per account and venue: written once, by the run that first observed the account, and read by
 * every later start, so a position held before the bot never enters "since start".
 */
import { z } from 'zod'
import type { OpeningInventory } from '../pnlTypes.ts'
import type { JournalDb } from './database.ts'
import type { JournalScope } from './journalScope.ts'

export const openingStateName = (scope: JournalScope): string =>
  `opening:${scope.account}:${scope.venue}`.slice(0, 120)

const Stored = z.object({
  at: z.number().int().nonnegative(),
  instruments: z.record(
    z.string().regex(/^\d+$/),
    z.object({ size: z.string(), unrealized: z.string(), mark: z.string().optional() }),
  ),
})

/** The stored opening inventory; undefined when none (or unreadable: the run's own first positions are). */
export async function loadOpening(db: JournalDb, scope: JournalScope): Promise<OpeningInventory | undefined> {
  const row = await db.reads
    .selectFrom('state')
    .select('value')
    .where('name', '=', openingStateName(scope))
    .executeTakeFirst()
  if (row === undefined) return undefined
  const parsed = Stored.safeParse(JSON.parse(row.value))
  if (!parsed.success) return undefined
  const instruments: OpeningInventory['instruments'] = {}
  for (const [iid, v] of Object.entries(parsed.data.instruments))
    instruments[Number(iid)] = { size: v.size, unrealized: v.unrealized, mark: v.mark }
  return { at: parsed.data.at, instruments }
}

/** The value kept (JSON: no undefined marks). */
export function openingValue(o: OpeningInventory): unknown {
  return {
    at: o.at,
    instruments: Object.fromEntries(
      Object.entries(o.instruments).map(([iid, v]) => [
        iid,
        { size: v.size, unrealized: v.unrealized, ...(v.mark === undefined ? {} : { mark: v.mark }) },
      ]),
    ),
  }
}
