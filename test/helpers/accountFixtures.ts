/** The account watch's thresholds as the tests use them, a portfolio at a given margin ratio, a withdrawal row. */
import type { AccountWatchConfig } from '../../src/bot/account/accountWatch.ts'
import type { Portfolio, Withdrawal } from '../../src/perps/schemas/account.ts'

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

/** A withdrawal row of 100 pUSD (6 decimals) in `status`, created at `created`. */
export function withdrawalRow(id: number, status: string, created = 0): Withdrawal {
  return {
    withdraw_id: id,
    asset: 'pUSD',
    amount: '100000000',
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    fee: '1',
    status,
    hash: '0x',
    confirmations: 0,
    required_confirmations: 12,
    created_timestamp: created,
  }
}
