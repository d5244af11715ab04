/** The chaos run's last check: the journal against the venue's own record of fills and funding. */
import { existsSync } from 'node:fs'
import { openJournalDb } from '../src/journal/database.ts'
import type { PerpsExchange } from '../src/mock/perps/exchange.ts'
import { fundingKey } from '../src/perps/client/getFunding.ts'

/** Every row of a history read (pages of 100): windows split in half while a page says `more`. */
function allRows<R>(
  now: number,
  read: (w: { startTimestamp: number; endTimestamp: number }) => { data: R[]; more: boolean },
): R[] {
  const out: R[] = []
  const walk = (start: number, end: number): void => {
    const p = read({ startTimestamp: start, endTimestamp: end })
    if (!p.more || start >= end) {
      out.push(...p.data)
      return
    }
    const mid = Math.floor((start + end) / 2)
    walk(start, mid)
    walk(mid + 1, end)
  }
  walk(0, now + 60_000)
  return out
}

/** What the comparison reads of the venue: the mock's exchange core, the bot's proxy, the venue clock, and
 * when the last start reconciled (fills after it need not be journaled). */
export interface VenueRecord {
  exchange: Pick<PerpsExchange, 'accountOf' | 'fills' | 'funding'>
  proxy: `0x${string}`
  now: () => number
  reconcileUntil: number
}

/**
 * The journal at `path` against the venue's own record of the account's fills and funding: every venue
 * fill up to the last reconcile in the journal exactly once, field for field (no torn rows), none that
 * is not the venue's; the same for funding, which must hold at least one charge.
 */
export async function compareJournal(
  path: string,
  { exchange, proxy, now, reconcileUntil }: VenueRecord,
): Promise<{ pass: boolean; figure: string }> {
  if (!existsSync(path)) return { pass: false, figure: `no journal at ${path}` }
  const db = await openJournalDb({ kind: 'sqlite', path }, { readonly: true })
  try {
    const fills = await db.db.selectFrom('fills').selectAll().execute()
    const funding = await db.db.selectFrom('funding').selectAll().execute()
    const runs = await db.db.selectFrom('runs').select(['stopped_at']).execute()
    // History reads are the account owner's (the mock authenticates them by owner address).
    const owner = exchange.accountOf(proxy)?.owner ?? proxy
    const venueFills = allRows(now(), (w) => exchange.fills(owner, w))
    const venueFunding = allRows(now(), (w) => exchange.funding(owner, w))
    const byTid = new Map(fills.map((f) => [f.trade_id, f]))
    const trades = new Set(fills.map((f) => f.trade_id))
    const duplicates = fills.length - trades.size
    let missing = 0
    let lateMissing = 0
    let torn = 0
    // The mock's REST rows use the venue's long keys (bindings PerpsAccountFillSchema).
    for (const v of venueFills) {
      const j = byTid.get(String(v.trade_id))
      const ts = Number(v.timestamp)
      if (j === undefined) {
        if (ts <= reconcileUntil) missing += 1
        else lateMissing += 1
        continue
      }
      const same =
        j.order_id === v.order_id &&
        j.iid === v.instrument_id &&
        j.side === v.side &&
        j.price === v.price &&
        j.qty === v.quantity &&
        Boolean(j.taker) === v.taker &&
        j.fee === v.fee &&
        j.realized_pnl === v.pnl &&
        Boolean(j.liquidation) === v.liquidation &&
        Number(j.ts) === ts
      if (!same) torn += 1
    }
    const venueTids = new Set(venueFills.map((v) => String(v.trade_id)))
    const foreign = fills.filter((f) => !venueTids.has(f.trade_id)).length
    const fundingByKey = new Map(funding.map((f) => [f.key, f]))
    let fundingMissing = 0
    let fundingTorn = 0
    for (const c of venueFunding) {
      const j = fundingByKey.get(fundingKey(c))
      if (j === undefined) {
        if (c.timestamp <= reconcileUntil) fundingMissing += 1
        continue
      }
      const same =
        j.iid === c.instrument_id &&
        j.size === c.size &&
        j.rate === c.funding_rate &&
        j.amount === c.funding &&
        Number(j.ts) === c.timestamp
      if (!same) fundingTorn += 1
    }
    const venueFundingKeys = new Set(venueFunding.map(fundingKey))
    const fundingForeign = funding.filter((f) => !venueFundingKeys.has(f.key)).length
    const killed = runs.filter((r) => r.stopped_at === null).length
    return {
      // At least one funding charge: the run must cross a funding time with a position to compare them.
      pass:
        missing === 0 &&
        duplicates === 0 &&
        torn === 0 &&
        foreign === 0 &&
        venueFunding.length > 0 &&
        fundingMissing === 0 &&
        fundingTorn === 0 &&
        fundingForeign === 0,
      figure: `${venueFills.length} venue fills, ${fills.length} journaled: ${missing} missing, ${duplicates} duplicate, ${torn} torn, ${foreign} not the venue's (${lateMissing} made after the last start's reconcile, during its stop, not required); funding (every minute) ${venueFunding.length} venue, ${funding.length} journaled: ${fundingMissing} missing, ${fundingTorn} torn, ${fundingForeign} not the venue's; ${runs.length} runs journaled, ${killed} without a stop (killed)`,
    }
  } finally {
    await db.close()
  }
}
