/**
 * `perpbot status --fleet` and the ops server's `/fleet` page: every account of the list with its
 * holder, epoch and lease time left, the holder's own report (bot state, net PnL, its weight in the
 * window; fleetReport.ts), and the egress budget's weight in the window, from three read-only round
 * trips to Redis. The table is pure (`formatFleetView`).
 */
import { peekLeases } from './accountClaim.ts'
import { budgetKeys, PEEK_BUDGET_LUA } from './budgetScripts.ts'
import { type HolderReport, type ReportClient, readHolderReports } from './fleetReport.ts'
import { intAt, LuaScript, type ScriptClient } from './redisScript.ts'

export interface FleetAccountView {
  readonly account: string
  readonly state: 'held' | 'free'
  readonly holder: string | undefined
  readonly epoch: number | undefined
  readonly ttlMs: number | undefined
  /** The holder's report, when its epoch is the lease's (a report of an older holder is not shown). */
  readonly report: HolderReport | undefined
}

export interface FleetView {
  readonly egressId: string
  readonly budget: number
  /** The budget's window (ms): the venue's minute unless compressed (FLEET_WINDOW_MS). */
  readonly windowMs?: number | undefined
  readonly windowWeight: number
  readonly pausedMs: number
  readonly accounts: readonly FleetAccountView[]
}

const peekBudget = new LuaScript(PEEK_BUDGET_LUA)

export async function readFleetView(
  client: ScriptClient & Pick<ReportClient, 'mget'>,
  o: {
    accounts: readonly string[]
    egressId: string
    budget: number
    windowMs?: number | undefined
    keyPrefix?: string | undefined
  },
): Promise<FleetView> {
  const prefix = o.keyPrefix ?? 'perpbot'
  const leases = await peekLeases(client, o.accounts, prefix)
  const k = budgetKeys(prefix, o.egressId)
  const b = await peekBudget.run(client, [k.log, k.blocked], [o.windowMs ?? 60_000])
  const reports = await readHolderReports(client, o.accounts, prefix)
  return {
    egressId: o.egressId,
    budget: o.budget,
    windowMs: o.windowMs ?? 60_000,
    windowWeight: intAt(b, 0),
    pausedMs: intAt(b, 1),
    accounts: leases.map((l) => {
      const [epochText, ...holder] = (l.holder ?? '').split(':')
      const epoch = l.holder === undefined ? undefined : Number(epochText)
      const report = reports.get(l.account)
      return {
        account: l.account,
        state: l.holder === undefined ? 'free' : 'held',
        holder: l.holder === undefined ? undefined : holder.join(':'),
        epoch,
        ttlMs: l.ttlMs,
        report: report !== undefined && report.epoch === epoch ? report : undefined,
      }
    }),
  }
}

export function formatFleetView(v: FleetView): string {
  const rows = v.accounts.map((a) => [
    a.account,
    a.state,
    a.holder ?? '-',
    a.epoch === undefined ? '-' : String(a.epoch),
    a.ttlMs === undefined ? '-' : `${(a.ttlMs / 1000).toFixed(1)} s`,
    a.report?.state ?? '-',
    a.report?.netPnl === undefined ? '-' : `${a.report.netPnl} ${a.report.currency ?? ''}`.trim(),
    a.report === undefined ? '-' : `${a.report.ownWeight} (${share(a.report.ownWeight, v.budget)} %)`,
  ])
  const head = ['account', 'state', 'holder', 'epoch', 'lease left', 'bot', 'net PnL', 'weight in window']
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (r: readonly string[]): string =>
    r
      .map((c, i) => c.padEnd(width[i] ?? 0))
      .join('  ')
      .trimEnd()
  const pct = share(v.windowWeight, v.budget)
  const held = v.accounts.filter((a) => a.state === 'held').length
  return [
    `egress ${v.egressId}: request weight ${v.windowWeight} of ${v.budget} in the last ${v.windowMs === undefined || v.windowMs === 60_000 ? 'minute' : `${v.windowMs / 1000} s`} (${pct} %)${v.pausedMs > 0 ? `; paused ${Math.ceil(v.pausedMs / 1000)} s after a 429` : ''}`,
    `accounts: ${held} of ${v.accounts.length} held`,
    line(head),
    ...rows.map(line),
  ].join('\n')
}

/** A weight as a whole percentage of the budget. */
export const share = (weight: number, budget: number): number =>
  budget > 0 ? Math.round((100 * weight) / budget) : 0
