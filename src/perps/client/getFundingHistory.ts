/**
 * GET /v1/info/funding: one instrument's settled funding rates in a window, newest first, at most
 * 100 a page. Public; weight 10. (The account's own charges are `getFunding`.)
 */
import { z } from 'zod'
import { InstrumentId } from '../schemas/common.ts'
import { type FundingRatesPage, FundingRatesPage as Schema } from '../schemas/market.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'
import { startNotAfterEnd, TimeWindow, WINDOW_ORDER, windowQuery } from './windowQuery.ts'

export const GetFundingHistoryParams = z
  .strictObject({ instrumentId: InstrumentId, ...TimeWindow })
  .refine(startNotAfterEnd, WINDOW_ORDER)
export type GetFundingHistoryParams = z.input<typeof GetFundingHistoryParams>

/**
 * Reads one page of funding rates.
 * @throws {InputValidationError} before any request; the client's usual read errors after.
 */
export async function getFundingHistory(
  ctx: PerpsClientContext,
  params: GetFundingHistoryParams,
  options: PerpsReadOptions = {},
): Promise<FundingRatesPage> {
  const p = parseInput('getFundingHistory', GetFundingHistoryParams, params)
  return perpsRead(ctx, {
    endpoint: 'getFundingHistory',
    query: windowQuery(p, { instrument_id: p.instrumentId }),
    schema: Schema,
    signal: options.signal,
    retry: options.retry,
  })
}
