/**
 * The sweep's outputs (pure): a ranked CSV, and a self-contained HTML page with the ranked table and
 * a heatmap of the objective over the first two grid parameters (in-sample and out-of-sample side by
 * side; other parameters at their best in-sample value for each cell).
 */
import type { GridAxis } from './grid.ts'
import { OBJECTIVE_UNITS, type Objective, type PointMetrics } from './objective.ts'

/** The metric column each objective ranks on (shown once, not again as a "score" column). */
const OBJECTIVE_METRIC: Readonly<Record<Objective, keyof PointMetrics>> = {
  'net-pnl': 'netPnl',
  sharpe: 'sharpe',
  drawdown: 'drawdown',
  sortino: 'sortino',
  calmar: 'calmar',
  'profit-factor': 'profitFactor',
  markout: 'markout60Bps',
}

import type { RankedRow } from './runSweep.ts'

/** The metrics of a window, each with its unit (CSV headers and page columns say it). */
const METRICS = [
  ['netPnl', 'net_pnl_usdc', 'net PnL (USDC)'],
  ['sharpe', 'sharpe', 'Sharpe (×√samples)'],
  ['sortino', 'sortino_annualised', 'Sortino (annualised)'],
  ['calmar', 'calmar_annualised', 'Calmar (annualised)'],
  ['profitFactor', 'profit_factor', 'profit factor (ratio)'],
  ['drawdown', 'max_drawdown_usdc', 'max drawdown (USDC)'],
  ['markout60Bps', 'markout_60s_bps', 'markout 60 s (bps)'],
  ['fills', 'fills', 'fills (count)'],
  ['volume', 'volume_usdc', 'volume (USDC)'],
] as const

function csvCell(v: string | number): string {
  const s = typeof v === 'number' ? String(Number(v.toFixed(6))) : v
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function sweepCsv(rows: readonly RankedRow[], axes: readonly GridAxis[]): string {
  const head = [
    'rank',
    ...axes.map((a) => a.key),
    ...METRICS.map(([, csv]) => `is_${csv}`),
    ...METRICS.map(([, csv]) => `oos_${csv}`),
  ]
  const lines = rows.map((r) =>
    [
      r.rank,
      ...axes.map((a) => r.point[a.key] ?? ''),
      ...METRICS.map(([k]) => r.inSample[k]),
      ...METRICS.map(([k]) => r.outOfSample[k]),
    ]
      .map(csvCell)
      .join(','),
  )
  return `${head.join(',')}\n${lines.join('\n')}\n`
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const fmt = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2))

/** Where good turns bad for a score: 0 (1 for a profit factor); a drawdown is never good. */
const NEUTRAL: Readonly<Record<Objective, number | undefined>> = {
  'net-pnl': 0,
  sharpe: 0,
  drawdown: undefined,
  sortino: 0,
  calmar: 0,
  'profit-factor': 1,
  markout: 0,
}

/**
 * A cell's colour: green only above the neutral line (a gain), red below it (a loss), paler near it;
 * the drawdown objective only shades red. Loss is never green, whatever the range of the sweep.
 */
export function colour(v: number, lo: number, hi: number, objective: Objective): string {
  const line = NEUTRAL[objective]
  if (line === undefined) {
    const x = lo < 0 ? Math.min(1, v / lo) : 0
    return `hsl(0, ${Math.round(65 * x)}%, ${Math.round(95 - 17 * x)}%)`
  }
  if (v > line) {
    const x = hi > line ? Math.min(1, (v - line) / (hi - line)) : 1
    return `hsl(120, ${Math.round(65 * x)}%, ${Math.round(95 - 17 * x)}%)`
  }
  if (v < line) {
    const x = lo < line ? Math.min(1, (line - v) / (line - lo)) : 1
    return `hsl(0, ${Math.round(65 * x)}%, ${Math.round(95 - 17 * x)}%)`
  }
  return '#fff'
}

function heatmap(
  rows: readonly RankedRow[],
  x: GridAxis,
  y: GridAxis,
  pick: (r: RankedRow) => number,
  title: string,
  objective: Objective,
): string {
  const cell = (xv: string | number, yv: string | number): RankedRow | undefined =>
    rows.find((r) => r.point[x.key] === xv && r.point[y.key] === yv)
  const values = rows.map(pick)
  const lo = Math.min(...values)
  const hi = Math.max(...values)
  const body = y.values
    .map(
      (yv) =>
        `<tr><th>${esc(String(yv))}</th>${x.values
          .map((xv) => {
            const r = cell(xv, yv)
            return r === undefined
              ? '<td></td>'
              : `<td style="background:${colour(pick(r), lo, hi, objective)}">${fmt(pick(r))}</td>`
          })
          .join('')}</tr>`,
    )
    .join('\n')
  return `<div class="map"><h3>${esc(title)}</h3><table><tr><th>${esc(y.key)} \\ ${esc(x.key)}</th>${x.values.map((v) => `<th>${esc(String(v))}</th>`).join('')}</tr>\n${body}</table></div>`
}

export interface SweepMeta {
  strategy: string
  objective: Objective
  data: string
  inSample: string
  outOfSample: string
  points: number
  /** Deflated Sharpe ratio of the best in-sample point (overfit.ts); undefined when not computable. */
  deflatedSharpe?: number | undefined
  /** How points were chosen (grid, random, tpe) and the walk-forward folds. */
  search?: string | undefined
}

export function sweepHtml(rows: readonly RankedRow[], axes: readonly GridAxis[], meta: SweepMeta): string {
  const [x, y] = axes
  const unit = OBJECTIVE_UNITS[meta.objective]
  // Rows already ranked: the first row per (x, y) cell is its best in-sample point.
  const best = new Map<string, RankedRow>()
  if (x !== undefined && y !== undefined)
    for (const r of rows) {
      const k = `${r.point[x.key]}|${r.point[y.key]}`
      if (!best.has(k)) best.set(k, r)
    }
  const cells = [...best.values()]
  const maps =
    x !== undefined && y !== undefined
      ? heatmap(cells, x, y, (r) => r.isScore, `in-sample ${meta.objective} (${unit})`, meta.objective) +
        heatmap(cells, x, y, (r) => r.oosScore, `out-of-sample ${meta.objective} (${unit})`, meta.objective)
      : '<p>A heatmap needs two grid parameters.</p>'
  const top = rows[0]
  const shown = METRICS.filter(
    ([k]) => k === 'netPnl' || k === 'fills' || k === OBJECTIVE_METRIC[meta.objective],
  )
  const head = [
    'rank',
    ...axes.map((a) => a.key),
    ...shown.map(([, , label]) => `in-sample ${label}`),
    ...shown.map(([, , label]) => `out-of-sample ${label}`),
  ]
  const cellOf = (v: number, k: string): string => {
    const bg =
      k === 'fills'
        ? ''
        : ` style="background:${colour(k === 'drawdown' ? -v : v, -1, 1, k === 'drawdown' ? 'drawdown' : k === 'profitFactor' ? 'profit-factor' : 'net-pnl')}"`
    return `<td${bg}>${esc(k === 'fills' ? String(v) : fmt(v))}</td>`
  }
  const table = rows
    .map(
      (r) =>
        `<tr>${[r.rank, ...axes.map((a) => r.point[a.key] ?? '')].map((v) => `<td>${esc(String(v))}</td>`).join('')}${shown
          .map(([k]) => cellOf(r.inSample[k], k))
          .join('')}${shown.map(([k]) => cellOf(r.outOfSample[k], k)).join('')}</tr>`,
    )
    .join('\n')
  const dsr =
    meta.deflatedSharpe === undefined
      ? '<p class="note" id="overfit">Deflated Sharpe ratio: n/a (too few samples or points).</p>'
      : `<p id="overfit"${meta.deflatedSharpe < 0.95 ? ' class="warn"' : ''}>Deflated Sharpe ratio of the best in-sample point: ${(meta.deflatedSharpe * 100).toFixed(1)} % (the probability its true Sharpe is above zero after allowing for ${meta.points} point(s) tried; below 95 % the pick may be luck).</p>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perpbot sweep: ${esc(meta.strategy)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:20px;color:#222}table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}.map{display:inline-block;margin-right:24px;vertical-align:top}.note{color:#666}.warn{color:#a00;font-weight:bold}</style>
</head><body>
<h1>perpbot sweep: ${esc(meta.strategy)}, ${meta.points} point(s), objective ${esc(meta.objective)}</h1>
<p class="note">Data: ${esc(meta.data)}. In-sample ${esc(meta.inSample)}; out-of-sample ${esc(meta.outOfSample)}. Points are ranked on the in-sample window only; the out-of-sample column is how the pick held up on data it was not chosen on.</p>
${top === undefined ? '' : `<p>Best in-sample: ${esc(axes.map((a) => `${a.key}=${top.point[a.key]}`).join(', '))}: in-sample ${fmt(top.isScore)} ${esc(unit)}, out-of-sample ${fmt(top.oosScore)} ${esc(unit)}.</p>`}
${meta.search === undefined ? '' : `<p class="note">Search: ${esc(meta.search)}.</p>`}
${dsr}
${maps}
<h2>Ranked</h2>
<table><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>
${table}</table>
</body></html>
`
}
