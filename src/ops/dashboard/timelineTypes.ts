/**
 * What the dashboard receives: the bot's timeline (one sample every few seconds on the bot's clock)
 * and the board (recent fills and alerts, replaced whenever it changes). Prices and amounts in a
 * sample are floats for the charts only; nothing here goes back on the wire.
 */

export interface TimelineInstrument {
  id: number
  symbol: string
  /** State path, as on `/status` (e.g. `active.normal.quoting`). */
  state: string
  reason: string
  mode: string
  index: number | null
  /** The venue's mark price when the index input carries one. */
  mark: number | null
  /** Our best resting bid and ask. */
  bid: number | null
  ask: number | null
  /** Signed position in contracts. */
  position: number
  openOrders: number
  /** The instrument's decimals (prices and quantities are shown at them; absent: up to 6 figures). */
  priceDecimals?: number | undefined
  quantityDecimals?: number | undefined
}

export interface TimelineAccount {
  realizedPnl: number
  unrealizedPnl: number
  /** Paid (a rebate is negative). */
  fees: number
  /** Paid (received is negative). */
  funding: number
  netPnl: number
  marginRatio: number | null
  /** Since when the PnL counts (Unix ms): the account's first run when the ledger spans runs. */
  since?: number | undefined
}

export interface TimelineBudget {
  used: number
  capacity: number
}

export interface TimelineSample {
  /** Bot clock, Unix ms. */
  at: number
  instruments: TimelineInstrument[]
  account: TimelineAccount
  limiter: { request: TimelineBudget; action: TimelineBudget }
}

export interface TimelineFill {
  at: number
  symbol: string
  side: string
  price: string
  qty: string
  fee: string
  pnl: string
  maker: boolean
  liquidation: boolean
  /** Whether the fill reduced a position (realized PnL); false for an opening fill (absent: PnL ≠ 0). */
  closes?: boolean | undefined
}

export interface TimelineAlert {
  key: string
  severity: string
  title: string
  message: string
  at: number
  resolved: boolean
}

export interface TimelineBoard {
  /** dry-run or live. */
  botMode: string
  /** The unit of every amount as the venue names it (an instrument's quote asset, e.g. "USDC"). */
  currency?: string | undefined
  /** Latest fills, newest first. */
  fills: TimelineFill[]
  /** Episodes whose latest alert is not a resolution, newest first. */
  openAlerts: TimelineAlert[]
  /** Latest alerts, newest first. */
  recentAlerts: TimelineAlert[]
}

/** The first message a page gets: everything retained. */
export interface TimelineSnapshot {
  intervalMs: number
  capacity: number
  samples: TimelineSample[]
  board: TimelineBoard
}

/** One message per sample; `board` only when it changed. */
export interface TimelineUpdate {
  sample: TimelineSample
  board?: TimelineBoard | undefined
}

/** What the ops server reads to serve the dashboard. */
export interface TimelineSource {
  snapshot(): TimelineSnapshot
  /** Called once per sample; returns the unsubscribe. */
  subscribe(listener: (update: TimelineUpdate) => void): () => void
}
