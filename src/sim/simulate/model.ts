/** What a simulation run records, as plain data: the input of the summary and of the HTML report. */
import type { MarketMakingReport } from '../../analytics/marketMaking.ts'
import type { SeriesPoint } from './downsample.ts'

export interface SimMeta {
  strategy: string
  scenario: string
  seed: number
  hours: number
  /** Virtual Unix ms of the start and the end of the run. */
  startMs: number
  endMs: number
  perpbotVersion: string
  /** Replayed data and fill model (`simulate --data`); absent when the mock invented the market. */
  data?: string | undefined
}

/** One of our fills, from the mock's fill hook. */
export interface FillPoint {
  t: number
  price: number
  qty: number
  buy: boolean
  maker: boolean
}

/** Per-instrument series columns: index, our best bid, our best ask, position (null: none). */
export const INSTRUMENT_COLUMNS = ['index', 'bid', 'ask', 'position'] as const

export interface InstrumentRecord {
  symbol: string
  id: number
  series: readonly SeriesPoint[]
  /** A bounded, evenly spread sample of the fills (`fillStride` fills per kept one). */
  fills: readonly FillPoint[]
  fillStride: number
  totals: FillTotals
  time: StateTimes
}

/** Running totals over every fill (not only the sampled ones). */
export interface FillTotals {
  fills: number
  makerFills: number
  /** Sum of |price × qty|, quote currency. */
  volume: number
  realizedPnl: number
  fees: number
}

/** Time per activity of an instrument, virtual ms. */
export interface StateTimes {
  quotingMs: number
  haltedMs: number
  otherMs: number
  /** Halted time by reason (parenthesised details stripped). */
  haltedBy: Readonly<Record<string, number>>
}

/** Account series columns. */
export const ACCOUNT_COLUMNS = ['netPnl', 'realized', 'unrealized', 'fees', 'funding', 'marginRatio'] as const
/** Weight series columns: used and capacity of the request and the action budgets. */
export const WEIGHT_COLUMNS = ['requestUsed', 'requestCap', 'actionUsed', 'actionCap'] as const

export interface AlertRow {
  t: number
  level: string
  kind: string
  title: string
  resolved: boolean
}

export interface SimRecord {
  meta: SimMeta
  instruments: readonly InstrumentRecord[]
  account: readonly SeriesPoint[]
  weights: readonly SeriesPoint[]
  /** The first alerts (bounded); `alertsTotal` counts all. */
  alerts: readonly AlertRow[]
  alertsTotal: number
  /** Funding paid (positive) or received (negative) over the run, quote currency. */
  funding: number
  /** Unrealized PnL at the end. */
  unrealizedPnl: number
  /** The instruments' quote asset as the venue names it (e.g. "USDC"): the unit of every amount. */
  currency?: string | undefined
  /** A note on the run shown at the top of the report (a replay too thin to fill). */
  note?: string | undefined
  /** Markouts, round trips, fill rate by distance, risk ratios (src/analytics/); absent in old records. */
  marketMaking?: MarketMakingReport | undefined
}
