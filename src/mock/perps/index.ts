/**
 * The mock Perps venue: the exchange core, its HTTP handler, instruments and scenarios; and what
 * `src/research/` reaches of it (issue 37, point 4): the matching rules called directly (the backtest's
 * in-process venue: no HTTP, no signatures), the market and the replay seam (`MarketDriver`).
 */

export type { AccountReferral } from './account/accounts.ts'
export type { WithdrawalRequest } from './account/accountWithdrawals.ts'
export type { WithdrawalOutcome, WithdrawalTiming } from './account/withdrawals.ts'
export { MockRejection } from './errors.ts'
export { createPerpsExchange, PerpsExchange } from './exchange.ts'
export { AUTH_HEADER_PAIRS, createPerpsHandler } from './handler.ts'
export {
  DEFAULT_COLLATERAL,
  DEFAULT_FEE_TIERS,
  DEFAULT_INSTRUMENTS,
  defineInstrument,
  generateInstruments,
  type InstrumentInput,
  type InstrumentSpec,
} from './instruments.ts'
export type { Market } from './market/market.ts'
export type {
  MarketDriver,
  MarketTap,
  ReplayedStep,
  ReplayFill,
  RestingOrderView,
} from './market/marketDriver.ts'
export { REGIMES, type RegimeName } from './market/priceProcess.ts'
export {
  isScenarioName,
  LIQUIDATION_SEED,
  SCENARIO_NAMES,
  SCENARIOS,
  type ScenarioName,
} from './market/scenarios.ts'
export {
  cancelAllOrders,
  cancelOrder,
  checkOpenOrderCap,
  modifyOrder,
  placeOrder,
} from './matching.ts'
export { rateString } from './money.ts'
export {
  type AccountSeed,
  DEFAULT_CONTRACT,
  HISTORY_PAGE_LIMIT,
  type HistoryOrder,
  type PerpsExchangeOptions,
  type ProxySeed,
  SIGNATURE_WINDOW_MS,
} from './options.ts'
export type { Account, ExchangeState } from './state.ts'
export type { AccountView, ExchangeSnapshot } from './wire.ts'
export { orderWire } from './wire.ts'
