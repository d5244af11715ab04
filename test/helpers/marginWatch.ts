/** The account watch's thresholds as the tests use them, and a portfolio at a given margin ratio. */
import type { AccountWatchConfig } from '../../src/bot/account/accountWatch.ts'
import type { Portfolio } from '../../src/perps/schemas/account.ts'

/** Warning at 0.5, critical at 0.8, hysteresis 0.05. */
export const WATCH: AccountWatchConfig = {
  marginWarningRatio: 0.5,
  marginCriticalRatio: 0.8,
  marginHysteresis: 0.05,
  withdrawalPendingWarnMs: 3_600_000,
  proxyExpiryLeadMs: 86_400_000,
  clockSkewWarnMs: 2_000,
  rateLimitWarnCount: 3,
}

/** A portfolio whose margin ratio is `mm / equity`. */
export function marginPortfolio(mm: string, equity = '1', inLiquidation = false): Portfolio {
  return {
    positions: [],
    margin: {
      total_account_value: equity,
      total_initial_margin: '0',
      total_maintenance_margin: mm,
      total_position_value: '0',
    },
    withdrawable: '0',
    in_liquidation: inLiquidation,
    timestamp: 0,
  }
}
