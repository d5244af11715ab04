/**
 * Restart-proof history: at start the journal is brought level with the venue's own record of fills
 * and funding since the last journaled one, so PnL and fees include the time the bot was down. The
 * venue's history is read through an injected `VenueHistory` (the perps client's pagers behind an
 * adapter, or a test double); every row is inserted with `on conflict do nothing` on its venue key, so
 * a fill is in the journal exactly once however often the windows overlap or the process dies mid-way.
 *
 * A walk stopped by its page budget (the venue pages newest first) leaves older gaps: they are kept as
 * restart state and walked next time, so no fill is skipped for good.
 */
import type { z } from 'zod'
import type { JournalDb } from './database.ts'
import type { JournalScope } from './journalScope.ts'
import { fillRow } from './pendingRows.ts'
import { FillRecord, FundingRecord, type TransferInput, TransferRecord } from './records.ts'
import { type JournalRow, type RefusedRow, writeRows } from './rows.ts'

export type FillInput = z.input<typeof FillRecord>
export type FundingInput = z.input<typeof FundingRecord>

/** A window of the venue's history, both ends inclusive (Unix ms). */
export interface HistoryWindow {
  since: number
  until: number
}

/** The venue's history, paged; each page newest first or in any order. */
export interface VenueHistory {
  fillPages(
    window: HistoryWindow,
    maxPages: number,
  ): AsyncIterable<{ rows: readonly FillInput[]; more: boolean }>
  fundingPages(
    window: HistoryWindow,
    maxPages: number,
  ): AsyncIterable<{ rows: readonly FundingInput[]; more: boolean }>
  /** Deposits (as transfers) created in the window; absent where the venue has none to read. */
  depositPages?(
    window: HistoryWindow,
    maxPages: number,
  ): AsyncIterable<{ rows: readonly TransferInput[]; more: boolean }>
}

export interface ReconcilePlanInput {
  now: number
  lastFillAt: number | undefined
  lastFundingAt: number | undefined
  /** Gaps earlier, budget-stopped walks left (restart state). */
  pending:
    | { fills?: readonly HistoryWindow[] | undefined; funding?: readonly HistoryWindow[] | undefined }
    | undefined
  /** Rows the writer dropped while the database was away (their earliest time). */
  earliestDropAt?: number | undefined
  /** How far back a journal with no rows yet reaches, ms. */
  firstLookbackMs: number
  /** Re-read this much before the last row: the venue may publish a fill late; repeats cost nothing. */
  overlapMs: number
}

export interface ReconcilePlan {
  fills: HistoryWindow[]
  funding: HistoryWindow[]
}

/**
 * Which windows to read (pure): from the last row (or the lookback) to now first, the newest history
 * mattering most; then the gaps left before, newest first, each cut where the first window begins.
 */
export function planReconcile(i: ReconcilePlanInput): ReconcilePlan {
  const from = (last: number | undefined): number => {
    const base = last === undefined ? i.now - i.firstLookbackMs : last - i.overlapMs
    return Math.max(0, i.earliestDropAt === undefined ? base : Math.min(base, i.earliestDropAt - i.overlapMs))
  }
  const windows = (
    pending: readonly HistoryWindow[] | undefined,
    last: number | undefined,
  ): HistoryWindow[] => {
    const since = from(last)
    const gaps = (pending ?? [])
      .filter((g) => g.since < since && g.since <= g.until)
      .map((g) => ({ since: g.since, until: Math.min(g.until, since) }))
      .sort((a, b) => b.until - a.until)
    return [{ since, until: i.now }, ...gaps]
  }
  return {
    fills: windows(i.pending?.fills, i.lastFillAt),
    funding: windows(i.pending?.funding, i.lastFundingAt),
  }
}

export interface ReconcileCounts {
  pages: number
  seen: number
  inserted: number
  invalid: number
  /** Rows the journal refused: their key held by a row with other content (named, never silent). */
  refused: RefusedRow[]
  /** What the page budget left unread (kept as restart state, read next time). */
  pending: HistoryWindow[]
}

export interface ReconcileResult {
  fills: ReconcileCounts
  funding: ReconcileCounts
  /** Deposits read (new ones and status changes are upserted on their hash). */
  deposits?: { pages: number; seen: number } | undefined
}

export const RECONCILE_STATE = 'journal:reconcile-pending'
/** The pending windows are one account's on one venue. */
export const reconcileStateName = (scope: JournalScope): string =>
  `${RECONCILE_STATE}:${scope.account}:${scope.venue}`.slice(0, 120)

/** Bounded restart state: past 16 windows, one that covers them all (re-reading is harmless). */
export function compactWindows(ws: readonly HistoryWindow[]): HistoryWindow[] {
  if (ws.length <= 16) return [...ws]
  return [{ since: Math.min(...ws.map((w) => w.since)), until: Math.max(...ws.map((w) => w.until)) }]
}

/** Reads the plan's windows within `maxPages` per kind and inserts what is new. */
export async function reconcileJournal(o: {
  db: JournalDb
  venue: VenueHistory
  plan: ReconcilePlan
  maxPages: number
  /** Whose rows (`Journal.scope()`). */
  scope: JournalScope
}): Promise<ReconcileResult> {
  const { scope } = o
  const fills = await walk(
    o.plan.fills,
    o.maxPages,
    (w, n) => o.venue.fillPages(w, n),
    async (rows) => {
      let invalid = 0
      const out: JournalRow[] = []
      for (const r of rows) {
        const parsed = FillRecord.safeParse(r)
        if (parsed.success) out.push(fillRow(parsed.data, 'reconcile', scope))
        else invalid += 1
      }
      const r = out.length > 0 ? await writeRows(o.db.db, out) : { newFills: 0, refused: [] }
      return { inserted: r.newFills, invalid, refused: r.refused, times: rows.map((x) => x.ts) }
    },
  )
  const funding = await walk(
    o.plan.funding,
    o.maxPages,
    (w, n) => o.venue.fundingPages(w, n),
    async (rows) => {
      let invalid = 0
      const keys: string[] = []
      const out: JournalRow[] = []
      for (const r of rows) {
        const parsed = FundingRecord.safeParse(r)
        if (!parsed.success) {
          invalid += 1
          continue
        }
        const f = parsed.data
        keys.push(f.key)
        out.push({
          table: 'funding',
          row: {
            account: scope.account,
            venue: scope.venue,
            key: f.key,
            iid: f.iid,
            size: f.size,
            rate: f.rate,
            asset: f.asset,
            amount: f.amount,
            ts: f.ts,
          },
        })
      }
      let inserted = 0
      let refused: RefusedRow[] = []
      if (out.length > 0) {
        const before = await countFunding(o.db, scope, keys)
        refused = (await writeRows(o.db.db, out)).refused
        inserted = (await countFunding(o.db, scope, keys)) - before
      }
      return { inserted, invalid, refused, times: rows.map((r) => r.ts) }
    },
  )
  return { fills, funding }
}

async function countFunding(db: JournalDb, scope: JournalScope, keys: readonly string[]): Promise<number> {
  const unique = [...new Set(keys)]
  const r = await db.db
    .selectFrom('funding')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .where('key', 'in', unique)
    .executeTakeFirst()
  return Number(r?.n ?? 0)
}

async function walk<R>(
  windows: readonly HistoryWindow[],
  maxPages: number,
  pages: (w: HistoryWindow, maxPages: number) => AsyncIterable<{ rows: readonly R[]; more: boolean }>,
  insert: (
    rows: readonly R[],
  ) => Promise<{ inserted: number; invalid: number; refused: RefusedRow[]; times: number[] }>,
): Promise<ReconcileCounts> {
  const c: ReconcileCounts = { pages: 0, seen: 0, inserted: 0, invalid: 0, refused: [], pending: [] }
  for (const w of windows) {
    const budget = maxPages - c.pages
    if (budget <= 0) {
      c.pending.push(w)
      continue
    }
    let oldest = w.until
    let more = false
    let used = 0
    for await (const page of pages(w, budget)) {
      used += 1
      c.pages += 1
      c.seen += page.rows.length
      const r = await insert(page.rows)
      c.inserted += r.inserted
      c.invalid += r.invalid
      c.refused.push(...r.refused)
      for (const t of r.times) oldest = Math.min(oldest, t)
      more = page.more
    }
    // Stopped by the budget with older rows left: [since, oldest] is still to read.
    if (more && used >= budget) c.pending.push({ since: w.since, until: oldest })
  }
  return c
}

const PendingState = (v: unknown): ReconcilePlanInput['pending'] => {
  const win = (x: unknown): HistoryWindow[] =>
    Array.isArray(x)
      ? x.flatMap((w: unknown) =>
          w !== null &&
          typeof w === 'object' &&
          'since' in w &&
          'until' in w &&
          typeof w.since === 'number' &&
          typeof w.until === 'number'
            ? [{ since: w.since, until: w.until }]
            : [],
        )
      : []
  if (v === null || typeof v !== 'object') return undefined
  return {
    fills: 'fills' in v ? win(v.fills) : undefined,
    funding: 'funding' in v ? win(v.funding) : undefined,
  }
}

/**
 * The start-up reconcile: plan from the journal (last rows, a gap left last time), read the venue,
 * insert once, keep any new gap. Returns the counts for the start-up log line.
 */
export async function reconcileAtStart(o: {
  db: JournalDb
  venue: VenueHistory
  now: number
  maxPages: number
  firstLookbackMs: number
  overlapMs?: number | undefined
  earliestDropAt?: number | undefined
  /** Whose rows (`Journal.scope()`): only its rows say where the history ends. */
  scope: JournalScope
}): Promise<ReconcileResult & { plan: ReconcilePlan }> {
  const { scope } = o
  const stateName = reconcileStateName(scope)
  const max = async (table: 'fills' | 'funding'): Promise<number | undefined> => {
    const r = await o.db.db
      .selectFrom(table)
      .select((eb) => eb.fn.max('ts').as('t'))
      .where('account', '=', scope.account)
      .where('venue', '=', scope.venue)
      .executeTakeFirst()
    return r?.t === null || r?.t === undefined ? undefined : Number(r.t)
  }
  const saved = await o.db.db
    .selectFrom('state')
    .select('value')
    .where('name', '=', stateName)
    .executeTakeFirst()
  const plan = planReconcile({
    now: o.now,
    lastFillAt: await max('fills'),
    lastFundingAt: await max('funding'),
    pending: saved === undefined ? undefined : PendingState(JSON.parse(saved.value)),
    earliestDropAt: o.earliestDropAt,
    firstLookbackMs: o.firstLookbackMs,
    overlapMs: o.overlapMs ?? 60_000,
  })
  const savePending = (fills: readonly HistoryWindow[], funding: readonly HistoryWindow[]) =>
    writeRows(o.db.db, [
      {
        table: 'state',
        row: {
          name: stateName,
          value: JSON.stringify({ fills: compactWindows(fills), funding: compactWindows(funding) }),
          at: o.now,
        },
      },
    ])
  // Everything planned is pending until read: a kill mid-walk leaves the windows for the next start.
  await savePending(plan.fills, plan.funding)
  const result = await reconcileJournal({ db: o.db, venue: o.venue, plan, maxPages: o.maxPages, scope })
  await savePending(result.fills.pending, result.funding.pending)
  const deposits =
    o.venue.depositPages === undefined
      ? undefined
      : await reconcileDeposits(o.db, o.venue.depositPages.bind(o.venue), scope, o)
  return { ...result, deposits, plan }
}

/**
 * Deposits since the oldest one still pending in the journal (its status may have moved), else since
 * the newest journaled one less the overlap (or the first lookback): upserted on their hash, so a
 * status change while the bot was down is kept and a repeat changes nothing.
 */
async function reconcileDeposits(
  db: JournalDb,
  pages: NonNullable<VenueHistory['depositPages']>,
  scope: JournalScope,
  o: { now: number; maxPages: number; firstLookbackMs: number; overlapMs?: number | undefined },
): Promise<{ pages: number; seen: number }> {
  const row = await db.db
    .selectFrom('transfers')
    .select((eb) => [
      eb.fn.max('ts').as('newest'),
      eb.fn.min(eb.case().when('status', '=', 'pending').then(eb.ref('ts')).end()).as('pending'),
    ])
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .where('kind', '=', 'deposit')
    .executeTakeFirst()
  const num = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v))
  const newest = num(row?.newest)
  const pending = num(row?.pending)
  const base = newest === undefined ? o.now - o.firstLookbackMs : newest - (o.overlapMs ?? 60_000)
  const since = Math.max(0, Math.min(base, pending ?? Number.POSITIVE_INFINITY))
  let count = 0
  let seen = 0
  for await (const page of pages({ since, until: o.now }, o.maxPages)) {
    count += 1
    seen += page.rows.length
    const out: JournalRow[] = []
    for (const r of page.rows) {
      const t = TransferRecord.safeParse(r)
      if (t.success)
        out.push({
          table: 'transfers',
          row: {
            account: scope.account,
            venue: scope.venue,
            kind: t.data.kind,
            id: t.data.id,
            asset: t.data.asset,
            amount: t.data.amount,
            fee: t.data.fee,
            status: t.data.status,
            ts: t.data.ts,
            updated_at: t.data.updatedAt,
          },
        })
    }
    if (out.length > 0) await writeRows(db.db, out)
  }
  return { pages: count, seen }
}
