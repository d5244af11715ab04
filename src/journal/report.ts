/**
 * `perpbot report`'s numbers, pure: from the journal's fills, funding, per-minute snapshots and alerts
 * in a window, per day or per instrument and in total. Flows (realized PnL, fees, funding, volume)
 * are summed exactly from fills and funding, the journal's own truth across restarts; unrealized PnL
 * is a level the venue reports, so a group shows its change (last level in the group less the level
 * before it). Net = realized + unrealized change − fees − funding. The drawdown walks the equity curve
 * (cumulative flows + unrealized, minute by minute) and reports the largest fall from a peak.
 */
import { addDecimal, compareDecimal, fromTicks, mulDecimal, subDecimal } from '../decimal.ts'

export interface ReportFill {
  ts: number
  iid: number
  price: string
  qty: string
  /** The venue's side (`long`/`short`); round trips (src/analytics/roundTrips.ts) need it. */
  side?: string | undefined
  taker: boolean
  fee: string
  realizedPnl: string
}
export interface ReportFunding {
  ts: number
  iid: number
  amount: string
}
export interface ReportSnapshot {
  /** Whose ledger (the journal's venue key); levels are per venue and instrument. */
  venue?: string | undefined
  minute: number
  iid: number
  unrealizedPnl: string
  mode: string
}
export interface ReportAlert {
  at: number
  resolved: boolean
}

/** A withdrawal or deposit in the window (amount in the asset's base units, as the venue sends it). */
export interface ReportTransfer {
  kind: string
  status: string
  asset: string
  amount: string
}

export interface ReportInput {
  /** Withdrawals and deposits created in the window; asset decimals to read their amounts. */
  transfers?: readonly ReportTransfer[] | undefined
  assetDecimals?: ReadonlyMap<string, number> | undefined
  since: number
  until: number
  fills: readonly ReportFill[]
  funding: readonly ReportFunding[]
  /** Snapshots in the window, and before it (the baseline levels). */
  snapshots: readonly ReportSnapshot[]
  alerts: readonly ReportAlert[]
  symbols: ReadonlyMap<number, string>
}

export interface ReportRow {
  /** YYYY-MM-DD (UTC), an instrument's symbol, or `total`. */
  key: string
  realizedPnl: string
  unrealizedPnl: string
  fees: string
  funding: string
  netPnl: string
  volume: string
  fills: number
  makerShare: number | undefined
  maxDrawdown: string
  quotingHours: number
  haltedHours: number
  alertsRaised: number
  alertsResolved: number
}

export type ReportBy = 'day' | 'instrument'

const DAY_MS = 86_400_000
const dayOf = (ts: number): string => new Date(Math.floor(ts / DAY_MS) * DAY_MS).toISOString().slice(0, 10)
const abs = (s: string): string => (s.startsWith('-') ? s.slice(1) : s)
const HALTED = new Set(['halted', 'stopped', 'degraded', 'paused'])

interface Group {
  key: string
  /** Which rows belong. */
  fill: (f: ReportFill) => boolean
  funding: (f: ReportFunding) => boolean
  snapshot: (s: ReportSnapshot) => boolean
  alert: ((a: ReportAlert) => boolean) | undefined
  /** The window the group spans (for baseline levels and the curve). */
  from: number
  to: number
}

export function buildReport(input: ReportInput, by: ReportBy): ReportRow[] {
  const inWindow = (ts: number): boolean => ts >= input.since && ts <= input.until
  const groups: Group[] = []
  if (by === 'day') {
    const days = new Set<number>()
    for (let d = Math.floor(input.since / DAY_MS); d * DAY_MS <= input.until; d++) days.add(d)
    for (const d of days) {
      const from = Math.max(input.since, d * DAY_MS)
      const to = Math.min(input.until, (d + 1) * DAY_MS - 1)
      const inDay = (ts: number): boolean => ts >= from && ts <= to
      groups.push({
        key: dayOf(from),
        fill: (f) => inDay(f.ts),
        funding: (f) => inDay(f.ts),
        snapshot: () => true,
        alert: (a) => inDay(a.at),
        from,
        to,
      })
    }
  } else {
    const iids = new Set<number>()
    for (const f of input.fills) if (inWindow(f.ts)) iids.add(f.iid)
    for (const f of input.funding) if (inWindow(f.ts)) iids.add(f.iid)
    for (const s of input.snapshots) if (inWindow(s.minute)) iids.add(s.iid)
    for (const iid of [...iids].sort((a, b) => a - b))
      groups.push({
        key: input.symbols.get(iid) ?? `#${iid}`,
        fill: (f) => f.iid === iid && inWindow(f.ts),
        funding: (f) => f.iid === iid && inWindow(f.ts),
        snapshot: (s) => s.iid === iid,
        alert: undefined,
        from: input.since,
        to: input.until,
      })
  }
  const total: Group = {
    key: 'total',
    fill: (f) => inWindow(f.ts),
    funding: (f) => inWindow(f.ts),
    snapshot: () => true,
    alert: (a) => inWindow(a.at),
    from: input.since,
    to: input.until,
  }
  return [...groups, total].map((g) => row(input, g))
}

/** An unrealized level is one ledger's: per venue (each dry run's mock is its own) and instrument. */
const levelKey = (s: ReportSnapshot): string => `${s.venue ?? ''}:${s.iid}`

function row(input: ReportInput, g: Group): ReportRow {
  const fills = input.fills.filter(g.fill)
  const funding = input.funding.filter(g.funding)
  const snaps = input.snapshots.filter(g.snapshot)
  let realized = '0'
  let fees = '0'
  let fundingPaid = '0'
  let volume = '0'
  let maker = 0
  for (const f of fills) {
    realized = addDecimal(realized, f.realizedPnl)
    fees = addDecimal(fees, f.fee)
    volume = addDecimal(volume, abs(mulDecimal(f.qty, f.price)))
    if (!f.taker) maker += 1
  }
  for (const f of funding) fundingPaid = addDecimal(fundingPaid, f.amount)
  // Unrealized: the level per instrument before the group and at its end.
  const before = new Map<string, string>()
  const last = new Map<string, string>()
  let quotingMinutes = 0
  let haltedMinutes = 0
  for (const s of [...snaps].sort((a, b) => a.minute - b.minute)) {
    if (s.minute < g.from) before.set(levelKey(s), s.unrealizedPnl)
    else if (s.minute <= g.to) {
      last.set(levelKey(s), s.unrealizedPnl)
      if (s.mode === 'quoting' || s.mode.startsWith('quoting.')) quotingMinutes += 1
      else if (HALTED.has(s.mode)) haltedMinutes += 1
    }
  }
  let unrealizedChange = '0'
  for (const [key, level] of last)
    unrealizedChange = addDecimal(unrealizedChange, subDecimal(level, before.get(key) ?? '0'))
  const net = subDecimal(subDecimal(addDecimal(realized, unrealizedChange), fees), fundingPaid)
  const alerts = g.alert === undefined ? [] : input.alerts.filter(g.alert)
  return {
    key: g.key,
    realizedPnl: realized,
    unrealizedPnl: unrealizedChange,
    fees,
    funding: fundingPaid,
    netPnl: net,
    volume,
    fills: fills.length,
    makerShare: fills.length === 0 ? undefined : maker / fills.length,
    maxDrawdown: maxDrawdown(fills, funding, snaps, g, before),
    quotingHours: quotingMinutes / 60,
    haltedHours: haltedMinutes / 60,
    alertsRaised: alerts.filter((a) => !a.resolved).length,
    alertsResolved: alerts.filter((a) => a.resolved).length,
  }
}

/**
 * The largest fall of the equity curve from a previous peak within the group. Equity at a moment =
 * flows so far (realized − fees − funding since the group began) + the latest unrealized level per
 * instrument less its level before the group; it moves at every fill, funding and snapshot.
 */
function maxDrawdown(
  fills: readonly ReportFill[],
  funding: readonly ReportFunding[],
  snaps: readonly ReportSnapshot[],
  g: Group,
  before: ReadonlyMap<string, string>,
): string {
  type Ev = { t: number; flow?: string; key?: string; level?: string }
  const events: Ev[] = [
    ...fills.map((f) => ({ t: f.ts, flow: subDecimal(f.realizedPnl, f.fee) })),
    ...funding.map((f) => ({ t: f.ts, flow: subDecimal('0', f.amount) })),
    ...snaps
      .filter((s) => s.minute >= g.from && s.minute <= g.to)
      .map((s) => ({ t: s.minute, key: levelKey(s), level: s.unrealizedPnl })),
  ].sort((a, b) => a.t - b.t)
  let flows = '0'
  const level = new Map<string, string>(before)
  let unrealized = '0'
  let peak = '0'
  let worst = '0'
  for (const e of events) {
    if (e.flow !== undefined) flows = addDecimal(flows, e.flow)
    if (e.key !== undefined && e.level !== undefined) {
      unrealized = addDecimal(unrealized, subDecimal(e.level, level.get(e.key) ?? '0'))
      level.set(e.key, e.level)
    }
    const equity = addDecimal(flows, unrealized)
    if (compareDecimal(equity, peak) > 0) peak = equity
    const fall = subDecimal(peak, equity)
    if (compareDecimal(fall, worst) > 0) worst = fall
  }
  return worst
}

export interface TransferSummary {
  /** `deposit` | `withdrawal`. */
  kind: string
  status: string
  asset: string
  count: number
  /** Exact, in the asset's units when its decimals are known, else in base units. */
  amount: string
  unit: string
}

/** Withdrawals and deposits per kind, status and asset: how many and how much (exact). */
export function summarizeTransfers(input: ReportInput): TransferSummary[] {
  const groups = new Map<string, TransferSummary & { raw: bigint }>()
  for (const t of input.transfers ?? []) {
    const key = `${t.kind}|${t.status}|${t.asset}`
    const g = groups.get(key) ?? {
      kind: t.kind,
      status: t.status,
      asset: t.asset,
      count: 0,
      amount: '0',
      unit: t.asset,
      raw: 0n,
    }
    g.count += 1
    if (/^\d+$/.test(t.amount)) g.raw += BigInt(t.amount)
    groups.set(key, g)
  }
  return [...groups.values()]
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.status.localeCompare(b.status))
    .map(({ raw, ...g }) => {
      const decimals = input.assetDecimals?.get(g.asset)
      return decimals === undefined
        ? { ...g, amount: raw.toString(), unit: `${g.asset} base units` }
        : { ...g, amount: fromTicks(raw, decimals) }
    })
}
