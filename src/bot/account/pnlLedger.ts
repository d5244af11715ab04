/**
 * The bot's PnL ledger, pure: fills (realized PnL, fees, volume, maker share), funding charges and the
 * venue's positions (size, entry, unrealized PnL) per instrument and for the account. Amounts are the
 * venue's decimal strings, summed exactly (src/decimal.ts); nothing here goes back on the wire.
 *
 * Sign conventions: a fill's `fee` is what we paid (a maker rebate is negative); a funding charge's
 * `funding` is what we paid (received is negative); `pnl` is the realized PnL the fill closed. Net PnL
 * = realized + unrealized − fees − funding.
 *
 * Since the start: with `sinceStart`, the first positions observed are the opening inventory, marked
 * at the start. Its unrealized PnL then is not ours: `unrealizedPnl` is the venue's less that, so a
 * bot started on a position shows net 0, not the position's history. What the opening inventory gains
 * or loses afterwards is ours and part of net, and `inventoryPnl` shows it apart.
 *
 * The snapshot is kept between reads: an instrument's line (with its net) is made again only after
 * its figures changed, and the account's sums move by the change of that line alone (exact sums of
 * canonical decimals: the same strings a sum over every line gives). At 1,000 instruments a whole
 * snapshot was ~5 ms of the bot's thread at each read (the equity curve's every 2 s, `/status`, the
 * protections' every second), and a portfolio push re-derived every instrument's figures (~1-4 ms).
 */

import { addDecimal, compareDecimal, divDecimal, mulDecimal, subDecimal } from '../../decimal.ts'
import type { InstrumentPnl, OpeningInventory, PnlBaseline, PnlSnapshot } from '../../pnlTypes.ts'

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

export type { InstrumentPnl, OpeningInventory, PnlBaseline, PnlSnapshot } from '../../pnlTypes.ts'

/** How many fill and funding ids are remembered to drop a repeat delivered by a later read or push. */
const SEEN_KEPT = 20_000
/** How many of the latest fills are kept for the dashboard. */
const RECENT_FILLS_KEPT = 50

/** The account's sums over the instruments' lines (the snapshot's `account` before its own fields). */
type Sums = Omit<InstrumentPnl, 'position' | 'entryPrice' | 'lastFillAt' | 'openingPosition'>
/** The decimal fields summed over the lines, in the account's key order. */
const SUMMED = [
  'volume',
  'realizedPnl',
  'fees',
  'funding',
  'unrealizedPnl',
  'openingUnrealizedPnl',
  'inventoryPnl',
  'netPnl',
] as const
/** No sums: an empty line without its position fields (the account's key order). */
function noSums(): Sums {
  const { position, entryPrice, lastFillAt, openingPosition, ...sums } = empty()
  return sums
}

/** An instrument's line as the snapshot shows it: its figures and its net. */
function lineOf(e: InstrumentPnl): InstrumentPnl {
  // Net is what the bot's trading made: realized + unrealized since start − fees − funding, less the
  // opening inventory's change in value (`inventoryPnl`, shown apart) and, once flat, the opening's
  // unrealized PnL at the start (the fills that closed it realized it; `unrealizedPnl` is 0 there).
  const closedOpening = compareDecimal(e.position, '0') === 0 ? e.openingUnrealizedPnl : '0'
  const netPnl = subDecimal(
    subDecimal(
      subDecimal(subDecimal(addDecimal(e.realizedPnl, e.unrealizedPnl), e.inventoryPnl), e.fees),
      e.funding,
    ),
    closedOpening,
  )
  return Object.freeze({ ...e, netPnl })
}

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
  openingPosition: '0',
  openingUnrealizedPnl: '0',
  inventoryPnl: '0',
  netPnl: '0',
  lastFillAt: undefined,
})

/**
 * The position after a fill: the venue's fill carries the size before it (`psz`); a buy (`long`)
 * adds its quantity, a sell (`short`) takes it away.
 */
export function positionAfter(f: { psz: string; side: string; qty: string }): string {
  if (f.side === 'long') return addDecimal(f.psz, f.qty)
  if (f.side === 'short') return subDecimal(f.psz, f.qty)
  return f.psz
}

/** |a × b|, exact. */
function absProduct(a: string, b: string): string {
  const product = mulDecimal(a, b)
  return product.startsWith('-') ? product.slice(1) : product
}

/** Digits kept for a mark derived from entry + unrealized / size (display figures only). */
const MARK_SCALE = 12

/** The mark a venue position implies: entry + unrealized / size (undefined when flat). */
function impliedMark(p: LedgerPosition): string | undefined {
  if (compareDecimal(p.size, '0') === 0) return undefined
  return addDecimal(p.entry_price, divDecimal(p.unrealized_pnl, p.size, MARK_SCALE, 'half-even'))
}

interface Opening {
  size: string
  unrealized: string
  /** The mark at the start; undefined when flat then. */
  mark: string | undefined
}

export interface PnlLedgerOptions {
  /** The first positions observed are the opening inventory (the bot's start); default false. */
  sinceStart?: boolean | undefined
  /**
   * A restart with a journal: the totals so far (from the account's first journaled record), and the
   * ids a first read may repeat. With fills in it, the journal's history is the start instead: the
   * positions those fills built are ours, so no opening inventory is set aside.
   */
  baseline?: PnlBaseline | undefined
  /**
   * Told once when this run sets the opening inventory aside (the account's first run): the journal
   * keeps it, so every later start carries it (`baseline.opening`).
   */
  onOpening?: ((o: OpeningInventory) => void) | undefined
  /** The time the opening inventory is observed at (the bot clock); default Date.now. */
  now?: (() => number) | undefined
}

export class PnlLedger {
  readonly #byInstrument = new Map<number, InstrumentPnl>()
  /** The opening inventory per instrument, once marked (undefined: not marked yet). */
  #opening: Map<number, Opening> | undefined
  readonly #sinceStart: boolean
  /** The venue's unrealized PnL per instrument (the snapshot shows it less the opening's). */
  readonly #venueUnrealized = new Map<number, string>()

  readonly #seen = new Set<string>()
  readonly #recent: LedgerFill[] = []
  readonly #onOpening: ((o: OpeningInventory) => void) | undefined
  readonly #now: () => number
  /** Each instrument's line as last shown (frozen), and those whose figures changed since. */
  readonly #lines = new Map<number, InstrumentPnl>()
  readonly #changed = new Set<number>()
  /** The account's sums over `#lines`. */
  #sums: Sums = noSums()
  /** The lines by instrument, ascending (copied for each snapshot); undefined: to be made again. */
  #record: Record<number, InstrumentPnl> | undefined
  /** Since when the numbers count: the opening inventory's time (the account's first run), else the first portfolio. */
  #since: number | undefined

  constructor(o: PnlLedgerOptions = {}) {
    const { baseline } = o
    this.#onOpening = o.onOpening
    this.#now = o.now ?? Date.now
    const history = baseline !== undefined && Object.keys(baseline.instruments).length > 0
    const stored = baseline?.opening
    // A stored opening inventory is carried whatever the journal's history holds since.
    this.#sinceStart = stored !== undefined || (o.sinceStart === true && !history)
    if (stored !== undefined) {
      this.#since = stored.at
      this.#opening = new Map(Object.entries(stored.instruments).map(([iid, v]) => [Number(iid), { ...v }]))
    }
    if (baseline === undefined) return
    for (const [iid, b] of Object.entries(baseline.instruments)) {
      Object.assign(this.#of(Number(iid)), b)
      this.#changed.add(Number(iid))
    }
    for (const k of baseline.recentFills) this.#firstTime(`fill:${k}`)
    for (const k of baseline.recentFunding) this.#firstTime(`funding:${k}`)
  }

  #of(iid: number): InstrumentPnl {
    let e = this.#byInstrument.get(iid)
    if (!e) {
      e = empty()
      this.#byInstrument.set(iid, e)
      this.#changed.add(iid)
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
    // With its time: a venue whose ids restarted numbers a new trade with an old one's ids.
    if (!this.#firstTime(`fill:${f.tid}:${f.oid}:${f.ts}`)) return false
    const e = this.#of(f.iid)
    this.#changed.add(f.iid)
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
    const key = `funding:${c.id !== undefined ? `id:${c.id}` : `iid:${c.instrument_id}:${c.timestamp}`}:${c.timestamp}`
    if (!this.#firstTime(key)) return false
    const e = this.#of(c.instrument_id)
    this.#changed.add(c.instrument_id)
    e.funding = addDecimal(e.funding, c.funding)
    return true
  }

  /**
   * The venue's positions now: instruments not listed are flat. Only an instrument whose position,
   * entry or unrealized PnL moved (or a new one, or all when the opening inventory is set) has its
   * figures derived again: they follow from those and the opening inventory alone.
   */
  observePositions(positions: readonly LedgerPosition[], tracked: readonly number[] = []): void {
    let all = false
    if (this.#sinceStart && this.#opening === undefined) {
      // The first portfolio of the run: what is held now was held before the start.
      this.#opening = new Map()
      for (const p of positions)
        this.#opening.set(p.instrument_id, {
          size: p.size,
          unrealized: p.unrealized_pnl,
          mark: impliedMark(p),
        })
      this.#since = this.#now()
      this.#onOpening?.({ at: this.#since, instruments: Object.fromEntries(this.#opening) })
      all = true
    }
    const listed = new Set<number>()
    const moved = new Set<number>()
    for (const p of positions) {
      const iid = p.instrument_id
      listed.add(iid)
      const e = this.#of(iid)
      // A new instrument has no venue figure yet, so it always counts as moved.
      if (
        !all &&
        e.position === p.size &&
        e.entryPrice === p.entry_price &&
        this.#venueUnrealized.get(iid) === p.unrealized_pnl
      )
        continue
      moved.add(iid)
      e.position = p.size
      e.entryPrice = p.entry_price
      this.#venueUnrealized.set(iid, p.unrealized_pnl)
      this.#markInventory(e, p)
    }
    const flat = (iid: number): void => {
      if (listed.has(iid)) return
      const e = this.#of(iid)
      if (!all && e.position === '0' && e.entryPrice === undefined && this.#venueUnrealized.get(iid) === '0')
        return
      moved.add(iid)
      e.position = '0'
      e.entryPrice = undefined
      this.#venueUnrealized.set(iid, '0')
    }
    for (const iid of this.#byInstrument.keys()) flat(iid)
    for (const iid of tracked) flat(iid)
    for (const iid of all ? this.#byInstrument.keys() : moved) {
      const e = this.#of(iid)
      const open = this.#opening?.get(iid)
      e.openingPosition = open?.size ?? '0'
      e.openingUnrealizedPnl = open?.unrealized ?? '0'
      // Flat: nothing is unrealized (issue 33). The opening's PnL from before the start is then inside
      // the realized PnL of the fills that closed it, and `snapshot` takes it out of net there.
      e.unrealizedPnl =
        compareDecimal(e.position, '0') === 0
          ? '0'
          : subDecimal(this.#venueUnrealized.get(iid) ?? '0', e.openingUnrealizedPnl)
      this.#changed.add(iid)
    }
  }

  /**
   * The opening inventory valued at today's mark; kept at its last value once the position is flat.
   * The mark is derived only for an instrument held at the start (each portfolio lists every position).
   */
  #markInventory(e: InstrumentPnl, p: LedgerPosition): void {
    const open = this.#opening?.get(p.instrument_id)
    if (!open || open.mark === undefined) return
    const markNow = impliedMark(p)
    if (markNow === undefined) return
    e.inventoryPnl = mulDecimal(open.size, subDecimal(markNow, open.mark))
  }

  /** The latest fills applied (at most 50), oldest first. */
  recentFills(): LedgerFill[] {
    return [...this.#recent]
  }

  snapshot(): PnlSnapshot {
    let added = false
    for (const iid of this.#changed) {
      const e = this.#byInstrument.get(iid)
      if (e === undefined) continue
      const line = lineOf(e)
      const before = this.#lines.get(iid)
      const sums = this.#sums
      if (before !== undefined) {
        sums.fills -= before.fills
        sums.makerFills -= before.makerFills
        sums.liquidationFills -= before.liquidationFills
        for (const k of SUMMED) sums[k] = subDecimal(sums[k], before[k])
      }
      sums.fills += line.fills
      sums.makerFills += line.makerFills
      sums.liquidationFills += line.liquidationFills
      for (const k of SUMMED) sums[k] = addDecimal(sums[k], line[k])
      this.#lines.set(iid, line)
      if (before === undefined) added = true
      else if (this.#record !== undefined) this.#record[iid] = line
    }
    this.#changed.clear()
    if (added || this.#record === undefined) {
      const record: Record<number, InstrumentPnl> = {}
      for (const [iid, line] of [...this.#lines].sort((a, b) => a[0] - b[0])) record[iid] = line
      this.#record = record
    }
    const s = this.#sums
    return {
      instruments: { ...this.#record },
      account: {
        fills: s.fills,
        makerFills: s.makerFills,
        liquidationFills: s.liquidationFills,
        volume: s.volume,
        realizedPnl: s.realizedPnl,
        fees: s.fees,
        funding: s.funding,
        unrealizedPnl: s.unrealizedPnl,
        openingUnrealizedPnl: s.openingUnrealizedPnl,
        inventoryPnl: s.inventoryPnl,
        netPnl: s.netPnl,
        makerShare: s.fills === 0 ? undefined : s.makerFills / s.fills,
        since: this.#since,
      },
    }
  }
}
