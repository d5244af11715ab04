/**
 * GET /v1/account/pnl: the account's pnl history as `[timestamp, value]` points of one interval
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

export const GetPnlHistoryParams = z
  .strictObject({
    interval: z.enum(PNL_INTERVALS),
    startTimestamp: TimestampInput,
    endTimestamp: TimestampInput.optional(),
  })
  .refine(startNotAfterEnd, WINDOW_ORDER)
export type GetPnlHistoryParams = z.input<typeof GetPnlHistoryParams>

/**
 * Reads one page of pnl points.
 * @throws {InputValidationError} / {ConfigError} before any request; the client's usual read errors after.
 */
export async function getPnlHistory(
  ctx: PerpsClientContext,
  params: GetPnlHistoryParams,
  options: PerpsReadOptions = {},
): Promise<HistoryPointsPage> {
  const p = parseInput('getPnlHistory', GetPnlHistoryParams, params)
  return perpsRead(ctx, {
    endpoint: 'getPnlHistory',
    auth: true,
    query: windowQuery(p, { interval: p.interval }),
    schema: Schema,
    signal: options.signal,
    retry: options.retry,
  })
}
