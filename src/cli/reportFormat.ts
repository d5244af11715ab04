/** `perpbot report` output, pure: an aligned table (amounts to the cent), CSV and JSON (exact decimals). */
import { toTicks } from '../decimal.ts'
import type { ReportRow, TransferSummary } from '../journal/report.ts'

const COLUMNS: readonly { head: string; csv: string; get: (r: ReportRow, exact: boolean) => string }[] = [
  { head: '', csv: 'key', get: (r) => r.key },
  { head: 'net PnL', csv: 'net_pnl', get: (r, e) => money(r.netPnl, e) },
  { head: 'realized', csv: 'realized_pnl', get: (r, e) => money(r.realizedPnl, e) },
  { head: 'unrealized Δ', csv: 'unrealized_pnl_change', get: (r, e) => money(r.unrealizedPnl, e) },
  { head: 'fees', csv: 'fees', get: (r, e) => money(r.fees, e) },
  { head: 'funding', csv: 'funding', get: (r, e) => money(r.funding, e) },
  { head: 'volume', csv: 'volume', get: (r, e) => money(r.volume, e) },
  { head: 'fills', csv: 'fills', get: (r) => String(r.fills) },
  {
    head: 'maker',
    csv: 'maker_share',
    get: (r, e) =>
      r.makerShare === undefined ? '' : e ? String(r.makerShare) : `${(r.makerShare * 100).toFixed(0)}%`,
  },
  { head: 'max drawdown', csv: 'max_drawdown', get: (r, e) => money(r.maxDrawdown, e) },
  { head: 'quoting h', csv: 'quoting_hours', get: (r, e) => hours(r.quotingHours, e) },
  { head: 'halted h', csv: 'halted_hours', get: (r, e) => hours(r.haltedHours, e) },
  { head: 'alerts', csv: 'alerts_raised', get: (r) => String(r.alertsRaised) },
  { head: 'resolved', csv: 'alerts_resolved', get: (r) => String(r.alertsResolved) },
]

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

export function formatTable(rows: readonly ReportRow[]): string[] {
  const cells = [COLUMNS.map((c) => c.head), ...rows.map((r) => COLUMNS.map((c) => c.get(r, false)))]
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)))
  const line = (row: readonly string[]): string =>
    row
      .map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  const out = cells.map(line)
  // A rule above the total.
  out.splice(out.length - 1, 0, '-'.repeat(Math.max(...out.map((l) => l.length))))
  return out
}

const csvCell = (v: string): string => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)

export function formatCsv(rows: readonly ReportRow[]): string[] {
  return [
    COLUMNS.map((c) => c.csv).join(','),
    ...rows.map((r) => COLUMNS.map((c) => csvCell(c.get(r, true))).join(',')),
  ]
}

export function formatJson(
  rows: readonly ReportRow[],
  meta: { since: number; until: number; by: string; database: string },
  transfers: readonly TransferSummary[] = [],
): string {
  return JSON.stringify(
    {
      since: new Date(meta.since).toISOString(),
      until: new Date(meta.until).toISOString(),
      by: meta.by,
      database: meta.database,
      rows: rows.filter((r) => r.key !== 'total'),
      total: rows.find((r) => r.key === 'total'),
      transfers,
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
          (t) => `${t.count} ${t.status} ${t.unit === t.asset ? money(t.amount, false) : t.amount} ${t.unit}`,
        )
        .join(', ')}`,
  )
}
