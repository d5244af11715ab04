/**
 * A market maker's analytics of one run (issue 39.3), gathered online from the fills, the mid at each
 * market step and our resting quotes: markouts and spread captured (markouts.ts), round trips
 * (roundTrips.ts), fill rate by distance from the mid (fillRate.ts), and at the end the risk ratios and
 * inventory half-life from the run's PnL and position grids (ratios.ts). Keeps the first
 * `TRADE_ROWS_CAP` settled fills for the per-trade CSV.
 */
import { distanceBps, FillRate, type FillRateBand } from './fillRate.ts'
import {
  type AnalyticsFill,
  MARKOUT_HORIZONS_MS,
  type MarkedFill,
  type MarkoutSummary,
  MarkoutTracker,
  markoutBps,
} from './markouts.ts'
import { inventoryHalfLifeMs, type RiskRatios, riskRatios } from './ratios.ts'
import { type RoundTripStats, RoundTrips } from './roundTrips.ts'

export const TRADE_ROWS_CAP = 100_000

export interface MarketMakingReport {
  markouts: MarkoutSummary
  roundTrips: RoundTripStats
  fillRate: FillRateBand[]
  ratios: RiskRatios
  /** Mean over instruments that hold inventory, ms. */
  inventoryHalfLifeMs: number | undefined
  /** Fills kept for the CSV (the first TRADE_ROWS_CAP), and how many there were. */
  trades: readonly TradeRow[]
  tradesTotal: number
}

export interface TradeRow {
  symbol: string
  t: number
  side: 'buy' | 'sell'
  price: number
  qty: number
  fee: number
  mid: number | undefined
  capturedBps: number | undefined
  /** Per horizon of MARKOUT_HORIZONS_MS. */
  markoutBps: (number | undefined)[]
}

interface Quote {
  price: number
  buy: boolean
}

export class MarketMakingAnalytics {
  readonly #symbols: ReadonlyMap<number, string>
  readonly #markouts: MarkoutTracker
  readonly #trips = new RoundTrips()
  readonly #rate = new FillRate()
  readonly #quotes = new Map<number, Map<number, Quote>>()
  readonly #mid = new Map<number, { t: number; mid: number }>()
  readonly #trades: TradeRow[] = []
  #tradesTotal = 0

  constructor(symbols: ReadonlyMap<number, string>) {
    this.#symbols = symbols
    this.#markouts = new MarkoutTracker((f) => this.#settled(f))
  }

  /** One of our fills (contracts positive). */
  fill(f: AnalyticsFill): void {
    this.#markouts.fill(f)
    this.#trips.fill(f)
    const m = this.#mid.get(f.iid)
    if (m !== undefined) this.#rate.fill(distanceBps(f.price, f.buy, m.mid))
  }

  /** Our order `oid` rests at `price` (or, with undefined, no longer rests). */
  quote(iid: number, oid: number, q: Quote | undefined): void {
    let byOid = this.#quotes.get(iid)
    if (byOid === undefined) {
      byOid = new Map()
      this.#quotes.set(iid, byOid)
    }
    if (q === undefined) byOid.delete(oid)
    else byOid.set(oid, q)
  }

  /** The instrument's mid after the market step at `t`. */
  price(iid: number, t: number, mid: number): void {
    // Called for every instrument at every market step: no array per step, and the instrument's last
    // mid updated in place (nothing else keeps it).
    const before = this.#mid.get(iid)
    if (before !== undefined && t > before.t) {
      const resting = this.#quotes.get(iid)
      if (resting !== undefined && resting.size > 0) {
        const ms = t - before.t
        for (const q of resting.values()) this.#rate.restingAt(distanceBps(q.price, q.buy, before.mid), ms)
      }
    }
    if (before === undefined) this.#mid.set(iid, { t, mid })
    else {
      before.t = t
      before.mid = mid
    }
    this.#markouts.price(iid, t, mid)
  }

  finish(run: {
    pnl: readonly { t: number; v: number }[]
    maxDrawdown: number
    positions: readonly (readonly { t: number; q: number }[])[]
  }): MarketMakingReport {
    this.#markouts.flush()
    const lives = run.positions.map(inventoryHalfLifeMs).filter((x): x is number => x !== undefined)
    return {
      markouts: this.#markouts.summary(),
      roundTrips: this.#trips.stats(),
      fillRate: this.#rate.bands(),
      ratios: riskRatios(run.pnl, run.maxDrawdown),
      inventoryHalfLifeMs: lives.length > 0 ? lives.reduce((s, x) => s + x, 0) / lives.length : undefined,
      trades: this.#trades,
      tradesTotal: this.#tradesTotal,
    }
  }

  #settled(f: MarkedFill): void {
    this.#tradesTotal++
    if (this.#trades.length >= TRADE_ROWS_CAP) return
    this.#trades.push({
      symbol: this.#symbols.get(f.iid) ?? String(f.iid),
      t: f.t,
      side: f.buy ? 'buy' : 'sell',
      price: f.price,
      qty: f.qty,
      fee: f.fee,
      mid: f.mid0,
      capturedBps: f.mid0 === undefined ? undefined : markoutBps(f, f.mid0),
      markoutBps: f.mids.map((m) => (m === undefined ? undefined : markoutBps(f, m))),
    })
  }
}

const cell = (x: number | undefined, digits: number): string => (x === undefined ? '' : x.toFixed(digits))

/** The per-trade CSV: one row per fill with its markouts (bps, positive = good for us). */
export function tradesCsv(rows: readonly TradeRow[]): string {
  const head = [
    'time_utc',
    'symbol',
    'side',
    'price',
    'qty_contracts',
    'fee_quote',
    'mid_at_fill',
    'captured_bps',
    ...MARKOUT_HORIZONS_MS.map((h) => `markout_${h / 1000}s_bps`),
  ]
  const lines = rows.map((r) =>
    [
      new Date(r.t).toISOString(),
      r.symbol,
      r.side,
      String(r.price),
      String(r.qty),
      cell(r.fee, 6),
      r.mid === undefined ? '' : String(r.mid),
      cell(r.capturedBps, 3),
      ...r.markoutBps.map((m) => cell(m, 3)),
    ].join(','),
  )
  return `${[head.join(','), ...lines].join('\n')}\n`
}
