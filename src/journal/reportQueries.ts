/**
 * Reads a window of the journal for the report (plain selects: a reader beside the running bot, WAL
 * on SQLite, MVCC on PostgreSQL). Snapshots from a day before the window give the baseline levels.
 */
import type { JournalDb } from './database.ts'
import type { ReportInput } from './report.ts'

const BASELINE_MS = 86_400_000

/** The state row where the bot keeps its instruments' symbols (`{ "12": "BTC-PERP" }`). */
export const SYMBOLS_STATE = 'instruments'
/** The state row where the bot keeps its collateral assets' decimals (`{ "pUSD": 6 }`). */
export const ASSETS_STATE = 'assets'

export async function loadReportInput(db: JournalDb, since: number, until: number): Promise<ReportInput> {
  const d = db.db
  const fills = await d
    .selectFrom('fills')
    .select(['ts', 'iid', 'price', 'qty', 'side', 'taker', 'fee', 'realized_pnl'])
    .where('ts', '>=', since)
    .where('ts', '<=', until)
    .orderBy('ts')
    .execute()
  const funding = await d
    .selectFrom('funding')
    .select(['ts', 'iid', 'amount'])
    .where('ts', '>=', since)
    .where('ts', '<=', until)
    .orderBy('ts')
    .execute()
  const snapshots = await d
    .selectFrom('pnl_snapshots')
    .select(['venue', 'minute', 'iid', 'unrealized_pnl', 'mode'])
    .where('minute', '>=', since - BASELINE_MS)
    .where('minute', '<=', until)
    .orderBy('minute')
    .execute()
  const alerts = await d
    .selectFrom('alerts')
    .select(['at', 'resolved'])
    .where('at', '>=', since)
    .where('at', '<=', until)
    .execute()
  const transfers = await d
    .selectFrom('transfers')
    .select(['kind', 'status', 'asset', 'amount'])
    .where('ts', '>=', since)
    .where('ts', '<=', until)
    .execute()
  const assetsRow = await d
    .selectFrom('state')
    .select('value')
    .where('name', '=', ASSETS_STATE)
    .executeTakeFirst()
  const assetDecimals = new Map<string, number>()
  if (assetsRow !== undefined) {
    const parsed: unknown = JSON.parse(assetsRow.value)
    if (parsed !== null && typeof parsed === 'object')
      for (const [k, v] of Object.entries(parsed))
        if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 36) assetDecimals.set(k, v)
  }
  const symbolsRow = await d
    .selectFrom('state')
    .select('value')
    .where('name', '=', SYMBOLS_STATE)
    .executeTakeFirst()
  const symbols = new Map<number, string>()
  if (symbolsRow !== undefined) {
    const parsed: unknown = JSON.parse(symbolsRow.value)
    if (parsed !== null && typeof parsed === 'object')
      for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') symbols.set(Number(k), v)
  }
  return {
    since,
    until,
    transfers,
    assetDecimals,
    fills: fills.map((f) => ({
      ts: Number(f.ts),
      iid: f.iid,
      price: f.price,
      qty: f.qty,
      side: f.side,
      taker: Number(f.taker) === 1,
      fee: f.fee,
      realizedPnl: f.realized_pnl,
    })),
    funding: funding.map((f) => ({ ts: Number(f.ts), iid: f.iid, amount: f.amount })),
    snapshots: snapshots.map((s) => ({
      venue: s.venue,
      minute: Number(s.minute),
      iid: s.iid,
      unrealizedPnl: s.unrealized_pnl,
      mode: s.mode,
    })),
    alerts: alerts.map((a) => ({ at: Number(a.at), resolved: Number(a.resolved) === 1 })),
    symbols,
  }
}

/**
 * The newest moment the journal holds (a run's start or stop, a fill, a snapshot's minute). A dry run
 * on an accelerated mock journals on the mock's clock, ahead of the wall: the report's default end
 * reaches it, so a dry run just finished is in its window.
 */
export async function newestRecordAt(db: JournalDb): Promise<number | undefined> {
  const d = db.db
  const runs = await d
    .selectFrom('runs')
    .select((eb) => [eb.fn.max('started_at').as('a'), eb.fn.max('stopped_at').as('b')])
    .executeTakeFirst()
  const fills = await d
    .selectFrom('fills')
    .select((eb) => eb.fn.max('ts').as('t'))
    .executeTakeFirst()
  const snaps = await d
    .selectFrom('pnl_snapshots')
    .select((eb) => eb.fn.max('minute').as('t'))
    .executeTakeFirst()
  const times = [runs?.a, runs?.b, fills?.t, snaps?.t]
    .filter((v) => v !== null && v !== undefined)
    .map(Number)
  return times.length === 0 ? undefined : Math.max(...times)
}
