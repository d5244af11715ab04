/**
 * Renders a run as one self-contained HTML file, pure: uPlot's JS and CSS (passed in) and the data are
 * inlined, so it opens offline. The same record renders to the same bytes (no wall-clock time in it).
 */
import { amount } from '../../format/units.ts'
import type { SeriesPoint } from './downsample.ts'
import { FILL_RATE_HEAD, fillRateRows, marketMakingRows } from './marketMakingSection.ts'
import type { InstrumentRecord, SimRecord } from './model.ts'
import { formatDuration } from './progress.ts'
import { REPORT_CLIENT_JS } from './reportClient.ts'
import { makerShare, type SimSummary, summarize } from './summary.ts'

export interface ReportAssets {
  uplotJs: string
  uplotCss: string
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/** JSON safe inside a `<script>` element (no `</script>`, no `<!--`). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

/** Keeps 9 significant digits: plenty for a chart, and a smaller file. */
export function roundForChart(v: number | null): number | null {
  return v === null || !Number.isFinite(v) ? null : Number(v.toPrecision(9))
}

const roundPoints = (points: readonly SeriesPoint[]): SeriesPoint[] =>
  points.map((p) => ({ t: p.t, v: p.v.map(roundForChart) }))

export function money(v: number): string {
  const r = Math.round(v * 100) / 100
  return (Object.is(r, -0) ? 0 : r).toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  })
}

export function percent(share: number | undefined): string {
  return share === undefined ? 'n/a' : `${(share * 100).toFixed(1)} %`
}

/** "2026-01-05 03:04:05" (UTC) for a virtual Unix ms. */
export function utcTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19)
}

/** The currency amounts are shown in when the record does not name one. */
export const DEFAULT_REPORT_CURRENCY = 'USDC'

function summaryRows(s: SimSummary, currency: string): [string, string][] {
  const cash = (v: number): string => amount(v, currency)
  const halted =
    s.haltedBy.length === 0
      ? 'never'
      : s.haltedBy.map(([reason, ms]) => `${reason}: ${formatDuration(ms)}`).join('; ')
  return [
    ['Net PnL', cash(s.netPnl)],
    ['Realized PnL', cash(s.realizedPnl)],
    ['Unrealized PnL (end)', cash(s.unrealizedPnl)],
    ['Fees paid', cash(s.fees)],
    ['Funding paid (− received)', cash(s.funding)],
    ['Volume', cash(s.volume)],
    ['Fills', String(s.fills)],
    ['Maker share', percent(s.makerShare)],
    ['Max drawdown (net PnL)', cash(s.maxDrawdown)],
    ['Time quoting', percent(s.quotingShare)],
    ['Time halted', percent(s.haltedShare)],
    ['Halted because (instrument-time)', halted],
    ['Alerts', String(s.alerts)],
  ]
}

function table(head: readonly string[], rows: readonly (readonly string[])[], id?: string): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n')
  return `<table${id ? ` id="${id}"` : ''}><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`
}

function instrumentRow(i: InstrumentRecord, currency: string): string[] {
  const total = i.time.quotingMs + i.time.haltedMs + i.time.otherMs
  const share = (ms: number): string => percent(total === 0 ? undefined : ms / total)
  return [
    i.symbol,
    String(i.totals.fills),
    amount(i.totals.volume, currency),
    percent(makerShare(i.totals)),
    amount(i.totals.realizedPnl, currency),
    amount(i.totals.fees, currency),
    share(i.time.quotingMs),
    share(i.time.haltedMs),
  ]
}

export function renderReport(record: SimRecord, assets: ReportAssets): string {
  const s = summarize(record)
  const m = record.meta
  const currency = record.currency ?? DEFAULT_REPORT_CURRENCY
  const data = {
    currency,
    instruments: record.instruments.map((i) => ({
      symbol: i.symbol,
      series: roundPoints(i.series),
      fills: i.fills.map((f) => ({ t: f.t, price: roundForChart(f.price), buy: f.buy })),
    })),
    account: roundPoints(record.account),
    weights: roundPoints(record.weights),
  }
  const title = `perpbot simulate: ${m.strategy} on ${record.instruments.length} instrument(s), ${m.hours} h, ${m.scenario}, seed ${m.seed}`
  const alertRows = record.alerts.map((a) => [
    utcTime(a.t),
    a.level,
    a.kind,
    a.resolved ? `resolved: ${a.title}` : a.title,
  ])
  const sampled = record.instruments.some((i) => i.fillStride > 1)
  const ranMs = m.endMs - m.startMs
  const partial = ranMs < m.hours * 3_600_000 - 60_000
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${assets.uplotCss}</style>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 20px; color: #222; }
table { border-collapse: collapse; margin: 8px 0 20px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; }
#summary td:nth-child(2) { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #666; }
section { margin-bottom: 24px; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="note">Virtual time ${escapeHtml(utcTime(m.startMs))} to ${escapeHtml(utcTime(m.endMs))} UTC on the mock's clock; perpbot ${escapeHtml(m.perpbotVersion)}. Same flags, same report.</p>
${partial ? `<p class="note" id="partial"><strong>Partial report:</strong> the run was stopped after ${escapeHtml(formatDuration(Math.max(0, ranMs)))} of ${m.hours} h.</p>` : ''}
${m.data === undefined ? '' : `<p class="note" id="replay">Market replayed from data, not invented: ${escapeHtml(m.data)}</p>`}
${record.note === undefined ? '' : `<p class="note" id="run-note"><strong>${escapeHtml(record.note)}</strong></p>`}
<h2>Summary</h2>
${table(['Figure', 'Value'], summaryRows(s, currency), 'summary')}
<h2>Per instrument</h2>
${table(
  ['Instrument', 'Fills', 'Volume', 'Maker share', 'Realized PnL', 'Fees', 'Quoting', 'Halted'],
  record.instruments.map((i) => instrumentRow(i, currency)),
  'instruments',
)}
${
  record.marketMaking === undefined
    ? ''
    : `<h2>Market making</h2>
${table(['Figure', 'Value'], marketMakingRows(record.marketMaking, currency), 'market-making')}
<p class="note">Markouts: side × (mid − fill price) ÷ fill price at each horizon after the fill, mid = the mark after each market step; positive is good for us. ${record.marketMaking.tradesTotal} fill(s).</p>
${table(FILL_RATE_HEAD, fillRateRows(record.marketMaking), 'fill-rate')}`
}
<h2>Account</h2>
<div id="pnl"></div>
<div id="margin"></div>
<h2>Weight usage</h2>
<div id="weights"></div>
<h2>Alerts</h2>
${record.alertsTotal === 0 ? '<p>No alerts.</p>' : table(['Time (UTC)', 'Level', 'Kind', 'Title'], alertRows, 'alerts')}
${record.alertsTotal > record.alerts.length ? `<p class="note">First ${record.alerts.length} of ${record.alertsTotal} alerts shown.</p>` : ''}
<h2>Instruments</h2>
${sampled ? '<p class="note">Long run: the charts show an even sample of the fills; the tables count them all.</p>' : ''}
${record.instruments.map((_, k) => `<section id="inst-${k}"><div class="price"></div><div class="position"></div></section>`).join('\n')}
<script type="application/json" id="sim-data">${scriptJson(data)}</script>
<script>${assets.uplotJs}</script>
<script>${REPORT_CLIENT_JS}</script>
</body>
</html>
`
}
