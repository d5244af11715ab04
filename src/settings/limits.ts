/**
 * What a configuration may ask of the venue. Budgets stop at the venue's documented limits (PN c.4):
 * a higher budget only makes the bot cause its own 429s. Each poller has a floor: the interval at
 * which that poller alone would spend an eighth of the venue's request budget on its read (weight
 * from the weight table), rounded up to 500 ms — so 0 ms, which starves every other read, is refused.
 * Polling other than the index (which stretches itself into its own third of the budget) must fit in
 * what the index leaves.
 */

import { entriesOf } from '../guards.ts'
import {
  DEFAULT_ACTION_BUDGET_PER_MINUTE,
  DEFAULT_REQUEST_BUDGET_PER_MINUTE,
  PERPS_WEIGHTS,
} from '../perps/weights.ts'

/** The venue's request bucket per IP (PN c.4). */
export const VENUE_REQUEST_BUDGET_PER_MINUTE = DEFAULT_REQUEST_BUDGET_PER_MINUTE
/** The venue's WebSocket limits per IP and per connection (PN c.4). */
export const VENUE_STREAM_CONNECTIONS = 50
export const VENUE_STREAM_SUBSCRIPTIONS_PER_CONNECTION = 100
export const VENUE_STREAM_MESSAGES_PER_MINUTE = 1_000
/** The venue's default-tier action bucket per account (PN c.4). */
export const VENUE_ACTION_BUDGET_PER_MINUTE = DEFAULT_ACTION_BUDGET_PER_MINUTE

export type PollingKey =
  | 'indexMs'
  | 'statisticsMs'
  | 'portfolioMs'
  | 'openOrdersMs'
  | 'withdrawalsMs'
  | 'fundingMs'
  | 'depositsMs'
  | 'fillsMs'
  | 'credentialsMs'
  | 'timeSyncMs'

/** The request weight of the read each poller sends per cycle (open orders: the all-instrument read). */
export const POLLED_READ_WEIGHT: Readonly<Record<PollingKey, number>> = {
  // The index of every instrument comes from one tickers read.
  indexMs: PERPS_WEIGHTS.getTickers.request({}),
  statisticsMs: PERPS_WEIGHTS.getStatistics.request({}),
  portfolioMs: PERPS_WEIGHTS.getPortfolio.request({}),
  openOrdersMs: PERPS_WEIGHTS.getOpenOrders.request({}),
  withdrawalsMs: PERPS_WEIGHTS.getWithdrawals.request({}),
  fundingMs: PERPS_WEIGHTS.getFunding.request({}),
  depositsMs: PERPS_WEIGHTS.getDeposits.request({}),
  fillsMs: PERPS_WEIGHTS.getFills.request({}),
  credentialsMs: PERPS_WEIGHTS.getCredentials.request({}),
  timeSyncMs: PERPS_WEIGHTS.getTime.request({}),
}

/** Share of the venue's request budget one poller may take at its floor. */
const FLOOR_SHARE = 1 / 8
const FLOOR_STEP_MS = 500

function floorFor(weight: number): number {
  const ms = (weight * 60_000) / (VENUE_REQUEST_BUDGET_PER_MINUTE * FLOOR_SHARE)
  return Math.ceil(ms / FLOOR_STEP_MS) * FLOOR_STEP_MS
}

/** Smallest accepted interval per poller, in ms (index, statistics, portfolio 1 s; open orders 10 s; ...). */
export const POLLING_FLOOR_MS: Readonly<Record<PollingKey, number>> = Object.fromEntries(
  Object.entries(POLLED_READ_WEIGHT).map(([k, w]) => [k, floorFor(w)]),
) as Record<PollingKey, number>

/** Request weight per minute the pollers other than the index send at these intervals. */
export function pollingWeightPerMinute(polling: Readonly<Record<PollingKey, number>>): number {
  let total = 0
  for (const [key, weight] of entriesOf(POLLED_READ_WEIGHT)) {
    if (key === 'indexMs') continue
    total += (weight * 60_000) / Math.max(1, polling[key])
  }
  return total
}

/**
 * The weight per minute those pollers may use: what the usable budget (budget × headroom, less the
 * risk reserve) leaves after the index's third. Beyond it the reads alone would need the whole budget
 * and commands would only ever wait.
 */
export function pollingAllowancePerMinute(limiter: {
  requestBudgetPerMinute: number
  headroom: number
  riskReserve: number
}): number {
  const usable = limiter.requestBudgetPerMinute * limiter.headroom * (1 - limiter.riskReserve)
  return (usable * 2) / 3
}
