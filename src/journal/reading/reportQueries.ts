/**
 * Reads a window of the journal for the report (plain selects: a reader beside the running bot, WAL
 * on SQLite, MVCC on PostgreSQL). Snapshots from a day before the window give the baseline levels.
 */
import type { JournalDb } from '../database.ts'
import type { JournalScope } from '../journalScope.ts'
import type { ReportInput } from './report.ts'

const BASELINE_MS = 86_400_000

/** The state row where the bot keeps its instruments' symbols (`{ "12": "BTC-PERP" }`). */
export const SYMBOLS_STATE = 'instruments'
/** The state row where the bot keeps its collateral assets' decimals (`{ "pUSD": 6 }`). */
export const ASSETS_STATE = 'assets'

export async function loadReportInput(
  db: JournalDb,
  since: number,
  until: number,
  scope: JournalScope,
): Promise<ReportInput> {
  const d = db.db
  const { account, venue } = scope
  const fills = await d
    .selectFrom('fills')
    .select([
      'ts',
      'iid',
      'price',
      'qty',
      'taker',
      'fee',
      'realized_pnl',
      'side',
      'trade_id',
      'order_id',
      'liquidation',
      'fee_asset',
    ])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('ts', '>=', since)
    .where('ts', '<=', until)
    .orderBy('ts')
    .execute()
  const funding = await d
    .selectFrom('funding')
    .select(['ts', 'iid', 'amount'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('ts', '>=', since)
    .where('ts', '<=', until)
    .orderBy('ts')
    .execute()
  const snapshots = await d
    .selectFrom('pnl_snapshots')
    .select(['venue', 'minute', 'iid', 'unrealized_pnl', 'mode', 'inventory_pnl', 'position', 'span_ms'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('minute', '>=', since - BASELINE_MS)
    .where('minute', '<=', until)
    .orderBy('minute')
    .execute()
  const alerts = await d
    .selectFrom('alerts')
    .select(['at', 'resolved'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('at', '>=', since)
    .where('at', '<=', until)
    .execute()
  const transfers = await d
    .selectFrom('transfers')
    .select(['kind', 'status', 'asset', 'amount'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('ts', '>=', since)
    .where('ts', '<=', until)
    .execute()
  const equity = await loadEquity(db, since, until, scope)
  const runs = await d
    .selectFrom('runs')
    .select(['run_id', 'started_at', 'stopped_at'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('started_at', '<=', until)
    .where((eb) => eb.or([eb('stopped_at', 'is', null), eb('stopped_at', '>=', since)]))
    .orderBy('started_at')
    .execute()
  const currency = await loadCurrency(db, scope)
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
    currency,
    equity,
    runs: runs.map((r) => ({
      runId: r.run_id,
      startedAt: Number(r.started_at),
      stoppedAt: r.stopped_at === null ? undefined : Number(r.stopped_at),
    })),
    fills: fills.map((f) => ({
      ts: Number(f.ts),
      iid: f.iid,
      price: f.price,
      qty: f.qty,
      side: f.side,
      taker: Number(f.taker) === 1,
      fee: f.fee,
      realizedPnl: f.realized_pnl,
      tradeId: f.trade_id,
      orderId: Number(f.order_id),
      liquidation: Number(f.liquidation) !== 0,
      feeAsset: f.fee_asset,
    })),
    funding: funding.map((f) => ({ ts: Number(f.ts), iid: f.iid, amount: f.amount })),
    snapshots: snapshots.map((s) => ({
      venue: s.venue,
      minute: Number(s.minute),
      iid: s.iid,
      unrealizedPnl: s.unrealized_pnl,
      mode: s.mode,
      inventoryPnl: s.inventory_pnl,
      position: s.position,
      spanMs: Number(s.span_ms),
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
export async function newestRecordAt(db: JournalDb, scope: JournalScope): Promise<number | undefined> {
  const d = db.reads
  const { account, venue } = scope
  const runs = await d
    .selectFrom('runs')
    .select((eb) => [eb.fn.max('started_at').as('a'), eb.fn.max('stopped_at').as('b')])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .executeTakeFirst()
  const fills = await d
    .selectFrom('fills')
    .select((eb) => eb.fn.max('ts').as('t'))
    .where('account', '=', account)
    .where('venue', '=', venue)
    .executeTakeFirst()
  const snaps = await d
    .selectFrom('pnl_snapshots')
    .select((eb) => eb.fn.max('minute').as('t'))
    .where('account', '=', account)
    .where('venue', '=', venue)
    .executeTakeFirst()
  const times = [runs?.a, runs?.b, fills?.t, snaps?.t]
    .filter((v) => v !== null && v !== undefined)
    .map(Number)
  return times.length === 0 ? undefined : Math.max(...times)
}

const EQUITY_PAGE = 5_000

/** The account's 2-s equity samples in the window, from the last one before it (the drawdown's base). */
export async function loadEquity(
  db: JournalDb,
  since: number,
  until: number,
  scope: JournalScope,
): Promise<{ at: number; net: string }[]> {
  const d = db.reads
  const before = await d
    .selectFrom('equity')
    .select(['at', 'net'])
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .where('at', '<', since)
    .orderBy('at', 'desc')
    .limit(1)
    .execute()
  const out = before.map((e) => ({ at: Number(e.at), net: e.net }))
  // Up to 43,200 samples a day: read in pages on the key, the event loop turning between them.
  let from = since
  for (;;) {
    const page = await d
      .selectFrom('equity')
      .select(['at', 'net'])
      .where('account', '=', scope.account)
      .where('venue', '=', scope.venue)
      .where('at', '>=', from)
      .where('at', '<=', until)
      .orderBy('at')
      .limit(EQUITY_PAGE)
      .execute()
    for (const e of page) out.push({ at: Number(e.at), net: e.net })
    const last = page.at(-1)
    if (page.length < EQUITY_PAGE || last === undefined) return out
    from = Number(last.at) + 1
    await new Promise((r) => setImmediate(r))
  }
}

/** Every amount is in the settlement asset the venue names on fills (else funding): one, or unknown. */
export async function loadCurrency(db: JournalDb, scope: JournalScope): Promise<string | undefined> {
  const d = db.reads
  const assets = await d
    .selectFrom('fills')
    .select('fee_asset')
    .distinct()
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .limit(3)
    .execute()
  const fundingAssets =
    assets.length > 0
      ? []
      : await d
          .selectFrom('funding')
          .select('asset')
          .distinct()
          .where('account', '=', scope.account)
          .where('venue', '=', scope.venue)
          .limit(3)
          .execute()
  const currencies = [...assets.map((a) => a.fee_asset), ...fundingAssets.map((a) => a.asset)]
  return currencies.length === 1 ? currencies[0] : undefined
}
