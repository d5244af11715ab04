/**
 * The sweep's outputs (pure): a ranked CSV, and a self-contained HTML page with the ranked table and
 * a heatmap of the objective over the first two grid parameters (in-sample and out-of-sample side by
 * side; other parameters at their best in-sample value for each cell).
 */
import type { GridAxis } from './grid.ts'
import type { Objective } from './objective.ts'
import type { RankedRow } from './runSweep.ts'

const METRICS = ['netPnl', 'sharpe', 'drawdown', 'fills', 'volume'] as const

function csvCell(v: string | number): string {
  const s = typeof v === 'number' ? String(Number(v.toFixed(6))) : v
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function sweepCsv(rows: readonly RankedRow[], axes: readonly GridAxis[]): string {
  const head = [
    'rank',
    ...axes.map((a) => a.key),
    'is_score',
    'oos_score',
    ...METRICS.map((m) => `is_${m}`),
    ...METRICS.map((m) => `oos_${m}`),
  ]
  const lines = rows.map((r) =>
    [
      r.rank,
      ...axes.map((a) => r.point[a.key] ?? ''),
      r.isScore,
      r.oosScore,
      ...METRICS.map((m) => r.inSample[m]),
      ...METRICS.map((m) => r.outOfSample[m]),
    ]
      .map(csvCell)
      .join(','),
  )
  return `${head.join(',')}\n${lines.join('\n')}\n`
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const fmt = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2))

/** Red (worst) to green (best) over [lo, hi]. */
function colour(v: number, lo: number, hi: number): string {
  const x = hi > lo ? (v - lo) / (hi - lo) : 0.5
  return `hsl(${Math.round(120 * x)}, 65%, 78%)`
}

function heatmap(
  rows: readonly RankedRow[],
  x: GridAxis,
  y: GridAxis,
  pick: (r: RankedRow) => number,
  title: string,
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
              : `<td style="background:${colour(pick(r), lo, hi)}">${fmt(pick(r))}</td>`
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
}

export function sweepHtml(rows: readonly RankedRow[], axes: readonly GridAxis[], meta: SweepMeta): string {
  const [x, y] = axes
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
      ? heatmap(cells, x, y, (r) => r.isScore, `in-sample ${meta.objective}`) +
        heatmap(cells, x, y, (r) => r.oosScore, `out-of-sample ${meta.objective}`)
      : '<p>A heatmap needs two grid parameters.</p>'
  const top = rows[0]
  const head = [
    'rank',
    ...axes.map((a) => a.key),
    `in-sample ${meta.objective}`,
    `out-of-sample ${meta.objective}`,
    'IS net PnL',
    'OOS net PnL',
    'IS fills',
    'OOS fills',
  ]
  const table = rows
    .map(
      (r) =>
        `<tr>${[
          r.rank,
          ...axes.map((a) => r.point[a.key] ?? ''),
          fmt(r.isScore),
          fmt(r.oosScore),
          fmt(r.inSample.netPnl),
          fmt(r.outOfSample.netPnl),
          r.inSample.fills,
          r.outOfSample.fills,
        ]
          .map((v) => `<td>${esc(String(v))}</td>`)
          .join('')}</tr>`,
    )
    .join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perpbot sweep: ${esc(meta.strategy)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:20px;color:#222}table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}.map{display:inline-block;margin-right:24px;vertical-align:top}.note{color:#666}</style>
</head><body>
<h1>perpbot sweep: ${esc(meta.strategy)}, ${meta.points} point(s), objective ${esc(meta.objective)}</h1>
<p class="note">Data: ${esc(meta.data)}. In-sample ${esc(meta.inSample)}; out-of-sample ${esc(meta.outOfSample)}. Points are ranked on the in-sample window only; the out-of-sample column is how the pick held up on data it was not chosen on.</p>
${top === undefined ? '' : `<p>Best in-sample: ${esc(axes.map((a) => `${a.key}=${top.point[a.key]}`).join(', '))}: in-sample ${fmt(top.isScore)}, out-of-sample ${fmt(top.oosScore)}.</p>`}
${maps}
<h2>Ranked</h2>
<table><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>
${table}</table>
</body></html>
`
}
