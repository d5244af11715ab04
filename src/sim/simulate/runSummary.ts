/**
 * A run's figures as a small JSON file (`simulate --json FILE`) and the page comparing two of them
 * (`perpbot compare A.json B.json`, issue 39.3), pure. The file holds what the report's tables show:
 * the run's meta, the summary and the market-making analytics (not the per-trade rows).
 */
import { z } from 'zod'
import { MARKOUT_HORIZONS_MS } from '../../analytics/markouts.ts'
import { amount } from '../../format/units.ts'
import type { SimRecord } from './model.ts'
import { escapeHtml } from './report.ts'
import { summarize } from './summary.ts'

export const RUN_SUMMARY_FORMAT = 'perpbot-run-summary/1'

const num = z.number()
const opt = num.nullable()

/** The file's schema (the compare command reads files a user names: checked, not trusted). */
export const RunSummary = z.object({
  format: z.literal(RUN_SUMMARY_FORMAT),
  label: z.string(),
  currency: z.string(),
  figures: z.object({
    netPnl: num,
    realizedPnl: num,
    fees: num,
    funding: num,
    volume: num,
    fills: num,
    maxDrawdown: num,
    quotingShare: num,
    capturedBps: opt,
    markout1sBps: opt,
    markout10sBps: opt,
    markout60sBps: opt,
    adverseSelectionBps: opt,
    roundTrips: num,
    winRate: opt,
    profitFactor: opt,
    inventoryHalfLifeS: opt,
    sharpe: opt,
    sortino: opt,
    calmar: opt,
  }),
})
export type RunSummary = z.infer<typeof RunSummary>

const orNull = (x: number | undefined): number | null => (x === undefined || !Number.isFinite(x) ? null : x)

export function runSummaryOf(record: SimRecord, currency: string): RunSummary {
  const s = summarize(record)
  const mm = record.marketMaking
  const m = record.meta
  const at = (h: number): number | null => orNull(mm?.markouts.markoutBps[h])
  return {
    format: RUN_SUMMARY_FORMAT,
    label: `${m.strategy}, ${m.hours} h, seed ${m.seed}${m.data === undefined ? `, ${m.scenario}` : `, ${m.data}`}`,
    currency,
    figures: {
      netPnl: s.netPnl,
      realizedPnl: s.realizedPnl,
      fees: s.fees,
      funding: s.funding,
      volume: s.volume,
      fills: s.fills,
      maxDrawdown: s.maxDrawdown,
      quotingShare: s.quotingShare,
      capturedBps: orNull(mm?.markouts.capturedBps),
      markout1sBps: at(MARKOUT_HORIZONS_MS[0]),
      markout10sBps: at(MARKOUT_HORIZONS_MS[1]),
      markout60sBps: at(MARKOUT_HORIZONS_MS[2]),
      adverseSelectionBps: orNull(mm?.markouts.adverseSelectionBps),
      roundTrips: mm?.roundTrips.trips ?? 0,
      winRate: orNull(mm?.roundTrips.winRate),
      profitFactor: orNull(mm?.roundTrips.profitFactor),
      inventoryHalfLifeS: mm?.inventoryHalfLifeMs === undefined ? null : mm.inventoryHalfLifeMs / 1000,
      sharpe: orNull(mm?.ratios.sharpe),
      sortino: orNull(mm?.ratios.sortino),
      calmar: orNull(mm?.ratios.calmar),
    },
  }
}

type Figure = keyof RunSummary['figures']
/** Each row: the figure, its unit, and whether more is better (the difference's colour). */
const ROWS: readonly [
  Figure,
  string,
  'money' | 'bps' | 'count' | 'share' | 'ratio' | 's',
  boolean | undefined,
][] = [
  ['netPnl', 'Net PnL', 'money', true],
  ['realizedPnl', 'Realized PnL', 'money', true],
  ['fees', 'Fees paid', 'money', false],
  ['funding', 'Funding paid (− received)', 'money', false],
  ['volume', 'Volume', 'money', undefined],
  ['fills', 'Fills', 'count', undefined],
  ['maxDrawdown', 'Max drawdown (net PnL)', 'money', false],
  ['quotingShare', 'Time quoting', 'share', undefined],
  ['capturedBps', 'Spread captured', 'bps', true],
  ['markout1sBps', 'Markout at 1 s', 'bps', true],
  ['markout10sBps', 'Markout at 10 s', 'bps', true],
  ['markout60sBps', 'Markout at 60 s', 'bps', true],
  ['adverseSelectionBps', 'Adverse selection', 'bps', false],
  ['roundTrips', 'Round trips', 'count', undefined],
  ['winRate', 'Win rate', 'share', true],
  ['profitFactor', 'Profit factor', 'ratio', true],
  ['inventoryHalfLifeS', 'Inventory half-life', 's', false],
  ['sharpe', 'Sharpe (annualised)', 'ratio', true],
  ['sortino', 'Sortino (annualised)', 'ratio', true],
  ['calmar', 'Calmar (annualised)', 'ratio', true],
]

function show(v: number | null, kind: string, currency: string): string {
  if (v === null) return 'n/a'
  switch (kind) {
    case 'money':
      return amount(v, currency)
    case 'bps':
      return `${v.toFixed(2)} bps`
    case 'share':
      return `${(v * 100).toFixed(1)} %`
    case 's':
      return `${v.toFixed(1)} s`
    case 'count':
      return String(Math.round(v))
    default:
      return v.toFixed(2)
  }
}

/** The comparison page: each figure for A and B with B − A, green only where B is better. */
export function compareHtml(a: RunSummary, b: RunSummary): string {
  const currency = a.currency === b.currency ? a.currency : `${a.currency}/${b.currency}`
  const rows = ROWS.map(([k, label, kind, moreIsBetter]) => {
    const x = a.figures[k]
    const y = b.figures[k]
    const d = x === null || y === null ? null : y - x
    const better = d === null || d === 0 || moreIsBetter === undefined ? undefined : d > 0 === moreIsBetter
    const style = better === undefined ? '' : ` style="background:${better ? '#dff0d8' : '#f2dede'}"`
    const diff = d === null ? 'n/a' : `${d > 0 ? '+' : ''}${show(d, kind, currency)}`
    return `<tr><td>${escapeHtml(label)}</td><td>${escapeHtml(show(x, kind, currency))}</td><td>${escapeHtml(show(y, kind, currency))}</td><td${style}>${escapeHtml(diff)}</td></tr>`
  }).join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perpbot compare</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:20px;color:#222}table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}th{background:#f3f3f3}.note{color:#666}</style>
</head><body>
<h1>perpbot compare</h1>
<p>A: ${escapeHtml(a.label)}<br>B: ${escapeHtml(b.label)}</p>
<table id="compare"><thead><tr><th>Figure</th><th>A</th><th>B</th><th>B − A</th></tr></thead><tbody>
${rows}
</tbody></table>
<p class="note">Green: B is better on that figure; red: worse; uncoloured: neither (volume, fills, time). Markouts and spread in bps for us (positive is good).</p>
</body></html>
`
}
