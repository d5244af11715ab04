/**
 * What the mock's WebSocket pushes, read from the exchange through its public façade:
 * - market channels on every push tick, for the channels someone subscribes: every ticker (index,
 *   mark, funding), bbo and a one-level book each tick; statistics once per virtual minute (and on a
 *   channel's first tick), carrying only the last two 1-minute candles; `klines::{iid}::1m` the last one;
 * - `trades::{iid}`: the public tape `GET /v1/info/trades` serves, as it happens: our accounts' fills
 *   (the taker's side) at once, and each closed minute of the market's flow as one print on the
 *   first tick after it (from the subscription on: history is REST's);
 * - private channels per account: `orders` and `fills` as the exchange reports them (its order and
 *   fill hooks; flushed right after the call that made them, so a push does not wait for a tick),
 *   `portfolio` every tick, `balances`, `withdrawals`, `deposits` and `funding` when they change.
 */
import { subDecimal, toTicks } from '../../decimal.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type { PrivateChannel } from '../../perps/stream/channels.ts'
import type { FillItem, TickerPush, TradesPush } from '../../perps/stream/pushSchemas.ts'
import type { PerpsExchange } from '../perps/exchange.ts'
import { bookWire, type PublicPrint, printOfFill, printOfFlow, printOfMinute } from '../perps/venueReads.ts'

/**
 * The public market data's resolution: `minute` (default) the market's flow on `trades::` as one print
 * per closed minute (the tape `GET /v1/info/trades` serves) and `book::` the one-level touch; `tick`
 * one print per push tick at the current mark and `book::` the REST book's levels (the touch and every
 * resting order), as a venue prints its trades and shows its book: the stand-in venue a paper run
 * reads (src/paper/).
 */
export type StreamTape = 'minute' | 'tick'

export interface StreamOut {
  ch: string
  data: unknown
}

interface AccountMemory {
  orders: Map<number, () => Order>
  fills: FillItem[]
  balance: string | undefined
  withdrawals: Map<number, string>
  /** Each deposit's last pushed status, by hash. */
  deposits: Map<string, string>
  fundingSeen: Set<string>
  /** Funding rows at or before this time were seen before the subscription. */
  fundingSince: number | undefined
}

const MINUTE_MS = 60_000

export class StreamPublisher {
  readonly #ex: PerpsExchange
  readonly #collateralDecimals: number
  readonly #accounts = new Map<string, AccountMemory>()
  readonly #statsSent = new Set<string>()
  #statsMinute = Number.NaN
  readonly #unhook: (() => void)[]
  /** Instruments someone takes `trades::` of, with the open time of the last minute printed. */
  readonly #tape = new Map<
    number,
    {
      lastMinute: number | undefined
      checkedMinute: number
      prints: PublicPrint[]
      /** `tick` tape: the current minute's candle volume and close as last printed. */
      flow?: { minute: number; volume: string; close: string } | undefined
    }
  >()
  readonly #tapeKind: StreamTape

  /** `onActivity` is called (at most once per burst, by the caller's scheduling) when orders or fills queue up. */
  constructor(exchange: PerpsExchange, onActivity: () => void, tape: StreamTape = 'minute') {
    this.#ex = exchange
    this.#tapeKind = tape
    this.#collateralDecimals = exchange.assets()[0]?.decimals ?? 6
    this.#unhook = [
      exchange.onOrderChange((owner, oid, order) => {
        const mem = this.#accounts.get(owner.toLowerCase())
        if (mem === undefined) return
        mem.orders.set(oid, order)
        onActivity()
      }),
      exchange.onFill((owner, fill) => {
        const tape = this.#tape.get(fill.iid)
        if (tape !== undefined) {
          tape.prints.push(printOfFill(fill))
          onActivity()
        }
        const mem = this.#accounts.get(owner.toLowerCase())
        if (mem === undefined) return
        mem.fills.push(fill)
        onActivity()
      }),
    ]
  }

  /** Starts (or stops) remembering an account's activity: only watched accounts queue orders and fills. */
  watch(owners: ReadonlySet<string>): void {
    for (const key of this.#accounts.keys()) if (!owners.has(key)) this.#accounts.delete(key)
    for (const key of owners)
      if (!this.#accounts.has(key))
        this.#accounts.set(key, {
          orders: new Map(),
          fills: [],
          balance: undefined,
          withdrawals: new Map(),
          deposits: new Map(),
          fundingSeen: new Set(),
          fundingSince: undefined,
        })
  }

  /** Market pushes of one tick for the wanted public channels. */
  market(wanted: ReadonlySet<string>, now: number): StreamOut[] {
    const out = this.#quotes(wanted, undefined)
    out.push(...this.#minutePrints(wanted, now))
    const minute = Math.floor(now / MINUTE_MS)
    const newMinute = minute !== this.#statsMinute
    this.#statsMinute = minute
    for (const ch of [...this.#statsSent]) if (!wanted.has(ch)) this.#statsSent.delete(ch)
    for (const ch of wanted) {
      if (ch.startsWith('statistics::') && (newMinute || !this.#statsSent.has(ch))) {
        this.#statsSent.add(ch)
        const which = ch.slice('statistics::'.length)
        for (const s of this.#ex.statistics(which === 'all' ? undefined : Number(which), 2))
          out.push({
            ch,
            data: { iid: s.instrument_id, vol: s.volume, open: s.open_price, klines: s.klines },
          })
      } else if (ch.startsWith('klines::') && ch.endsWith('::1m')) {
        const iid = Number(ch.split('::')[1])
        const klines = this.#ex.statistics(iid, 1)[0]?.klines ?? []
        if (klines.length > 0) out.push({ ch, data: klines })
      }
    }
    return out
  }

  /**
   * The pushes of a price change: the tickers, BBOs and books of `instrumentIds` only, as the venue
   * pushes a change without waiting for its next tick (statistics and klines keep their minute).
   */
  changed(wanted: ReadonlySet<string>, instrumentIds: readonly number[]): StreamOut[] {
    const out: StreamOut[] = []
    for (const iid of instrumentIds) out.push(...this.#quotes(wanted, iid))
    return out
  }

  /** Tickers, then BBOs and books, of one instrument or (undefined) all of them. */
  #quotes(wanted: ReadonlySet<string>, iid: number | undefined): StreamOut[] {
    const out: StreamOut[] = []
    const has = (prefix: string): boolean => {
      for (const ch of wanted) if (ch.startsWith(prefix)) return true
      return false
    }
    if (has('tickers::'))
      for (const t of this.#ex.tickers(iid)) {
        const data: TickerPush = {
          iid: t.instrument_id,
          idx: t.index_price,
          mark: t.mark_price,
          last: t.last_price,
          mid: t.mid_price,
          oi: t.open_interest,
          fr: t.funding_rate,
          nxf: t.next_funding,
        }
        if (wanted.has('tickers::all')) out.push({ ch: 'tickers::all', data })
        if (wanted.has(`tickers::${t.instrument_id}`)) out.push({ ch: `tickers::${t.instrument_id}`, data })
      }
    if (has('bbo::') || has('book::'))
      for (const b of this.#ex.bbo(iid)) {
        if (wanted.has(`bbo::${b.iid}`)) out.push({ ch: `bbo::${b.iid}`, data: b })
        if (wanted.has(`book::${b.iid}`)) out.push({ ch: `book::${b.iid}`, data: this.#book(b) })
      }
    return out
  }

  /** The `book::` push: the one-level touch, or (`tick` tape) the REST book's levels with every resting order. */
  #book(b: { iid: number; bp: string; bq: string; ap: string; aq: string }): {
    b: string[][]
    a: string[][]
  } {
    if (this.#tapeKind !== 'tick') return { b: [[b.bp, b.bq]], a: [[b.ap, b.aq]] }
    const w = bookWire(this.#ex.synced(), b.iid, 10)
    return { b: w.bids, a: w.asks }
  }

  /** Public prints of our fills queued since the last call (pushed as they happen, like `fills`). */
  trades(): StreamOut[] {
    const out: StreamOut[] = []
    for (const [iid, tape] of this.#tape) {
      if (tape.prints.length > 0) out.push({ ch: `trades::${iid}`, data: tape.prints.map(tradeItem) })
      tape.prints = []
    }
    return out
  }

  /**
   * Follows the `trades::` subscriptions (on every subscription change, and each tick): a new one
   * starts at the current minute, a dropped one is forgotten.
   */
  followTrades(wanted: ReadonlySet<string>, now: number): void {
    for (const iid of this.#tape.keys()) if (!wanted.has(`trades::${iid}`)) this.#tape.delete(iid)
    for (const ch of wanted) {
      if (!ch.startsWith('trades::')) continue
      const iid = Number(ch.slice('trades::'.length))
      if (!this.#tape.has(iid))
        this.#tape.set(iid, {
          lastMinute: this.#closedMinutes(iid, now).at(-1)?.[0],
          checkedMinute: Math.floor(now / MINUTE_MS),
          prints: [],
        })
    }
  }

  /** The last two 1-minute candles of the instrument that have closed by `now`. */
  #closedMinutes(iid: number, now: number) {
    return (this.#ex.statistics(iid, 2)[0]?.klines ?? []).filter((k) => k[0] + MINUTE_MS <= now)
  }

  /** Each minute of flow closed since the last tick as one print (with fills not pushed yet), oldest first. */
  #minutePrints(wanted: ReadonlySet<string>, now: number): StreamOut[] {
    this.followTrades(wanted, now)
    const out: StreamOut[] = []
    const minute = Math.floor(now / MINUTE_MS)
    for (const [iid, tape] of this.#tape) {
      if (this.#tapeKind === 'tick') this.#flowPrint(iid, tape, now)
      // A minute closes only at a minute boundary: the candles are read once a minute, not each tick.
      const closed =
        this.#tapeKind === 'tick' || tape.checkedMinute === minute ? [] : this.#closedMinutes(iid, now)
      tape.checkedMinute = minute
      for (const k of closed) {
        if (tape.lastMinute !== undefined && k[0] <= tape.lastMinute) continue
        tape.lastMinute = k[0]
        const p = printOfMinute(iid, k)
        if (p !== undefined) tape.prints.push(p)
      }
      if (tape.prints.length === 0) continue
      tape.prints.sort((a, b) => a.timestamp - b.timestamp || a.trade_id - b.trade_id)
      out.push({ ch: `trades::${iid}`, data: tape.prints.map(tradeItem) })
      tape.prints = []
    }
    return out
  }

  /** `tick` tape: the volume the current candle gained since the last tick, as one print at its close. */
  #flowPrint(
    iid: number,
    tape: { prints: PublicPrint[]; flow?: { minute: number; volume: string; close: string } | undefined },
    now: number,
  ): void {
    const k = this.#ex.statistics(iid, 1)[0]?.klines.at(-1)
    if (k === undefined) return
    const last = tape.flow
    const gained = last !== undefined && last.minute === k[0] ? subDecimal(k[5], last.volume) : k[5]
    const before = last?.close ?? k[1]
    tape.flow = { minute: k[0], volume: k[5], close: k[4] }
    if (last === undefined || Number(gained) <= 0) return
    tape.prints.push(printOfFlow(iid, k[4], gained, Number(k[4]) >= Number(before) ? 'long' : 'short', now))
  }

  /** Orders and fills queued since the last call (event-driven private pushes). */
  activity(owner: string): StreamOut[] {
    const mem = this.#accounts.get(owner)
    if (mem === undefined) return []
    const out: StreamOut[] = []
    for (const order of mem.orders.values()) out.push({ ch: 'orders', data: order() })
    mem.orders.clear()
    if (mem.fills.length > 0) out.push({ ch: 'fills', data: mem.fills })
    mem.fills = []
    return out
  }

  /** Per-tick private pushes: portfolio, and balances, withdrawals, deposits, funding when they change. */
  account(owner: string, wanted: ReadonlySet<PrivateChannel>, now: number): StreamOut[] {
    const mem = this.#accounts.get(owner)
    if (mem === undefined) return []
    const out: StreamOut[] = []
    if (wanted.has('portfolio')) out.push({ ch: 'portfolio', data: this.#ex.portfolio(owner) })
    if (wanted.has('balances')) {
      const view = this.#ex.accountOf(owner)
      const asset = this.#ex.assets()[0]?.asset ?? 'pUSD'
      const data = { asset, balance: view?.collateral ?? '0', value: view?.equity ?? '0' }
      const key = `${data.balance}|${data.value}`
      if (key !== mem.balance) out.push({ ch: 'balances', data })
      mem.balance = key
    }
    if (wanted.has('withdrawals'))
      for (const w of this.#ex.withdrawals(owner).data) {
        const key = `${w.status}|${w.hash}|${w.confirmations}`
        if (mem.withdrawals.get(w.withdraw_id) === key) continue
        mem.withdrawals.set(w.withdraw_id, key)
        const data: Record<string, unknown> = {
          withdraw_id: w.withdraw_id,
          asset: w.asset,
          amount: toTicks(w.amount, this.#collateralDecimals).toString(),
          fee: w.fee,
          status: w.status,
          to: w.to,
        }
        if (w.hash !== '0x') data.hash = w.hash
        out.push({ ch: 'withdrawals', data })
      }
    if (wanted.has('deposits'))
      // The channel's row (bindings `PerpsDepositUpdateSchema`): hash, asset, base units, status.
      for (const d of this.#ex.deposits(owner).data) {
        if (mem.deposits.get(d.hash) === d.status) continue
        mem.deposits.set(d.hash, d.status)
        out.push({
          ch: 'deposits',
          data: { hash: d.hash, asset: d.asset, amount: d.amount, status: d.status },
        })
      }
    if (wanted.has('funding')) {
      // Rows from before the subscription are history (REST), not pushes.
      mem.fundingSince ??= now
      for (const f of this.#ex.funding(owner, { startTimestamp: mem.fundingSince }).data) {
        const key = `${f.id ?? ''}|${f.instrument_id}|${f.timestamp}`
        if (mem.fundingSeen.has(key) || f.timestamp <= (mem.fundingSince ?? 0)) continue
        mem.fundingSeen.add(key)
        out.push({
          ch: 'funding',
          data: {
            // bindings 0.10.0 require the payment's id on the channel as on REST.
            ...(f.id === undefined ? {} : { id: f.id }),
            iid: f.instrument_id,
            sz: f.size,
            fr: f.funding_rate,
            fund: f.funding,
            fua: f.funding_asset,
            ts: f.timestamp,
          },
        })
      }
    }
    return out
  }

  dispose(): void {
    for (const unhook of this.#unhook) unhook()
    this.#accounts.clear()
    this.#tape.clear()
  }
}

/** A print as the `trades::{iid}` item (the bindings' terse keys; an unknown hash is left out). */
function tradeItem(p: PublicPrint): TradesPush[number] {
  return { tid: p.trade_id, iid: p.instrument_id, side: p.side, p: p.price, qty: p.quantity, ts: p.timestamp }
}
