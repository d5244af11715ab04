/**
 * The PnL ledger's starting point at a restart, from the journal: every fill and funding charge this
 * journal holds (its account's record since the first one), summed exactly per instrument, and the ids
 * of recent ones so the pollers' first, overlapping reads are not counted twice. A checkpoint in the
 * journal's `state` (the sums before a time a week back, counts checked at each start) keeps a start
 * from summing a million fills again (issue 34 point 6); every read runs off the bot's thread, paged.
 */
import { sql } from 'kysely'
import { z } from 'zod'
import { addDecimal, mulDecimal } from '../decimal.ts'
import type { PnlBaseline, PnlBaselineLine } from '../pnlTypes.ts'
import type { JournalDb } from './database.ts'
import type { JournalScope } from './journalScope.ts'
import { loadOpening } from './opening.ts'

/** Rows read per page, the event loop turning between pages. */
const PAGE = 1_000
/** Fills summed between turns of the event loop (~2.5 ms of CPU, idle). */
const SUM_CHUNK = 250

/** The `state` row of an account's checkpoint: its sums before a time, so a start reads only what came after. */
export const checkpointStateName = (scope: JournalScope): string =>
  `pnl-baseline:${scope.account}:${scope.venue}`

const Line = z.object({
  fills: z.number().int(),
  makerFills: z.number().int(),
  liquidationFills: z.number().int(),
  volume: z.string(),
  realizedPnl: z.string(),
  fees: z.string(),
  funding: z.string(),
  lastFillAt: z.number().optional(),
})
/**
 * The account's sums over every fill and funding charge dated before `before`, with how many there
 * were: a start checks the counts (an index count on the reader thread) and, when they still hold,
 * reads only the rows dated from `before` on; when they do not (a row arrived later dated before it),
 * it sums everything again.
 */
const Checkpoint = z.object({
  before: z.number(),
  fills: z.number().int(),
  funding: z.number().int(),
  instruments: z.record(z.string(), Line),
})
type Checkpoint = z.infer<typeof Checkpoint>

/** Fills and funding at or after `recentSince` have their ids remembered (bounded by `recentKept`). */
export async function loadPnlBaseline(
  db: JournalDb,
  o: {
    recentSince: number
    recentKept?: number | undefined
    /** Whose rows: only this account's on this venue. */
    scope: JournalScope
    /**
     * Rows dated before this are final (no fill arrives later dated before it): the sums up to it are
     * handed to `saveCheckpoint` for the next start. Without it no checkpoint is read or made.
     */
    checkpointBefore?: number | undefined
    saveCheckpoint?: ((name: string, value: Checkpoint) => void) | undefined
  },
): Promise<PnlBaseline> {
  const kept = o.recentKept ?? 10_000
  const { account, venue } = o.scope
  // Every read here runs on the reader thread (SQLite) or the pool (PostgreSQL), in pages.
  const r = db.reads
  const instruments: Record<number, PnlBaselineLine> = {}
  const held = o.checkpointBefore === undefined ? undefined : await validCheckpoint(db, o.scope)
  for (const [iid, l] of Object.entries(held?.instruments ?? {}))
    instruments[Number(iid)] = { ...l, lastFillAt: l.lastFillAt }
  const from = held?.before ?? Number.NEGATIVE_INFINITY
  // The next checkpoint: the sums over rows dated before `next`, taken as the pages pass it.
  const next =
    o.checkpointBefore !== undefined && o.checkpointBefore > (held?.before ?? Number.NEGATIVE_INFINITY)
      ? o.checkpointBefore
      : undefined
  let taken: Record<number, PnlBaselineLine> | undefined
  let fillsBefore = held?.fills ?? 0
  let fundingBefore = held?.funding ?? 0
  const take = (): void => {
    taken = {}
    for (const [iid, l] of Object.entries(instruments)) taken[Number(iid)] = { ...l }
  }
  const line = (iid: number): PnlBaselineLine => {
    let l = instruments[iid]
    if (l === undefined) {
      l = emptyLine()
      instruments[iid] = l
    }
    return l
  }
  // Keyset pages on (time, ids), the event loop turning between them: a journal of a million fills
  // is read without holding the bot's thread.
  let after: { ts: number; tid: string; oid: number } | undefined
  for (;;) {
    const cursor = after
    const page = await r
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
      .$if(Number.isFinite(from), (q) => q.where('ts', '>=', from))
      // `ts >=` beside the tie-break: the index on (account, venue, ts) starts each page at the cursor
      // (the `or` alone made SQLite walk the account's fills from the first on every page: quadratic).
      .$if(cursor !== undefined, (q) =>
        q
          .where('ts', '>=', cursor?.ts ?? 0)
          .where((eb) =>
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
    for (const [i, f] of page.entries()) {
      // Exact decimal sums cost ~10 µs a fill: the loop turns every SUM_CHUNK of them too.
      if (i > 0 && i % SUM_CHUNK === 0) await turn()
      const ts = Number(f.ts)
      if (next !== undefined && taken === undefined && ts >= next) take()
      if (next !== undefined && ts < next) fillsBefore += 1
      const l = line(f.iid)
      l.fills += 1
      if (Number(f.taker) === 0) l.makerFills += 1
      if (Number(f.liquidation) !== 0) l.liquidationFills += 1
      const v = mulDecimal(f.qty, f.price)
      l.volume = addDecimal(l.volume, v.startsWith('-') ? v.slice(1) : v)
      l.realizedPnl = addDecimal(l.realizedPnl, f.realized_pnl)
      l.fees = addDecimal(l.fees, f.fee)
      l.lastFillAt = Math.max(l.lastFillAt ?? ts, ts)
    }
    const last = page.at(-1)
    if (page.length < PAGE || last === undefined) break
    after = { ts: Number(last.ts), tid: last.trade_id, oid: Number(last.order_id) }
    await turn()
  }
  if (next !== undefined && taken === undefined) take()
  let fundingAfter: { ts: number; key: string } | undefined
  for (;;) {
    const cursor = fundingAfter
    const page = await r
      .selectFrom('funding')
      .select(['iid', 'amount', 'ts', 'key'])
      .where('account', '=', account)
      .where('venue', '=', venue)
      .$if(Number.isFinite(from), (q) => q.where('ts', '>=', from))
      .$if(cursor !== undefined, (q) =>
        q
          .where('ts', '>=', cursor?.ts ?? 0)
          .where((eb) =>
            eb.or([
              eb('ts', '>', cursor?.ts ?? 0),
              eb.and([eb('ts', '=', cursor?.ts ?? 0), eb('key', '>', cursor?.key ?? '')]),
            ]),
          ),
      )
      .orderBy('ts')
      .orderBy('key')
      .limit(PAGE)
      .execute()
    for (const c of page) {
      const l = line(c.iid)
      l.funding = addDecimal(l.funding, c.amount)
      if (next !== undefined && taken !== undefined && Number(c.ts) < next) {
        fundingBefore += 1
        const t = taken[c.iid] ?? emptyLine()
        taken[c.iid] = t
        t.funding = addDecimal(t.funding, c.amount)
      }
    }
    const last = page.at(-1)
    if (page.length < PAGE || last === undefined) break
    fundingAfter = { ts: Number(last.ts), key: last.key }
    await turn()
  }
  if (next !== undefined && taken !== undefined)
    o.saveCheckpoint?.(checkpointStateName(o.scope), {
      before: next,
      fills: fillsBefore,
      funding: fundingBefore,
      instruments: taken,
    })
  const recentFills = await r
    .selectFrom('fills')
    .select(['trade_id', 'order_id', 'ts'])
    .where('account', '=', account)
    .where('venue', '=', venue)
    .where('ts', '>=', o.recentSince)
    .orderBy(sql`ts`, 'desc')
    .limit(kept)
    .execute()
  const recentFunding = await r
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

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

function emptyLine(): PnlBaselineLine {
  return {
    fills: 0,
    makerFills: 0,
    liquidationFills: 0,
    volume: '0',
    realizedPnl: '0',
    fees: '0',
    funding: '0',
    lastFillAt: undefined,
  }
}

/** The account's checkpoint when its counts still hold (no row dated before it came since), else undefined. */
async function validCheckpoint(db: JournalDb, scope: JournalScope): Promise<Checkpoint | undefined> {
  const row = await db.reads
    .selectFrom('state')
    .select('value')
    .where('name', '=', checkpointStateName(scope))
    .executeTakeFirst()
  if (row === undefined) return undefined
  let value: unknown
  try {
    value = JSON.parse(row.value)
  } catch {
    return undefined
  }
  const cp = Checkpoint.safeParse(value)
  if (!cp.success) return undefined
  const count = async (table: 'fills' | 'funding'): Promise<number> => {
    const c = await db.reads
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account', '=', scope.account)
      .where('venue', '=', scope.venue)
      .where('ts', '<', cp.data.before)
      .executeTakeFirst()
    return Number(c?.n ?? 0)
  }
  if ((await count('fills')) !== cp.data.fills || (await count('funding')) !== cp.data.funding)
    return undefined
  return cp.data
}
