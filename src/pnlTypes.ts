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
   * the start) showed at the start. Without an opening mark (see `PnlLedger`), the venue's.
   */
  unrealizedPnl: string
  /** The position held at the start (the opening inventory), and its unrealized PnL then. */
  openingPosition: string
  openingUnrealizedPnl: string
  /**
   * The opening inventory's change in value since the start (opening size × (mark now − mark at the
   * start)): part of `netPnl`, shown apart so trading and holding read separately.
   */
  inventoryPnl: string
  /** realized + unrealized (since start) − fees − funding. */
  netPnl: string
  lastFillAt: number | undefined
}

export interface PnlSnapshot {
  instruments: Record<number, InstrumentPnl>
  account: Omit<InstrumentPnl, 'position' | 'entryPrice' | 'lastFillAt' | 'openingPosition'> & {
    makerShare: number | undefined
  }
}
