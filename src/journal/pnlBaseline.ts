/**
 * The PnL ledger's starting point at a restart, from the journal: every fill and funding charge this
 * journal holds (its account's record since the first one), summed exactly per instrument, and the ids
 * of recent ones so the pollers' first, overlapping reads are not counted twice.
 */
import { sql } from 'kysely'
import { addDecimal, mulDecimal } from '../decimal.ts'
import type { PnlBaseline, PnlBaselineLine } from '../pnlTypes.ts'
import type { JournalDb } from './database.ts'
import type { JournalScope } from './journalScope.ts'
import { loadOpening } from './opening.ts'

/** Fills read per page (a few ms each on SQLite), the event loop turning between pages. */
const PAGE = 2_000

/** Fills and funding at or after `recentSince` have their ids remembered (bounded by `recentKept`). */
export async function loadPnlBaseline(
  db: JournalDb,
  o: {
    recentSince: number
    recentKept?: number | undefined
    /** Whose rows: only this account's on this venue. */
    scope: JournalScope
  },
): Promise<PnlBaseline> {
  const kept = o.recentKept ?? 10_000
  const { account, venue } = o.scope
  const instruments: Record<number, PnlBaselineLine> = {}
  const line = (iid: number): PnlBaselineLine => {
    let l = instruments[iid]
    if (l === undefined) {
      l = {
        fills: 0,
        makerFills: 0,
        liquidationFills: 0,
        volume: '0',
        realizedPnl: '0',
        fees: '0',
        funding: '0',
        lastFillAt: undefined,
      }
      instruments[iid] = l
    }
    return l
  }
  // Paged (keyset on time and ids), the event loop turning between pages: a journal of a million
  // fills is read without holding the bot's thread (SQLite reads are synchronous).
  let after: { ts: number; tid: string; oid: number } | undefined
  for (;;) {
    const cursor = after
    const page = await db.db
      .selectFrom('fills')
      .select([
        'iid',
        'price',
        'qty',
        'taker',
        'fee',
        'realized_pnl',
        'liquidation',
        'ts',
        'trade_id',
        'order_id',
      ])
      .where('account', '=', account)
      .where('venue', '=', venue)
      .$if(cursor !== undefined, (q) =>
        q.where((eb) =>
          eb.or([
            eb('ts', '>', cursor?.ts ?? 0),
            eb.and([
              eb('ts', '=', cursor?.ts ?? 0),
              eb.or([
                eb('trade_id', '>', cursor?.tid ?? ''),
                eb.and([eb('trade_id', '=', cursor?.tid ?? ''), eb('order_id', '>', cursor?.oid ?? 0)]),
              ]),
            ]),
          ]),
        ),
      )
      .orderBy('ts')
      .orderBy('trade_id')
      .orderBy('order_id')
      .limit(PAGE)
      .execute()
    for (const f of page) {
      const l = line(f.iid)
      l.fills += 1
      if (Number(f.taker) === 0) l.makerFills += 1
      if (Number(f.liquidation) !== 0) l.liquidationFills += 1
      const v = mulDecimal(f.qty, f.price)
      l.volume = addDecimal(l.volume, v.startsWith('-') ? v.slice(1) : v)
      l.realizedPnl = addDecimal(l.realizedPnl, f.realized_pnl)
      l.fees = addDecimal(l.fees, f.fee)
      const ts = Number(f.ts)
      l.lastFillAt = Math.max(l.lastFillAt ?? ts, ts)
    }
    const last = page.at(-1)
    if (page.length < PAGE || last === undefined) break
    after = { ts: Number(last.ts), tid: last.trade_id, oid: Number(last.order_id) }
    await new Promise((r) => setImmediate(r))
  }
  const funding = await db.db
    .selectFrom('funding')
    .select(['iid', 'amount'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .execute()
  for (const c of funding) {
    const l = line(c.iid)
    l.funding = addDecimal(l.funding, c.amount)
  }
  const recentFills = await db.db
    .selectFrom('fills')
    .select(['trade_id', 'order_id', 'ts'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('ts', '>=', o.recentSince)
    .orderBy(sql`ts`, 'desc')
    .limit(kept)
    .execute()
  const recentFunding = await db.db
    .selectFrom('funding')
    .select(['key', 'ts'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('ts', '>=', o.recentSince)
    .orderBy(sql`ts`, 'desc')
    .limit(kept)
    .execute()
  const opening = await loadOpening(db, o.scope)
  return {
    instruments,
    recentFills: recentFills.map((f) => `${f.trade_id}:${f.order_id}:${Number(f.ts)}`),
    recentFunding: recentFunding.map((c) => `${c.key}:${Number(c.ts)}`),
    ...(opening === undefined ? {} : { opening }),
  }
}
