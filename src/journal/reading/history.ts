/**
 * The dashboard's long history, read from the journal: the account's PnL per minute (the minute
 * snapshots summed over instruments) and the latest fills, over any window, across restarts. Bounded:
 * at most `maxPoints` points (one snapshot minute every `step`, chosen so the window fits) and
 * `maxFills` fills, whatever the window, so a month of history is one small answer. Read-only plain
 * selects (beside the writer: WAL readers on SQLite, MVCC on PostgreSQL). The sums are floats: the
 * points are drawn, never sent back to the venue; the exact numbers are `perpbot report`'s.
 */
import { sql } from 'kysely'
import type { JournalDb } from '../database.ts'
import type { JournalScope } from '../journalScope.ts'
import { drawdownText, equitySamplesCurve } from './report.ts'
import { loadCurrency, loadEquity, SYMBOLS_STATE } from './reportQueries.ts'

export interface HistoryPoint {
  /** Start of the minute, Unix ms. */
  at: number
  netPnl: number
  realizedPnl: number
  unrealizedPnl: number
  fees: number
  funding: number
}

export interface HistoryFill {
  at: number
  symbol: string
  side: string
  price: string
  qty: string
  fee: string
  pnl: string
  maker: boolean
  liquidation: boolean
}

export interface JournalHistory {
  since: number
  until: number
  /** Minutes between points (1 = every snapshot). */
  stepMinutes: number
  points: HistoryPoint[]
  /** Newest first, at most `maxFills`. */
  fills: HistoryFill[]
  /** Fills in the window (beyond the ones listed when more than `maxFills`). */
  fillCount: number
  /**
   * The window's max drawdown: over the account's 2-s equity samples where the journal holds them (as
   * `perpbot report`'s total, the same samples and the same function), else over the points drawn.
   */
  maxDrawdown: string
  /** The currency of every amount (the fills' settlement asset); undefined when unknown. */
  currency: string | undefined
}

export const HISTORY_MAX_POINTS = 1_000
export const HISTORY_MAX_FILLS = 200
const MINUTE_MS = 60_000

/** The multiples of `stepMs` in [since, until], oldest first, at most `max`. */
export function pointMinutes(since: number, until: number, stepMs: number, max: number): number[] {
  const out: number[] = []
  for (let m = Math.ceil(since / stepMs) * stepMs; m <= until && out.length < max; m += stepMs) out.push(m)
  return out
}

/** One snapshot minute every `step` minutes keeps the window within `maxPoints` points. */
export function historyStep(since: number, until: number, maxPoints: number): number {
  const minutes = Math.max(1, Math.ceil((until - since) / MINUTE_MS))
  return Math.max(1, Math.ceil(minutes / Math.max(1, maxPoints)))
}

export async function loadJournalHistory(
  db: JournalDb,
  o: {
    since: number
    until: number
    /** Whose rows: one account on one venue. */
    scope: JournalScope
    maxPoints?: number | undefined
    maxFills?: number | undefined
  },
): Promise<JournalHistory> {
  const { account, venue } = o.scope
  const maxPoints = o.maxPoints ?? HISTORY_MAX_POINTS
  const maxFills = o.maxFills ?? HISTORY_MAX_FILLS
  const step = historyStep(o.since, o.until, maxPoints)
  const stepMs = step * MINUTE_MS
  const real = (column: string) => sql<number>`sum(cast(${sql.ref(column)} as double precision))`
  // Every read below runs off the bot's thread (db.reads: the reader thread on SQLite).
  const r = db.reads
  // The opening inventory's change in value is not the bot's PnL (`perpbot report` shows it apart).
  // Minutes are multiples of 60 000: every `step`-th minute of the epoch is one point. They are
  // listed (at most maxPoints + 1), so each is an index lookup rather than a scan of the window's
  // every minute (90 days: 129,600 minutes per instrument).
  const wanted = pointMinutes(o.since, o.until, stepMs, maxPoints + 1)
  const rows =
    wanted.length === 0
      ? []
      : await r
          .selectFrom('pnl_snapshots')
          .select([
            'minute',
            real('realized_pnl').as('realized'),
            real('unrealized_pnl').as('unrealized'),
            real('fees').as('fees'),
            real('funding').as('funding'),
            real('inventory_pnl').as('inventory'),
          ])
          .where('account', '=', account)
          .where('venue', '=', venue)
          .where('minute', 'in', wanted)
          .groupBy('minute')
          .orderBy('minute')
          .execute()
  const points = rows.map((r) => {
    const realized = Number(r.realized)
    const unrealized = Number(r.unrealized) - Number(r.inventory)
    const fees = Number(r.fees)
    const funding = Number(r.funding)
    return {
      at: Number(r.minute),
      netPnl: realized + unrealized - fees - funding,
      realizedPnl: realized,
      unrealizedPnl: unrealized,
      fees,
      funding,
    }
  })
  const fills = await r
    .selectFrom('fills')
    .select(['ts', 'iid', 'side', 'price', 'qty', 'fee', 'realized_pnl', 'taker', 'liquidation'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('ts', '>=', o.since)
    .where('ts', '<=', o.until)
    .orderBy('ts', 'desc')
    .limit(maxFills)
    .execute()
  const count = await r
    .selectFrom('fills')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('ts', '>=', o.since)
    .where('ts', '<=', o.until)
    .executeTakeFirst()
  const symbols = await symbolNames(db)
  const shown = points.slice(-maxPoints)
  const sampled = equitySamplesCurve(await loadEquity(db, o.since, o.until, o.scope), o.since, o.until)
  return {
    maxDrawdown: drawdownText(sampled ?? shown.map((p) => p.netPnl)),
    currency: await loadCurrency(db, o.scope),
    since: o.since,
    until: o.until,
    stepMinutes: step,
    points: shown,
    fills: fills.map((f) => ({
      at: Number(f.ts),
      symbol: symbols.get(f.iid) ?? `#${f.iid}`,
      side: f.side,
      price: f.price,
      qty: f.qty,
      fee: f.fee,
      pnl: f.realized_pnl,
      maker: Number(f.taker) === 0,
      liquidation: Number(f.liquidation) !== 0,
    })),
    fillCount: Number(count?.n ?? 0),
  }
}

async function symbolNames(db: JournalDb): Promise<Map<number, string>> {
  const row = await db.reads
    .selectFrom('state')
    .select('value')
    .where('name', '=', SYMBOLS_STATE)
    .executeTakeFirst()
  const out = new Map<number, string>()
  if (row === undefined) return out
  const parsed: unknown = JSON.parse(row.value)
  if (parsed !== null && typeof parsed === 'object')
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') out.set(Number(k), v)
  return out
}
