/**
 * `perpbot report`'s markouts, pure: per row of the report (day, run or instrument, and total), the
 * spread captured, the markouts at 1 s, 10 s and 60 s and the adverse selection of our fills, from the
 * mids the bot journaled at and after each fill (`fillMids.ts`), computed by the analytics' own
 * definitions (`src/analytics/markouts.ts`: bps for us, notional-weighted). A fill with no mid at a
 * moment is left out of that moment's mean and counted as not measured (n of m).
 */
import { type MarkoutSummary, MarkoutTracker, markoutBps } from '../../analytics/markouts.ts'
import { fillSide } from '../../format/units.ts'
import { FILL_MID_HORIZONS_MS } from '../fillMids.ts'
import { type ReportBy, type ReportFill, type ReportInput, reportGroups } from './report.ts'

/** The mids of each fill, by `fillMidKey`, in the order of FILL_MID_HORIZONS_MS (undefined: unknown). */
export type FillMidsByFill = ReadonlyMap<string, readonly (string | undefined)[]>

export const fillMidKey = (tradeId: string, orderId: number, ts: number): string =>
  `${tradeId}|${Number(orderId)}|${Number(ts)}`

/** The fills with their journaled mids (none: every moment unknown). */
export function withMids(fills: readonly ReportFill[], mids: FillMidsByFill | undefined): ReportFill[] {
  return fills.map((f) => ({
    ...f,
    mids:
      (f.tradeId === undefined || f.orderId === undefined
        ? undefined
        : mids?.get(fillMidKey(f.tradeId, f.orderId, f.ts))) ?? FILL_MID_HORIZONS_MS.map(() => undefined),
  }))
}

const num = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined
  const x = Number(s)
  return Number.isFinite(x) && x > 0 ? x : undefined
}

/** One fill as the analytics take it, with its mids as numbers (a fill without a side has none). */
function marked(f: ReportFill) {
  const price = Number(f.price)
  const known = f.side !== undefined && price > 0
  const mids = FILL_MID_HORIZONS_MS.map((_, k) => (known ? num(f.mids?.[k]) : undefined))
  return {
    iid: f.iid,
    t: f.ts,
    price,
    qty: Math.abs(Number(f.qty)),
    buy: fillSide(f.side ?? '') === 'buy',
    fee: Number(f.fee),
    mid0: mids[0],
    mids: mids.slice(1),
  }
}

/** The markouts of these fills (the analytics' summary). */
export function markoutsOf(fills: readonly ReportFill[]): MarkoutSummary {
  const tracker = new MarkoutTracker()
  for (const f of fills) tracker.measured(marked(f))
  return tracker.summary()
}

export interface MarkoutRow {
  key: string
  summary: MarkoutSummary
}

/** Per row of the report (the same groups as `buildReport`), then total. */
export function markoutRows(input: ReportInput, by: ReportBy): MarkoutRow[] {
  return reportGroups(input, by).map((g) => ({
    key: g.key,
    summary: markoutsOf(
      input.fills.filter((f) => (g.iid === undefined || g.iid === f.iid) && f.ts >= g.from && f.ts <= g.to),
    ),
  }))
}

/** One fill's spread captured and markouts, bps for us (`markoutBps`), in the order of FILL_MID_HORIZONS_MS. */
export function fillMarkoutsBps(f: ReportFill): (number | undefined)[] {
  const m = marked(f)
  return [m.mid0, ...m.mids].map((mid) => (mid === undefined ? undefined : markoutBps(m, mid)))
}
