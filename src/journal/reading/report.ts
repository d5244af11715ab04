/**
 * `perpbot report`'s numbers, pure: from one account's journal rows (fills, funding, per-minute
 * snapshots, alerts, runs) in a window, per day, instrument or run, and in total. Flows (realized
 * PnL, fees, funding, volume) are summed exactly from fills and funding, the journal's own truth
 * across restarts; unrealized PnL is a level the venue reports, so a group shows its change (last
 * level in the group less the level before it). The opening inventory's change in value (a position
 * held before the account's first run) is shown apart and is not in net:
 * net = realized + unrealized change − inventory change − fees − funding.
 * The drawdown walks the equity curve (every fill and funding charge, and each minute's levels) with
 * the one drawdown function (`pnlDrawdown.ts`). Hours are wall hours: a minute counts once for the
 * account however many instruments quoted in it, and only for the part a run covered.
 */
import { addDecimal, compareDecimal, fromTicks, mulDecimal, subDecimal } from '../../decimal.ts'
import { maxDrawdown as drawdownOf } from '../../pnlDrawdown.ts'

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
  tradeId?: string | undefined
  orderId?: number | undefined
  liquidation?: boolean | undefined
  feeAsset?: string | undefined
  /** The book's mid at the fill, 1 s, 10 s and 60 s after it (`FILL_MID_HORIZONS_MS`); undefined: unknown. */
  mids?: readonly (string | undefined)[] | undefined
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
  /** The opening inventory's change in value at that minute (not in net). */
  inventoryPnl?: string | undefined
  position?: string | undefined
  /** Wall ms of the minute the sample stands for (default the whole minute). */
  spanMs?: number | undefined
}
export interface ReportAlert {
  at: number
  resolved: boolean
}
export interface ReportRun {
  runId: string
  startedAt: number
  stoppedAt: number | undefined
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
  /** The account's runs overlapping the window (for `--by run`). */
  runs?: readonly ReportRun[] | undefined
  /** The currency every amount is in (the fills' fee asset); undefined when the journal cannot say. */
  currency?: string | undefined
  /**
   * The account's net PnL every 2 s of bot time (the ledger's, as the dashboard draws it), from the
   * last sample before the window: the drawdown walks it where it covers a group.
   */
  equity?: readonly { at: number; net: string }[] | undefined
}

export interface ReportRow {
  /** YYYY-MM-DD (UTC), an instrument's symbol, a run, or `total`. */
  key: string
  realizedPnl: string
  /** The change of unrealized PnL over the group, less the opening inventory's. */
  unrealizedPnl: string
  /** The opening inventory's change in value over the group (not in net). */
  inventoryPnl: string
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
  /** Positions at the group's end, per instrument (`BTC-PERP 0.5`), '' when flat, '?' when unknown. */
  endPosition: string
}

export type ReportBy = 'day' | 'instrument' | 'run'

const DAY_MS = 86_400_000
const dayOf = (ts: number): string => new Date(Math.floor(ts / DAY_MS) * DAY_MS).toISOString().slice(0, 10)
const abs = (s: string): string => (s.startsWith('-') ? s.slice(1) : s)
const HALTED = new Set(['halted', 'stopped', 'degraded', 'paused'])
const isQuoting = (mode: string): boolean => mode === 'quoting' || mode.startsWith('quoting.')

export interface ReportGroup {
  key: string
  /** Which instrument (undefined: every one). */
  iid: number | undefined
  /** The window the group spans, inclusive. */
  from: number
  to: number
  alerts: boolean
}

export function buildReport(input: ReportInput, by: ReportBy): ReportRow[] {
  return reportGroups(input, by).map((g) => row(input, g))
}

/** The report's rows (per day, run or instrument, then `total`): which instrument and time each spans. */
export function reportGroups(input: ReportInput, by: ReportBy): ReportGroup[] {
  const groups: ReportGroup[] = []
  const inWindow = (ts: number): boolean => ts >= input.since && ts <= input.until
  if (by === 'day') {
    for (let d = Math.floor(input.since / DAY_MS); d * DAY_MS <= input.until; d++) {
      const from = Math.max(input.since, d * DAY_MS)
      groups.push({
        key: dayOf(from),
        iid: undefined,
        from,
        to: Math.min(input.until, (d + 1) * DAY_MS - 1),
        alerts: true,
      })
    }
  } else if (by === 'run') {
    for (const r of [...(input.runs ?? [])].sort((a, b) => a.startedAt - b.startedAt)) {
      const from = Math.max(input.since, r.startedAt)
      const to = Math.min(input.until, r.stoppedAt ?? input.until)
      if (from > to) continue
      groups.push({
        key: `${new Date(r.startedAt).toISOString().slice(0, 19)}Z ${r.runId.slice(0, 8)}`,
        iid: undefined,
        from,
        to,
        alerts: true,
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
        iid,
        from: input.since,
        to: input.until,
        alerts: false,
      })
  }
  const total: ReportGroup = {
    key: 'total',
    iid: undefined,
    from: input.since,
    to: input.until,
    alerts: true,
  }
  return [...groups, total]
}

/** An unrealized level is one ledger's: per venue (each dry run's mock is its own) and instrument. */
const levelKey = (s: ReportSnapshot): string => `${s.venue ?? ''}:${s.iid}`
/** The level net counts: unrealized less the opening inventory's change. */
const tradingLevel = (s: ReportSnapshot): string => subDecimal(s.unrealizedPnl, s.inventoryPnl ?? '0')
const signedQty = (f: ReportFill): string =>
  f.side === 'short' ? subDecimal('0', f.qty) : f.side === 'long' ? f.qty : '0'

function row(input: ReportInput, g: ReportGroup): ReportRow {
  const mine = (iid: number): boolean => g.iid === undefined || g.iid === iid
  const inGroup = (ts: number): boolean => ts >= g.from && ts <= g.to
  const fills = input.fills.filter((f) => mine(f.iid) && inGroup(f.ts))
  const funding = input.funding.filter((f) => mine(f.iid) && inGroup(f.ts))
  const snaps = input.snapshots.filter((s) => mine(s.iid)).sort((a, b) => a.minute - b.minute)
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
  // Levels per instrument before the group and at its end; wall time per minute.
  const before = new Map<string, ReportSnapshot>()
  const last = new Map<string, ReportSnapshot>()
  const quotingMs = new Map<number, number>()
  const haltedMs = new Map<number, number>()
  for (const s of snaps) {
    if (s.minute < g.from) before.set(levelKey(s), s)
    else if (s.minute <= g.to) {
      last.set(levelKey(s), s)
      const span = s.spanMs ?? 60_000
      const bucket = isQuoting(s.mode) ? quotingMs : HALTED.has(s.mode) ? haltedMs : undefined
      if (bucket !== undefined) bucket.set(s.minute, Math.max(bucket.get(s.minute) ?? 0, span))
    }
  }
  let unrealizedChange = '0'
  let inventoryChange = '0'
  for (const [key, s] of last) {
    const b = before.get(key)
    unrealizedChange = addDecimal(unrealizedChange, subDecimal(tradingLevel(s), b ? tradingLevel(b) : '0'))
    inventoryChange = addDecimal(inventoryChange, subDecimal(s.inventoryPnl ?? '0', b?.inventoryPnl ?? '0'))
  }
  const net = subDecimal(subDecimal(addDecimal(realized, unrealizedChange), fees), fundingPaid)
  const alerts = g.alerts ? input.alerts.filter((a) => inGroup(a.at)) : []
  const sum = (m: ReadonlyMap<number, number>): number => [...m.values()].reduce((a, b) => a + b, 0)
  return {
    key: g.key,
    realizedPnl: realized,
    unrealizedPnl: unrealizedChange,
    inventoryPnl: inventoryChange,
    fees,
    funding: fundingPaid,
    netPnl: net,
    volume,
    fills: fills.length,
    makerShare: fills.length === 0 ? undefined : maker / fills.length,
    maxDrawdown: drawdownText(sampledCurve(input, g) ?? equityCurve(fills, funding, snaps, g, before)),
    quotingHours: sum(quotingMs) / 3_600_000,
    haltedHours: sum(haltedMs) / 3_600_000,
    alertsRaised: alerts.filter((a) => !a.resolved).length,
    alertsResolved: alerts.filter((a) => a.resolved).length,
    endPosition: endPositions(input, g, snaps),
  }
}

/**
 * The group's equity curve: 0 at its start, then flows so far (realized − fees − funding) + the latest
 * trading level per instrument less its level before the group, at every fill, funding and snapshot.
 */
function equityCurve(
  fills: readonly ReportFill[],
  funding: readonly ReportFunding[],
  snaps: readonly ReportSnapshot[],
  g: ReportGroup,
  before: ReadonlyMap<string, ReportSnapshot>,
): number[] {
  type Ev = { t: number; flow?: string; key?: string; level?: string }
  const events: Ev[] = [
    ...fills.map((f) => ({ t: f.ts, flow: subDecimal(f.realizedPnl, f.fee) })),
    ...funding.map((f) => ({ t: f.ts, flow: subDecimal('0', f.amount) })),
    ...snaps
      .filter((s) => s.minute >= g.from && s.minute <= g.to)
      .map((s) => ({ t: s.minute, key: levelKey(s), level: tradingLevel(s) })),
  ].sort((a, b) => a.t - b.t)
  let flows = '0'
  const level = new Map<string, string>([...before].map(([k, s]) => [k, tradingLevel(s)]))
  let unrealized = '0'
  const curve = [0]
  for (const e of events) {
    if (e.flow !== undefined) flows = addDecimal(flows, e.flow)
    if (e.key !== undefined && e.level !== undefined) {
      unrealized = addDecimal(unrealized, subDecimal(e.level, level.get(e.key) ?? '0'))
      level.set(e.key, e.level)
    }
    curve.push(Number(addDecimal(flows, unrealized)))
  }
  return curve
}

/**
 * The account's sampled net (every 2 s of bot time, every mark change and fill the ledger saw) over
 * the group, from the last sample before it; undefined for an instrument's group or where the journal
 * holds no samples in the group (older than their retention): then the minute curve.
 */
function sampledCurve(input: ReportInput, g: ReportGroup): number[] | undefined {
  if (g.iid !== undefined || input.equity === undefined) return undefined
  return equitySamplesCurve(input.equity, g.from, g.to)
}

/** The sampled curve of [from, to] from the last sample before it; undefined without samples in it. */
export function equitySamplesCurve(
  equity: readonly { at: number; net: string }[],
  from: number,
  to: number,
): number[] | undefined {
  const inGroup = equity.filter((e) => e.at >= from && e.at <= to)
  if (inGroup.length === 0) return undefined
  let base: { net: string } | undefined
  for (const e of equity) if (e.at < from) base = e
  const points = inGroup.map((e) => Number(e.net))
  return base === undefined ? points : [Number(base.net), ...points]
}

/** The drawdown to 1e-8 (a float figure of exact inputs). */
export function drawdownText(curve: readonly number[]): string {
  const d = drawdownOf(curve)
  const t = d.toFixed(8).replace(/0+$/, '').replace(/\.$/, '')
  return t === '' ? '0' : t
}

/**
 * When a snapshot's levels were read: a minute's sample at its start; the last one of a run (a part
 * minute, `spanMs` < 60 s) at the stop.
 */
export const takenAt = (s: { minute: number; spanMs?: number | undefined }): number =>
  s.spanMs !== undefined && s.spanMs < 60_000 ? s.minute + s.spanMs : s.minute

/**
 * Positions at the group's end: each instrument's last snapshot at or before the end plus the fills
 * after it; an instrument with fills but no snapshot is unknown ('?').
 */
function endPositions(input: ReportInput, g: ReportGroup, snaps: readonly ReportSnapshot[]): string {
  const at = new Map<number, { minute: number; position: string | undefined }>()
  for (const s of snaps) if (s.minute <= g.to) at.set(s.iid, { minute: takenAt(s), position: s.position })
  const iids = new Set<number>(at.keys())
  for (const f of input.fills) if ((g.iid === undefined || f.iid === g.iid) && f.ts <= g.to) iids.add(f.iid)
  const parts: string[] = []
  for (const iid of [...iids].sort((a, b) => a - b)) {
    const base = at.get(iid)
    const symbol = input.symbols.get(iid) ?? `#${iid}`
    if (base?.position === undefined) {
      parts.push(`${symbol} ?`)
      continue
    }
    let p = base.position
    for (const f of input.fills)
      if (f.iid === iid && f.ts > base.minute && f.ts <= g.to) p = addDecimal(p, signedQty(f))
    if (compareDecimal(p, '0') !== 0) parts.push(`${symbol} ${p}`)
  }
  return parts.join('; ')
}

export interface TransferSummary {
  /** `deposit` | `withdrawal`. */
  kind: string
  status: string
  asset: string
  count: number
  /** Exact, in the asset's units; undefined when the journal does not hold the asset's decimals. */
  amount: string | undefined
  unit: string
}

/**
 * Withdrawals and deposits per kind, status and asset: how many and how much (exact, in asset units).
 * An integer amount is base units (as the venue sends deposits and withdrawals) and needs the asset's
 * decimals; an amount with a decimal point is in asset units already.
 */
export function summarizeTransfers(input: ReportInput): TransferSummary[] {
  type Acc = Omit<TransferSummary, 'amount'> & { raw: bigint; rawCount: number; units: string }
  const groups = new Map<string, Acc>()
  for (const t of input.transfers ?? []) {
    const key = `${t.kind}|${t.status}|${t.asset}`
    const g = groups.get(key) ?? {
      kind: t.kind,
      status: t.status,
      asset: t.asset,
      count: 0,
      unit: t.asset,
      raw: 0n,
      rawCount: 0,
      units: '0',
    }
    g.count += 1
    if (/^\d+$/.test(t.amount)) {
      g.raw += BigInt(t.amount)
      g.rawCount += 1
    } else g.units = addDecimal(g.units, t.amount)
    groups.set(key, g)
  }
  return [...groups.values()]
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.status.localeCompare(b.status))
    .map(({ raw, rawCount, units, ...g }) => {
      const decimals = input.assetDecimals?.get(g.asset)
      // Never base units: without the asset's decimals the amount is unknown, not a wrong number.
      if (rawCount > 0 && decimals === undefined) return { ...g, amount: undefined }
      return { ...g, amount: addDecimal(units, rawCount > 0 ? fromTicks(raw, decimals ?? 0) : '0') }
    })
}
