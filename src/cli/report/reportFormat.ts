/**
 * `perpbot report` output, pure: an aligned table (amounts to the cent), CSV and JSON (exact
 * decimals). Every money header and CSV column names its currency (`net PnL USDC`, `net_pnl_usdc`);
 * a currency the journal cannot name is `unknown`, never guessed.
 */
import { mulDecimal, toTicks } from '../../decimal.ts'
import { FILL_MID_HORIZONS_MS } from '../../journal/fillMids.ts'
import { fillMarkoutsBps } from '../../journal/reading/markoutReport.ts'
import type { ReportFill, ReportRow, TransferSummary } from '../../journal/reading/report.ts'

interface Column {
  head: string
  csv: string
  /** A money column: its header and CSV name carry the currency. */
  money?: boolean
  get: (r: ReportRow, exact: boolean) => string
}

const COLUMNS: readonly Column[] = [
  { head: '', csv: 'key', get: (r) => r.key },
  { head: 'net PnL', csv: 'net_pnl', money: true, get: (r, e) => money(r.netPnl, e) },
  { head: 'realized', csv: 'realized_pnl', money: true, get: (r, e) => money(r.realizedPnl, e) },
  {
    head: 'unrealized Δ',
    csv: 'unrealized_pnl_change',
    money: true,
    get: (r, e) => money(r.unrealizedPnl, e),
  },
  { head: 'fees', csv: 'fees', money: true, get: (r, e) => money(r.fees, e) },
  { head: 'funding', csv: 'funding', money: true, get: (r, e) => money(r.funding, e) },
  { head: 'volume', csv: 'volume', money: true, get: (r, e) => money(r.volume, e) },
  { head: 'fills', csv: 'fills', get: (r) => String(r.fills) },
  {
    head: 'maker',
    csv: 'maker_share',
    get: (r, e) =>
      r.makerShare === undefined ? '' : e ? String(r.makerShare) : `${(r.makerShare * 100).toFixed(0)}%`,
  },
  { head: 'max drawdown', csv: 'max_drawdown', money: true, get: (r, e) => money(r.maxDrawdown, e) },
  { head: 'quoting h', csv: 'quoting_hours', get: (r, e) => hours(r.quotingHours, e) },
  { head: 'halted h', csv: 'halted_hours', get: (r, e) => hours(r.haltedHours, e) },
  { head: 'alerts', csv: 'alerts_raised', get: (r) => String(r.alertsRaised) },
  { head: 'resolved', csv: 'alerts_resolved', get: (r) => String(r.alertsResolved) },
  {
    head: 'inventory Δ (not in net)',
    csv: 'opening_inventory_change',
    money: true,
    get: (r, e) => money(r.inventoryPnl, e),
  },
  { head: 'end position', csv: 'end_position', get: (r) => r.endPosition },
]

const unitOf = (currency: string | undefined): string => currency ?? 'unknown'
const csvUnit = (currency: string | undefined): string =>
  unitOf(currency)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
const headOf = (c: Column, currency: string | undefined): string =>
  c.money ? `${c.head} ${unitOf(currency)}` : c.head
const csvOf = (c: Column, currency: string | undefined): string =>
  c.money ? `${c.csv}_${csvUnit(currency)}` : c.csv

/** To the cent, always two places (`-0.1` → `-0.10`). */
function money(s: string, exact: boolean): string {
  if (exact) return s
  const cents = toTicks(s, 2, 'half-even')
  const a = cents < 0n ? -cents : cents
  return `${cents < 0n ? '-' : ''}${a / 100n}.${(a % 100n).toString().padStart(2, '0')}`
}
function hours(h: number, exact: boolean): string {
  return exact ? String(h) : h.toFixed(1)
}

export function formatTable(rows: readonly ReportRow[], currency?: string | undefined): string[] {
  const cells = [
    COLUMNS.map((c) => headOf(c, currency)),
    ...rows.map((r) => COLUMNS.map((c) => c.get(r, false))),
  ]
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)))
  const line = (row: readonly string[]): string =>
    row
      .map((v, i) =>
        i === 0 || i === COLUMNS.length - 1 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd()
  const out = cells.map(line)
  // A rule above the total.
  out.splice(out.length - 1, 0, '-'.repeat(Math.max(...out.map((l) => l.length))))
  return out
}

const csvCell = (v: string): string => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)

/** Columns appended to each row (the markouts', reportMarkouts.ts), by the row's key. */
export interface ExtraCsvColumns {
  head: readonly string[]
  cells(key: string): readonly string[]
}

export function formatCsv(
  rows: readonly ReportRow[],
  currency?: string | undefined,
  extra?: ExtraCsvColumns | undefined,
): string[] {
  return [
    [...COLUMNS.map((c) => csvOf(c, currency)), ...(extra?.head ?? [])].join(','),
    ...rows.map((r) =>
      [...COLUMNS.map((c) => c.get(r, true)), ...(extra?.cells(r.key) ?? [])].map(csvCell).join(','),
    ),
  ]
}

/** `--trades`: one line per fill, exact decimals, money columns named with their currency. */
export function formatTradesCsv(
  fills: readonly ReportFill[],
  symbols: ReadonlyMap<number, string>,
  currency: string | undefined,
): string[] {
  const u = csvUnit(currency)
  const head = [
    'time',
    'time_ms',
    'instrument',
    'side',
    'price',
    'qty',
    `notional_${u}`,
    `fee_${u}`,
    'fee_asset',
    `realized_pnl_${u}`,
    'liquidity',
    'liquidation',
    'trade_id',
    'order_id',
    // The book's mid the bot recorded at the fill and after it, and the markouts (bps for us); empty: unknown.
    ...FILL_MID_HORIZONS_MS.map((h) => (h === 0 ? 'mid_at_fill' : `mid_${h / 1000}s`)),
    ...FILL_MID_HORIZONS_MS.map((h) => (h === 0 ? 'captured_bps' : `markout_${h / 1000}s_bps`)),
  ]
  const lines = fills.map((f) => {
    const notional = absProduct(f.qty, f.price)
    const bps = fillMarkoutsBps(f)
    return [
      new Date(f.ts).toISOString(),
      String(f.ts),
      symbols.get(f.iid) ?? `#${f.iid}`,
      f.side === 'long' ? 'buy' : f.side === 'short' ? 'sell' : (f.side ?? ''),
      f.price,
      f.qty,
      notional,
      f.fee,
      f.feeAsset ?? '',
      f.realizedPnl,
      f.taker ? 'taker' : 'maker',
      f.liquidation ? 'yes' : 'no',
      f.tradeId ?? '',
      f.orderId === undefined ? '' : String(f.orderId),
      ...FILL_MID_HORIZONS_MS.map((_, k) => f.mids?.[k] ?? ''),
      ...bps.map((x) => (x === undefined ? '' : String(x))),
    ]
      .map(csvCell)
      .join(',')
  })
  return [head.join(','), ...lines]
}

function absProduct(a: string, b: string): string {
  const p = mulDecimal(a, b)
  return p.startsWith('-') ? p.slice(1) : p
}

export function formatJson(
  rows: readonly ReportRow[],
  meta: {
    since: number
    until: number
    by: string
    database: string
    account: string
    venue: string
    currency: string | undefined
  },
  transfers: readonly TransferSummary[] = [],
  markouts?: unknown,
): string {
  return JSON.stringify(
    {
      since: new Date(meta.since).toISOString(),
      until: new Date(meta.until).toISOString(),
      by: meta.by,
      database: meta.database,
      account: meta.account,
      venue: meta.venue,
      currency: meta.currency ?? null,
      rows: rows.filter((r) => r.key !== 'total'),
      total: rows.find((r) => r.key === 'total'),
      transfers,
      ...(markouts === undefined ? {} : { markouts }),
    },
    null,
    2,
  )
}

/** Under the table: deposits and withdrawals of the window, per status (`deposits: 2 confirmed 300.00 pUSD`). */
export function formatTransfers(summary: readonly TransferSummary[]): string[] {
  if (summary.length === 0) return ['deposits and withdrawals: none in the window']
  const kinds = [...new Set(summary.map((t) => t.kind))]
  return kinds.map(
    (kind) =>
      `${kind}s: ${summary
        .filter((t) => t.kind === kind)
        .map(
          (t) =>
            `${t.count} ${t.status} ${t.amount === undefined ? `unknown amount (the journal holds no decimals for ${t.asset})` : `${money(t.amount, false)} ${t.unit}`}`,
        )
        .join(', ')}`,
  )
}
