/**
 * The bot's PnL ledger, pure: fills (realized PnL, fees, volume, maker share), funding charges and the
 * venue's positions (size, entry, unrealized PnL) per instrument and for the account. Amounts are the
 * venue's decimal strings, summed exactly (src/decimal.ts); nothing here goes back on the wire.
 *
 * Sign conventions: a fill's `fee` is what we paid (a maker rebate is negative); a funding charge's
 * `funding` is what we paid (received is negative); `pnl` is the realized PnL the fill closed. Net PnL
 * = realized + unrealized − fees − funding.
 */

import { addDecimal, mulDecimal, subDecimal } from '../../decimal.ts'
import type { InstrumentPnl, PnlBaseline, PnlSnapshot } from '../../pnlTypes.ts'

/** A fill as the venue reports it (REST `/v1/account/fills` and the `fills` channel use these keys). */
export interface LedgerFill {
  tid: number | string
  oid: number
  iid: number
  side: string
  p: string
  qty: string
  taker: boolean
  fee: string
  pnl: string
  liq?: boolean | undefined
  ts: number
}

export interface LedgerFunding {
  instrument_id: number
  funding: string
  timestamp: number
  id?: number | undefined
}

export interface LedgerPosition {
  instrument_id: number
  size: string
  entry_price: string
  unrealized_pnl: string
}

export type { InstrumentPnl, PnlBaseline, PnlSnapshot } from '../../pnlTypes.ts'

/** How many fill and funding ids are remembered to drop a repeat delivered by a later read or push. */
const SEEN_KEPT = 20_000
/** How many of the latest fills are kept for the dashboard. */
const RECENT_FILLS_KEPT = 50

const empty = (): InstrumentPnl => ({
  fills: 0,
  makerFills: 0,
  liquidationFills: 0,
  volume: '0',
  realizedPnl: '0',
  fees: '0',
  funding: '0',
  position: '0',
  entryPrice: undefined,
  unrealizedPnl: '0',
  netPnl: '0',
  lastFillAt: undefined,
})

/** |a × b|, exact. */
function absProduct(a: string, b: string): string {
  const product = mulDecimal(a, b)
  return product.startsWith('-') ? product.slice(1) : product
}

export class PnlLedger {
  readonly #byInstrument = new Map<number, InstrumentPnl>()
  readonly #seen = new Set<string>()
  readonly #recent: LedgerFill[] = []

  /** Starts from a baseline (a restart: the journal's totals); its recent ids count as seen. */
  constructor(baseline?: PnlBaseline) {
    if (baseline === undefined) return
    for (const [iid, b] of Object.entries(baseline.instruments)) Object.assign(this.#of(Number(iid)), b)
    for (const k of baseline.recentFills) this.#firstTime(`fill:${k}`)
    for (const k of baseline.recentFunding) this.#firstTime(`funding:${k}`)
  }

  #of(iid: number): InstrumentPnl {
    let e = this.#byInstrument.get(iid)
    if (!e) {
      e = empty()
      this.#byInstrument.set(iid, e)
    }
    return e
  }

  #firstTime(key: string): boolean {
    if (this.#seen.has(key)) return false
    this.#seen.add(key)
    if (this.#seen.size > SEEN_KEPT) {
      const oldest = this.#seen.values().next().value
      if (oldest !== undefined) this.#seen.delete(oldest)
    }
    return true
  }

  /** Applies a fill once (by trade id and order id); returns false for a repeat. */
  applyFill(f: LedgerFill): boolean {
    if (!this.#firstTime(`fill:${f.tid}:${f.oid}`)) return false
    const e = this.#of(f.iid)
    e.fills += 1
    if (!f.taker) e.makerFills += 1
    if (f.liq) e.liquidationFills += 1
    e.volume = addDecimal(e.volume, absProduct(f.qty, f.p))
    e.realizedPnl = addDecimal(e.realizedPnl, f.pnl)
    e.fees = addDecimal(e.fees, f.fee)
    e.lastFillAt = Math.max(e.lastFillAt ?? f.ts, f.ts)
    this.#recent.push(f)
    if (this.#recent.length > RECENT_FILLS_KEPT) this.#recent.shift()
    return true
  }

  /** Applies a funding charge once; returns false for a repeat. */
  applyFunding(c: LedgerFunding): boolean {
    // The venue's funding key (src/perps/client/getFunding.ts `fundingKey`), as the journal keeps it.
    const key = `funding:${c.id !== undefined ? `id:${c.id}` : `iid:${c.instrument_id}:${c.timestamp}`}`
    if (!this.#firstTime(key)) return false
    const e = this.#of(c.instrument_id)
    e.funding = addDecimal(e.funding, c.funding)
    return true
  }

  /** The venue's positions now: instruments not listed are flat. */
  observePositions(positions: readonly LedgerPosition[], tracked: readonly number[] = []): void {
    const listed = new Set(positions.map((p) => p.instrument_id))
    for (const p of positions) {
      const e = this.#of(p.instrument_id)
      e.position = p.size
      e.entryPrice = p.entry_price
      e.unrealizedPnl = p.unrealized_pnl
    }
    for (const iid of [...this.#byInstrument.keys(), ...tracked]) {
      if (listed.has(iid)) continue
      const e = this.#of(iid)
      e.position = '0'
      e.entryPrice = undefined
      e.unrealizedPnl = '0'
    }
  }

  /** The latest fills applied (at most 50), oldest first. */
  recentFills(): LedgerFill[] {
    return [...this.#recent]
  }

  snapshot(): PnlSnapshot {
    const instruments: Record<number, InstrumentPnl> = {}
    const total = { ...empty() }
    for (const [iid, e] of [...this.#byInstrument].sort((a, b) => a[0] - b[0])) {
      const netPnl = subDecimal(subDecimal(addDecimal(e.realizedPnl, e.unrealizedPnl), e.fees), e.funding)
      instruments[iid] = { ...e, netPnl }
      total.fills += e.fills
      total.makerFills += e.makerFills
      total.liquidationFills += e.liquidationFills
      total.volume = addDecimal(total.volume, e.volume)
      total.realizedPnl = addDecimal(total.realizedPnl, e.realizedPnl)
      total.fees = addDecimal(total.fees, e.fees)
      total.funding = addDecimal(total.funding, e.funding)
      total.unrealizedPnl = addDecimal(total.unrealizedPnl, e.unrealizedPnl)
      total.netPnl = addDecimal(total.netPnl, netPnl)
    }
    const { position: _p, entryPrice: _e, lastFillAt: _l, ...account } = total
    return {
      instruments,
      account: { ...account, makerShare: total.fills === 0 ? undefined : total.makerFills / total.fills },
    }
  }
}
