/**
 * Whose rows: every journal row carries its account (the owner address the venue names for our
 * credentials, lower case) and its venue (the exchange's EIP-712 domain; `mock:<run id>` for an
 * embedded mock started for one run). Every reader reads one account on one venue.
 *
 * Rows written before migration 4 have the account `unknown`. They are the bot's own when this
 * journal's restart state names exactly one account key (`account-watch-<proxy>`) and it is ours:
 * then they are claimed at open. Otherwise they stay apart, and the bot says so at start.
 */
import { sql } from 'kysely'
import type { JournalDb } from './database.ts'
import { UNKNOWN_ACCOUNT } from './schema/migrationAccount.ts'

export { UNKNOWN_ACCOUNT }

export interface JournalScope {
  account: string
  venue: string
}

/** The venue key of an exchange: its EIP-712 domain (`Polymarket/1/137`). */
export function domainVenue(d: { name: string; version: string; chainId: number }): string {
  return `${d.name}/${d.version}/${d.chainId}`.slice(0, 120)
}

/** The tables whose rows carry an account and a venue. */
export const SCOPED_TABLES = [
  'runs',
  'commands',
  'order_events',
  'fills',
  'funding',
  'transfers',
  'pnl_snapshots',
  'alerts',
  // Migration 5: a fill's mids follow its fill.
  'fill_mids',
] as const

export interface ClaimResult {
  /** Rows of an earlier journal attributed to this account. */
  claimed: number
  /** Fills, funding rows and runs still kept apart as `unknown` (another account's, or unknowable). */
  apart: { fills: number; funding: number; runs: number }
  /** The account keys the journal's restart state names (why the rows could or could not be claimed). */
  accountKeys: string[]
}

const ACCOUNT_STATE = /^account-watch-(0x[0-9a-f]{40})$/

/**
 * Claims the `unknown` rows of the real venue (migration 4 left them venue '') for `scope` when the
 * journal's restart state names exactly one account key, `proxy`; counts what stays apart.
 */
export async function claimUnknownRows(
  db: JournalDb,
  scope: JournalScope,
  proxy: string,
): Promise<ClaimResult> {
  const names = await db.db
    .selectFrom('state')
    .select('name')
    .where('name', 'like', 'account-watch-%')
    .execute()
  const accountKeys = names.flatMap((n) => ACCOUNT_STATE.exec(n.name.toLowerCase())?.[1] ?? [])
  let claimed = 0
  const ours = accountKeys.length === 1 && accountKeys[0] === proxy.toLowerCase()
  // Indexed probes first: the commands and order events tables have no account index, and a start
  // with nothing left to claim must not scan them.
  const anyLeft = async (table: 'runs' | 'fills' | 'alerts'): Promise<boolean> =>
    (await db.db
      .selectFrom(table)
      .select('account')
      .where('account', '=', UNKNOWN_ACCOUNT)
      .where('venue', '=', '')
      .limit(1)
      .executeTakeFirst()) !== undefined
  const left = (await anyLeft('runs')) || (await anyLeft('fills')) || (await anyLeft('alerts'))
  if (left && ours && scope.account !== UNKNOWN_ACCOUNT && !scope.venue.startsWith('mock:'))
    await db.db.transaction().execute(async (tx) => {
      for (const table of SCOPED_TABLES) {
        const r = await tx
          .updateTable(table)
          .set({ account: scope.account, venue: scope.venue })
          .where('account', '=', UNKNOWN_ACCOUNT)
          .where('venue', '=', '')
          .executeTakeFirst()
        claimed += Number(r.numUpdatedRows)
      }
    })
  const count = async (table: 'fills' | 'funding' | 'runs'): Promise<number> => {
    const r = await db.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account', '=', UNKNOWN_ACCOUNT)
      .where('venue', 'not like', 'mock:%')
      .executeTakeFirst()
    return Number(r?.n ?? 0)
  }
  return {
    claimed,
    apart: { fills: await count('fills'), funding: await count('funding'), runs: await count('runs') },
    accountKeys,
  }
}

export interface ScopeSummary extends JournalScope {
  runs: number
  firstStartedAt: number
  lastStartedAt: number
  /** The fastest clock rate of its runs (above 1: an accelerated dry run). */
  clockRate: number
}

/** Every account and venue the journal holds runs of, the most recently started first. */
export async function journalScopes(db: JournalDb): Promise<ScopeSummary[]> {
  const rows = await db.db
    .selectFrom('runs')
    .select((eb) => [
      'account',
      'venue',
      eb.fn.countAll<number>().as('runs'),
      eb.fn.min('started_at').as('first'),
      eb.fn.max('started_at').as('last'),
      eb.fn.max('clock_rate').as('rate'),
    ])
    .groupBy(['account', 'venue'])
    .orderBy(sql`max(started_at)`, 'desc')
    .execute()
  return rows.map((r) => ({
    account: r.account,
    venue: r.venue,
    runs: Number(r.runs),
    firstStartedAt: Number(r.first),
    lastStartedAt: Number(r.last),
    clockRate: Number(r.rate),
  }))
}
