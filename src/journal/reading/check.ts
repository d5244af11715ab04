/**
 * `perpbot report --check`, pure: the journal's fills and funding of one account against the venue's
 * own history over the same window, each difference named (missing from the journal, absent at the
 * venue, or held with other content), and both sides' totals per instrument.
 */
import { addDecimal, compareDecimal } from '../../decimal.ts'
import type { FillInput, FundingInput } from '../reconcile.ts'
import { FillRecord, FundingRecord } from '../records.ts'
import { fillDifference, fundingDifference } from '../rows.ts'

export interface JournalFillRow {
  trade_id: string
  order_id: number
  ts: number
  iid: number
  side: string
  price: string
  qty: string
  fee: string
  realized_pnl: string
  liquidation: number
}
export interface JournalFundingRow {
  key: string
  ts: number
  iid: number
  size: string
  amount: string
}

export interface CheckDifference {
  table: 'fills' | 'funding'
  problem: 'missing from the journal' | 'not at the venue' | 'differs'
  key: string
  detail: string
}

export interface CheckTotals {
  iid: number
  fills: number
  realizedPnl: string
  fees: string
  funding: string
}

export interface CheckResult {
  differences: CheckDifference[]
  journal: CheckTotals[]
  venue: CheckTotals[]
  /** Venue rows its schema refused (named apart: they cannot be compared). */
  venueInvalid: number
}

const at = (ts: number): string => new Date(ts).toISOString()

function totals(
  fills: readonly { iid: number; realized: string; fee: string }[],
  funding: readonly { iid: number; amount: string }[],
): CheckTotals[] {
  const m = new Map<number, CheckTotals>()
  const of = (iid: number): CheckTotals => {
    let t = m.get(iid)
    if (t === undefined) {
      t = { iid, fills: 0, realizedPnl: '0', fees: '0', funding: '0' }
      m.set(iid, t)
    }
    return t
  }
  for (const f of fills) {
    const t = of(f.iid)
    t.fills += 1
    t.realizedPnl = addDecimal(t.realizedPnl, f.realized)
    t.fees = addDecimal(t.fees, f.fee)
  }
  for (const c of funding) {
    const t = of(c.iid)
    t.funding = addDecimal(t.funding, c.amount)
  }
  return [...m.values()].sort((a, b) => a.iid - b.iid)
}

export function compareBooks(
  journal: { fills: readonly JournalFillRow[]; funding: readonly JournalFundingRow[] },
  venue: { fills: readonly FillInput[]; funding: readonly FundingInput[] },
): CheckResult {
  const differences: CheckDifference[] = []
  let venueInvalid = 0
  const fillKey = (tid: string, oid: number, ts: number): string => `${tid}|${oid}|${ts}`
  const held = new Map(journal.fills.map((f) => [fillKey(f.trade_id, Number(f.order_id), Number(f.ts)), f]))
  const venueFills: { iid: number; realized: string; fee: string }[] = []
  const seen = new Set<string>()
  for (const raw of venue.fills) {
    const p = FillRecord.safeParse(raw)
    if (!p.success) {
      venueInvalid += 1
      continue
    }
    const f = p.data
    const k = fillKey(f.tradeId, f.orderId, f.ts)
    if (seen.has(k)) continue
    seen.add(k)
    venueFills.push({ iid: f.iid, realized: f.realizedPnl, fee: f.fee })
    const label = `trade ${f.tradeId} / order ${f.orderId} at ${at(f.ts)}`
    const j = held.get(k)
    if (j === undefined) {
      differences.push({
        table: 'fills',
        problem: 'missing from the journal',
        key: label,
        detail: `${f.side} ${f.qty} @ ${f.price}, fee ${f.fee}, realized ${f.realizedPnl}`,
      })
      continue
    }
    const d = fillDifference(j, {
      iid: f.iid,
      side: f.side,
      price: f.price,
      qty: f.qty,
      fee: f.fee,
      realized_pnl: f.realizedPnl,
      liquidation: f.liquidation ? 1 : 0,
    })
    if (d !== undefined)
      differences.push({ table: 'fills', problem: 'differs', key: label, detail: `journal ≠ venue: ${d}` })
  }
  for (const j of journal.fills)
    if (!seen.has(fillKey(j.trade_id, Number(j.order_id), Number(j.ts))))
      differences.push({
        table: 'fills',
        problem: 'not at the venue',
        key: `trade ${j.trade_id} / order ${j.order_id} at ${at(Number(j.ts))}`,
        detail: `${j.side} ${j.qty} @ ${j.price}, fee ${j.fee}, realized ${j.realized_pnl}`,
      })
  const fundKey = (key: string, ts: number): string => `${key}|${ts}`
  const heldFunding = new Map(journal.funding.map((c) => [fundKey(c.key, Number(c.ts)), c]))
  const venueFunding: { iid: number; amount: string }[] = []
  const seenFunding = new Set<string>()
  for (const raw of venue.funding) {
    const p = FundingRecord.safeParse(raw)
    if (!p.success) {
      venueInvalid += 1
      continue
    }
    const c = p.data
    const k = fundKey(c.key, c.ts)
    if (seenFunding.has(k)) continue
    seenFunding.add(k)
    venueFunding.push({ iid: c.iid, amount: c.amount })
    const label = `funding ${c.key} at ${at(c.ts)}`
    const j = heldFunding.get(k)
    if (j === undefined) {
      differences.push({
        table: 'funding',
        problem: 'missing from the journal',
        key: label,
        detail: `paid ${c.amount}`,
      })
      continue
    }
    const d = fundingDifference(j, { iid: c.iid, amount: c.amount, size: c.size })
    if (d !== undefined)
      differences.push({ table: 'funding', problem: 'differs', key: label, detail: `journal ≠ venue: ${d}` })
  }
  for (const j of journal.funding)
    if (!seenFunding.has(fundKey(j.key, Number(j.ts))))
      differences.push({
        table: 'funding',
        problem: 'not at the venue',
        key: `funding ${j.key} at ${at(Number(j.ts))}`,
        detail: `paid ${j.amount}`,
      })
  return {
    differences,
    journal: totals(
      journal.fills.map((f) => ({ iid: f.iid, realized: f.realized_pnl, fee: f.fee })),
      journal.funding,
    ),
    venue: totals(venueFills, venueFunding),
    venueInvalid,
  }
}

/** Whether two totals lines agree to the last decimal. */
export function sameTotals(a: CheckTotals | undefined, b: CheckTotals | undefined): boolean {
  const z: CheckTotals = { iid: 0, fills: 0, realizedPnl: '0', fees: '0', funding: '0' }
  const x = a ?? z
  const y = b ?? z
  return (
    x.fills === y.fills &&
    compareDecimal(x.realizedPnl, y.realizedPnl) === 0 &&
    compareDecimal(x.fees, y.fees) === 0 &&
    compareDecimal(x.funding, y.funding) === 0
  )
}

export interface PositionDifference {
  iid: number
  /** The journal's position now (its last snapshot and the fills after it); undefined when unknown. */
  journal: string | undefined
  venue: string
}

/**
 * Positions now: the journal's (last snapshot per instrument plus the fills journaled after it)
 * against the venue's portfolio; each instrument where they differ, or where the journal cannot say.
 */
export function comparePositions(
  journal: ReadonlyMap<number, string | undefined>,
  venue: readonly { instrument_id: number; size: string }[],
): PositionDifference[] {
  const v = new Map(venue.map((p) => [p.instrument_id, p.size]))
  const out: PositionDifference[] = []
  for (const iid of [...new Set([...journal.keys(), ...v.keys()])].sort((a, b) => a - b)) {
    const j = journal.has(iid) ? journal.get(iid) : '0'
    const there = v.get(iid) ?? '0'
    if (j === undefined || compareDecimal(j, there) !== 0) out.push({ iid, journal: j, venue: there })
  }
  return out
}
