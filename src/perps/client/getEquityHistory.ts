/**
 * GET /v1/account/equity: the account's equity history as `[timestamp, value]` points of one interval
 * (1h, 4h, 1d, 1w) from `startTimestamp` (required), oldest first. Header-authenticated; weight 10.
 */
import { z } from 'zod'
import {
  type HistoryPointsPage,
  PNL_INTERVALS,
  HistoryPointsPage as Schema,
} from '../schemas/accountState.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead, TimestampInput } from './perpsCall.ts'
import { startNotAfterEnd, WINDOW_ORDER, windowQuery } from './windowQuery.ts'

export const GetEquityHistoryParams = z
  .strictObject({
    interval: z.enum(PNL_INTERVALS),
    startTimestamp: TimestampInput,
    endTimestamp: TimestampInput.optional(),
  })
  .refine(startNotAfterEnd, WINDOW_ORDER)
export type GetEquityHistoryParams = z.input<typeof GetEquityHistoryParams>

/**
 * Reads one page of equity points.
 * @throws {InputValidationError} / {ConfigError} before any request; the client's usual read errors after.
 */
export async function getEquityHistory(
  ctx: PerpsClientContext,
  params: GetEquityHistoryParams,
  options: PerpsReadOptions = {},
): Promise<HistoryPointsPage> {
  const p = parseInput('getEquityHistory', GetEquityHistoryParams, params)
  return perpsRead(ctx, {
    endpoint: 'getEquityHistory',
    auth: true,
    query: windowQuery(p, { interval: p.interval }),
    schema: Schema,
    signal: options.signal,
    retry: options.retry,
  })
}
