/**
 * `perpbot report`'s markouts, formatted: a table under the PnL table (per row and total: spread
 * captured, markouts at 1 s, 10 s and 60 s, adverse selection, each in bps with how many of the row's
 * fills were measured), the same figures as JSON and as extra CSV columns. Unknown is written
 * `unknown` in the table, null in JSON and an empty cell in CSV, never a guess.
 */
import { MARKOUT_HORIZONS_MS, type MarkoutSummary } from '../../analytics/markouts.ts'
import type { MarkoutRow } from '../../journal/reading/markoutReport.ts'

export const MARKOUT_LEGEND =
  "markouts: bps of the fill price, positive = good for us (side × (mid − price) / price), notional-weighted over the fills measured (n/m: of the row's m fills, n had a mid); mid = the book's best bid/offer mid the bot recorded at the fill and 1 s, 10 s, 60 s after it; adverse selection = captured − 60 s markout, over the fills measured at both"

const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`
const figure = (x: number | undefined, n: number, m: number): string =>
  `${x === undefined ? 'unknown' : signed(x)} (${n}/${m})`

function cells(s: MarkoutSummary): string[] {
  return [
    String(s.fills),
    figure(s.capturedBps, s.measured.captured, s.fills),
    ...MARKOUT_HORIZONS_MS.map((h) => figure(s.markoutBps[h], s.measured.at[h] ?? 0, s.fills)),
    figure(s.adverseSelectionBps, s.measured.adverse, s.fills),
  ]
}

/** The table under the report's (`undefined` rows: the journal predates markouts). */
export function formatMarkoutTable(rows: readonly MarkoutRow[] | undefined): string[] {
  if (rows === undefined)
    return [
      'markouts: unknown (this journal predates them: the bot records the mids from its next start; earlier fills stay unknown)',
    ]
  const head = [
    'markouts',
    'fills',
    'captured bps',
    ...MARKOUT_HORIZONS_MS.map((h) => `${h / 1000} s bps`),
    'adverse sel. bps',
  ]
  const table = [head, ...rows.map((r) => [r.key, ...cells(r.summary)])]
  const widths = head.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)))
  const line = (row: readonly string[]): string =>
    row
      .map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  const out = table.map(line)
  out.splice(out.length - 1, 0, '-'.repeat(Math.max(...out.map((l) => l.length))))
  return [...out, MARKOUT_LEGEND]
}

const orNull = (x: number | undefined): number | null => (x === undefined ? null : x)

/** For `--format json`: null where unknown. */
export function markoutsJson(rows: readonly MarkoutRow[] | undefined) {
  return {
    unit: 'bps',
    sign: 'positive = good for us',
    mid: "the book's best bid/offer mid the bot recorded",
    recorded: rows !== undefined,
    rows: (rows ?? []).map((r) => ({
      key: r.key,
      fills: r.summary.fills,
      capturedBps: orNull(r.summary.capturedBps),
      capturedMeasured: r.summary.measured.captured,
      markouts: MARKOUT_HORIZONS_MS.map((h) => ({
        horizonMs: h,
        bps: orNull(r.summary.markoutBps[h]),
        measured: r.summary.measured.at[h] ?? 0,
      })),
      adverseSelectionBps: orNull(r.summary.adverseSelectionBps),
      adverseMeasured: r.summary.measured.adverse,
    })),
  }
}

/** For `--format csv`: the columns appended to each row (empty cells where unknown). */
export const MARKOUT_CSV_HEAD: readonly string[] = [
  'captured_bps',
  'captured_fills_measured',
  ...MARKOUT_HORIZONS_MS.flatMap((h) => [`markout_${h / 1000}s_bps`, `markout_${h / 1000}s_fills_measured`]),
  'adverse_selection_bps',
  'adverse_selection_fills_measured',
]

export function markoutCsvCells(s: MarkoutSummary | undefined): string[] {
  if (s === undefined) return MARKOUT_CSV_HEAD.map(() => '')
  const cell = (x: number | undefined): string => (x === undefined ? '' : String(x))
  return [
    cell(s.capturedBps),
    String(s.measured.captured),
    ...MARKOUT_HORIZONS_MS.flatMap((h) => [cell(s.markoutBps[h]), String(s.measured.at[h] ?? 0)]),
    cell(s.adverseSelectionBps),
    String(s.measured.adverse),
  ]
}
