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
  unrealizedPnl: string
  /** realized + unrealized − fees − funding. */
  netPnl: string
  lastFillAt: number | undefined
}

export interface PnlSnapshot {
  instruments: Record<number, InstrumentPnl>
  account: Omit<InstrumentPnl, 'position' | 'entryPrice' | 'lastFillAt'> & { makerShare: number | undefined }
}
