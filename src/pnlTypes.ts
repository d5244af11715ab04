/**
 * The PnL snapshot's shape: computed by the bot's ledger (src/bot/account/pnlLedger.ts), shown by ops
 * (`/status`, `/metrics`). A leaf below both, so ops never imports the bot.
 */
export interface InstrumentPnl {
  fills: number
  makerFills: number
  liquidationFills: number
  /** Sum of |qty × price| over fills (quote currency). */
  volume: string
  realizedPnl: string
  fees: string
  funding: string
  position: string
  entryPrice: string | undefined
  /**
   * Unrealized PnL since start: the venue's, less what the opening inventory (a position held before
   * the start) showed at the start. Without an opening mark (see `PnlLedger`), the venue's. 0 on a
   * flat position.
   */
  unrealizedPnl: string
  /** The position held at the start (the opening inventory), and its unrealized PnL then. */
  openingPosition: string
  openingUnrealizedPnl: string
  /**
   * The opening inventory's change in value since the start (opening size × (mark now − mark at the
   * start)): not part of `netPnl` (what the bot's trading made), shown apart so holding reads separately.
   */
  inventoryPnl: string
  /**
   * realized + unrealized (since start) − inventoryPnl − fees − funding; on a flat position also − the
   * opening's unrealized PnL at the start (the fills that closed the opening inventory realized it).
   */
  netPnl: string
  lastFillAt: number | undefined
}

export interface PnlSnapshot {
  instruments: Record<number, InstrumentPnl>
  account: Omit<InstrumentPnl, 'position' | 'entryPrice' | 'lastFillAt' | 'openingPosition'> & {
    makerShare: number | undefined
    /**
     * Since when the numbers count (Unix ms): the account's first run when the ledger spans runs (its
     * stored opening inventory), else this run's first portfolio; undefined before it.
     */
    since?: number | undefined
  }
}

/** Per instrument: what the fills and funding before this start added up to (the journal's record). */
export type PnlBaselineLine = Pick<
  InstrumentPnl,
  'fills' | 'makerFills' | 'liquidationFills' | 'volume' | 'realizedPnl' | 'fees' | 'funding' | 'lastFillAt'
>

/**
 * The positions held when the bot first ran on the account (its opening inventory), and their marks
 * then: kept in the journal and carried across restarts, so "since start" never counts them.
 */
export interface OpeningInventory {
  /** When the first run observed them (Unix ms): PnL is "since" this moment. */
  at: number
  instruments: Record<number, { size: string; unrealized: string; mark: string | undefined }>
}

/** Where the ledger starts at a restart: the totals so far and the ids a first read may repeat. */
export interface PnlBaseline {
  instruments: Record<number, PnlBaselineLine>
  /** `tid:oid:ts` of recent fills (the fill poller's first read overlaps the minute before start). */
  recentFills: readonly string[]
  /** `key:ts` of recent charges (key `id:N` or `iid:I:T`; the funding poller reads back an hour). */
  recentFunding: readonly string[]
  /** The opening inventory stored by the account's first run (absent: this run's first positions are). */
  opening?: OpeningInventory | undefined
}
