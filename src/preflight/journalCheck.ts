/**
 * `perpbot doctor`'s journal line (issue 34): the journal this configuration writes, opened read-only
 * (never created or migrated): SQLite's `quick_check` and its WAL header, PostgreSQL reachable, and
 * any spool an earlier run left (the next run writes it).
 */
import { existsSync } from 'node:fs'
import { sql } from 'kysely'
import { describeTarget, type JournalTarget, openJournalDb } from '../journal/database.ts'
import { walHeaderProblem } from '../journal/integrity.ts'
import { pendingSpools } from '../journal/spool.ts'
import type { CheckLine } from './preflight.ts'

const CHECK = 'journal'

export async function journalIntegrityLine(target: JournalTarget | undefined): Promise<CheckLine> {
  if (target === undefined) return { check: CHECK, status: 'skip', detail: 'journal.enabled is false' }
  const where = describeTarget(target)
  if (target.kind === 'sqlite' && !existsSync(target.path))
    return {
      check: CHECK,
      status: 'ok',
      detail: `no journal at ${where} yet (the bot writes it when it runs)`,
    }
  const wal = target.kind === 'sqlite' ? walHeaderProblem(`${target.path}-wal`) : undefined
  if (wal !== undefined)
    return { check: CHECK, status: 'fail', detail: `${wal}; move the file aside to start a new journal` }
  let db: Awaited<ReturnType<typeof openJournalDb>>
  try {
    db = await openJournalDb(target, { readonly: true })
  } catch (e) {
    return { check: CHECK, status: 'fail', detail: e instanceof Error ? e.message : String(e) }
  }
  try {
    if (target.kind === 'sqlite') {
      const r = await sql<{ quick_check: string }>`pragma quick_check(5)`.execute(db.db)
      const problems = r.rows.map((x) => Object.values(x)[0]).filter((v) => v !== 'ok')
      if (problems.length > 0)
        return {
          check: CHECK,
          status: 'fail',
          detail: `${where} is damaged: ${problems.map(String).join('; ').slice(0, 300)}; move it aside to start a new journal`,
        }
    } else await sql`select 1`.execute(db.db)
    const spools = pendingSpools(target.kind === 'sqlite' ? `${target.path}-spool` : undefined, db.where)
    if (spools.length > 0)
      return {
        check: CHECK,
        status: 'warn',
        detail: `${where} is sound; ${spools.length} spool file(s) of rows an earlier run could not write wait (the next run writes them): ${spools[0]}`,
      }
    return { check: CHECK, status: 'ok', detail: `${where} is sound (integrity checked)` }
  } catch (e) {
    return {
      check: CHECK,
      status: 'fail',
      detail: `cannot check ${where}: ${e instanceof Error ? e.message : String(e)}`,
    }
  } finally {
    await db.close()
  }
}
