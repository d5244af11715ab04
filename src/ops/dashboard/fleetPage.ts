/**
 * The dashboard's fleet page (`/fleet`, a fleet process's ops server): every account of the fleet with
 * its holder, epoch, lease left, the holder's bot state, net PnL and weight, and the egress's shared
 * budget, rendered on the server from Redis (`FleetView`, read at each request). No script runs: the
 * page refreshes itself every 5 s, and its policy allows no script at all. `/fleet.json` is the same
 * data for tools.
 */
import type { FleetView } from '../../fleet/fleetView.ts'
import { share } from '../../fleet/fleetView.ts'

export const FLEET_PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  // The empty icon below: no favicon request (which would ask for the token again).
  'img-src data:',
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ')

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)

const cell = (s: string, cls?: string): string => `<td${cls ? ` class="${cls}"` : ''}>${esc(s)}</td>`

export function renderFleetPage(v: FleetView, now: number): string {
  const rows = v.accounts.map((a) => {
    const r = a.report
    const pnl = r?.netPnl === undefined ? '-' : `${r.netPnl} ${r.currency ?? ''}`.trim()
    const sign = r?.netPnl === undefined ? '' : r.netPnl.startsWith('-') ? 'neg' : 'pos'
    return `<tr data-account="${esc(a.account)}" data-state="${a.state}">${[
      cell(a.account),
      cell(a.state, a.state),
      cell(a.holder ?? '-'),
      cell(a.epoch === undefined ? '-' : String(a.epoch)),
      cell(a.ttlMs === undefined ? '-' : `${(a.ttlMs / 1000).toFixed(1)} s`),
      cell(r?.state ?? '-'),
      cell(pnl, sign),
      cell(r === undefined ? '-' : `${r.ownWeight} (${share(r.ownWeight, v.budget)} %)`),
      cell(r === undefined ? '-' : `${Math.max(0, Math.round((now - r.at) / 1000))} s ago`),
    ].join('')}</tr>`
  })
  const pct = share(v.windowWeight, v.budget)
  const held = v.accounts.filter((a) => a.state === 'held').length
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="5">
<title>perpbot fleet</title>
<link rel="icon" href="data:,">
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}
.held{color:#070}.free{color:#a60}.neg{color:#b00}.pos{color:#070}
.bar{display:inline-block;width:12em;height:.8em;background:#eee;vertical-align:middle}
.bar span{display:block;height:100%;background:${pct > 90 ? '#b00' : '#48c'}}
</style></head><body>
<h1>perpbot fleet</h1>
<p id="budget">egress <b>${esc(v.egressId)}</b>: request weight <b>${v.windowWeight}</b> of ${v.budget} in the window (${pct} %)
<span class="bar"><span style="width:${Math.min(100, pct)}%"></span></span>${v.pausedMs > 0 ? ` <b>paused ${Math.ceil(v.pausedMs / 1000)} s after a 429</b>` : ''}</p>
<p id="held">${held} of ${v.accounts.length} accounts held</p>
<table id="accounts"><thead><tr><th>account</th><th>lease</th><th>holder</th><th>epoch</th><th>lease left</th><th>bot</th><th>net PnL</th><th>weight in window</th><th>reported</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
<p><a href="/">this process's dashboard</a> · <a href="/fleet.json">JSON</a></p>
</body></html>
`
}
