/**
 * GET /v1/info/trades: one instrument's public trades in a window, newest first, at most 100 a
 * page. Public; weight 10.
 */
import { z } from 'zod'
import { InstrumentId } from '../schemas/common.ts'
import { TradesPage as Schema, type TradesPage } from '../schemas/market.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'
import { startNotAfterEnd, TimeWindow, WINDOW_ORDER, windowQuery } from './windowQuery.ts'

export const GetTradesParams = z
  .strictObject({ instrumentId: InstrumentId, ...TimeWindow })
  .refine(startNotAfterEnd, WINDOW_ORDER)
export type GetTradesParams = z.input<typeof GetTradesParams>

/**
 * Reads one page of public trades.
 * @throws {InputValidationError} before any request; the client's usual read errors after.
 */
export async function getTrades(
  ctx: PerpsClientContext,
  params: GetTradesParams,
  options: PerpsReadOptions = {},
): Promise<TradesPage> {
  const p = parseInput('getTrades', GetTradesParams, params)
  return perpsRead(ctx, {
    endpoint: 'getTrades',
    query: windowQuery(p, { instrument_id: p.instrumentId }),
    schema: Schema,
    signal: options.signal,
    retry: options.retry,
  })
}
