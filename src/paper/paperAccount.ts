/**
 * The paper account: one fixed local identity (its keys sign only for the local paper book, never
 * for the venue, so they are derived from a public phrase and are no secret), journaled under the
 * venue label `paper`; and its resumption at a restart from the journal's paper fills and funding:
 * cash (the starting collateral plus realized PnL, less fees and funding paid), positions (replayed
 * through the local book's own position rule), and the ids the local book hands out next (so a
 * restart's fills never reuse an id the journal holds). Open orders are not resumed: the exit policy
 * cancelled them at a stop, and after a kill the bot quotes afresh (docs/decisions.md).
 */
import { keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { z } from 'zod'
import { addDecimal, subDecimal, toTicks } from '../decimal.ts'
import type { JournalDb } from '../journal/database.ts'
import type { Journal } from '../journal/journal.ts'
import { fillInput, fundingInput } from '../journal/perpsHistory.ts'
import { applyFill, newPosition, type PositionState } from '../mock/perps/account/positions.ts'
import type { PerpsExchange } from '../mock/perps/exchange.ts'
import type { InstrumentSpec } from '../mock/perps/instruments.ts'
import { parseUsd } from '../mock/perps/money.ts'
import type { AccountSeed } from '../mock/perps/options.ts'

/** The journal's venue label of every paper row (fills, funding, commands, …). */
export const PAPER_VENUE = 'paper'

/** Named journal state: the ids the paper book handed out, saved at its close. */
const PAPER_IDS_STATE = 'paper.ids'
const savedIds = z.object({
  lastTradeId: z.number().int().nonnegative(),
  lastOrderId: z.number().int().nonnegative(),
  lastFundingId: z.number().int().nonnegative(),
})

const key = (phrase: string): `0x${string}` => keccak256(stringToHex(phrase))

/** The paper account's keys: local only (the paper book verifies them; the venue never sees them). */
export const PAPER_KEYS = {
  proxyKey: key('perpbot paper account: proxy'),
  owner: privateKeyToAccount(key('perpbot paper account: owner')).address,
  secret: 'perpbot-paper-local-secret',
} as const

export const paperProxyAddress = (): string => privateKeyToAccount(PAPER_KEYS.proxyKey).address

/** The paper account as the local book's seed, with its resumed cash. */
export function paperAccountSeed(collateral: string, now: number): AccountSeed {
  return {
    owner: PAPER_KEYS.owner,
    collateral,
    proxies: [
      {
        proxy: paperProxyAddress(),
        secret: PAPER_KEYS.secret,
        expiry: now + 365 * 86_400_000,
        label: 'perpbot paper',
      },
    ],
  }
}

export interface PaperResume {
  collateral: string
  fills: number
  funding: number
  /** Signed size and cost basis per instrument, in the instrument's ticks (positions.ts). */
  positions: PositionState[]
  lastTradeId: number
  lastOrderId: number
  lastFundingId: number
}

/** The paper account as the journal left it (nothing journaled: the starting collateral, flat). */
export async function loadPaperResume(
  db: JournalDb,
  specs: readonly InstrumentSpec[],
  startingCollateral: string,
): Promise<PaperResume> {
  const fills = await db.db
    .selectFrom('fills')
    .select(['trade_id', 'order_id', 'iid', 'side', 'price', 'qty', 'fee', 'realized_pnl', 'ts'])
    .where('venue', '=', PAPER_VENUE)
    .orderBy('ts')
    .execute()
  const funding = await db.db
    .selectFrom('funding')
    .select(['key', 'amount'])
    .where('venue', '=', PAPER_VENUE)
    .execute()
  const byId = new Map(specs.map((s) => [s.id, s]))
  const positions = new Map<number, PositionState>()
  let collateral = startingCollateral
  let lastTradeId = 0
  let lastOrderId = 0
  // Trade ids are the local book's running count: their order is the fills' order.
  fills.sort((a, b) => Number(a.trade_id) - Number(b.trade_id))
  for (const f of fills) {
    collateral = subDecimal(addDecimal(collateral, f.realized_pnl), f.fee)
    lastTradeId = Math.max(lastTradeId, Number(f.trade_id) || 0)
    lastOrderId = Math.max(lastOrderId, f.order_id)
    const spec = byId.get(f.iid)
    if (spec === undefined) continue
    let pos = positions.get(f.iid)
    if (pos === undefined) {
      pos = newPosition(f.iid)
      positions.set(f.iid, pos)
    }
    const qty = toTicks(f.qty, spec.quantityDecimals, 'half-even')
    applyFill(pos, f.side === 'long' ? qty : -qty, toTicks(f.price, spec.priceDecimals, 'half-even'))
  }
  // Orders that never filled are in the order events, and every id the book handed out is in the
  // counters it journaled at its close (a kill leaves only the events).
  const events = await db.db
    .selectFrom('order_events')
    .select(db.db.fn.max('oid').as('oid'))
    .executeTakeFirst()
  lastOrderId = Math.max(lastOrderId, Number(events?.oid ?? 0))
  const saved = await db.db
    .selectFrom('state')
    .select('value')
    .where('name', '=', PAPER_IDS_STATE)
    .executeTakeFirst()
  const ids = savedIds.safeParse(saved === undefined ? undefined : JSON.parse(saved.value))
  if (ids.success) {
    lastTradeId = Math.max(lastTradeId, ids.data.lastTradeId)
    lastOrderId = Math.max(lastOrderId, ids.data.lastOrderId)
  }
  let lastFundingId = ids.success ? ids.data.lastFundingId : 0
  for (const x of funding) {
    collateral = subDecimal(collateral, x.amount)
    // The local book's charges are keyed `id:N` (perps/client/getFunding.ts `fundingKey`).
    lastFundingId = Math.max(lastFundingId, Number(/^id:(\d+)$/.exec(x.key)?.[1] ?? 0))
  }
  return {
    collateral,
    fills: fills.length,
    funding: funding.length,
    positions: [...positions.values()].filter((p) => p.size !== 0n),
    lastTradeId,
    lastOrderId,
    lastFundingId,
  }
}

/**
 * Hands every fill and funding charge of the paper account to the journal before the book closes
 * (as a live start's reconcile reads the venue's history; the paper book's history ends with it):
 * what the bot did not see before its stop (a fill during the exit) is journaled too. Rows already
 * journaled are ignored by their keys.
 */
export function journalPaperHistory(
  exchange: PerpsExchange,
  journal: Pick<Journal, 'fill' | 'funding' | 'saveState'>,
): void {
  const account = exchange.synced().accounts.get(PAPER_KEYS.owner.toLowerCase())
  if (account === undefined) return
  for (const f of account.fills) journal.fill(fillInput(f), 'reconcile')
  for (const c of account.funding) journal.funding(fundingInput(c))
  const s = exchange.synced()
  journal.saveState(PAPER_IDS_STATE, {
    lastTradeId: s.fills,
    lastOrderId: s.nextOid - 1,
    lastFundingId: s.nextFundingId - 1,
  })
}

/** Puts the resumed positions and id counters into the local book (the account seeded with its cash). */
export function applyPaperResume(exchange: PerpsExchange, r: PaperResume): void {
  const s = exchange.synced()
  const account = s.accounts.get(PAPER_KEYS.owner.toLowerCase())
  if (account === undefined) throw new Error('the paper account is not registered on the paper book')
  // The mock seeds every new account per its scenario (a confirming withdrawal, so history is never
  // empty): the paper account's money moves only by its fills and funding.
  for (const [w, owner] of s.activeWithdrawals) if (owner === account) s.activeWithdrawals.delete(w)
  account.withdrawals.length = 0
  account.collateral = parseUsd(r.collateral)
  for (const p of r.positions) account.positions.set(p.iid, { ...p })
  s.fills = Math.max(s.fills, r.lastTradeId)
  s.nextOid = Math.max(s.nextOid, r.lastOrderId + 1)
  s.nextFundingId = Math.max(s.nextFundingId, r.lastFundingId + 1)
}
