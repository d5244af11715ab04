/** The mock Perps venue: the exchange core, its HTTP handler, instruments and scenarios. */
export { MockRejection } from './errors.ts'
export {
  type AccountReferral,
  type AccountSeed,
  type AccountView,
  createPerpsExchange,
  DEFAULT_CONTRACT,
  type ExchangeSnapshot,
  HISTORY_PAGE_LIMIT,
  type HistoryOrder,
  PerpsExchange,
  type PerpsExchangeOptions,
  type ProxySeed,
  SIGNATURE_WINDOW_MS,
  type WithdrawalRequest,
} from './exchange.ts'
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
export { REGIMES, type RegimeName } from './priceProcess.ts'
export {
  isScenarioName,
  LIQUIDATION_SEED,
  SCENARIO_NAMES,
  SCENARIOS,
  type ScenarioName,
} from './scenarios.ts'
export type { WithdrawalOutcome, WithdrawalTiming } from './withdrawals.ts'
