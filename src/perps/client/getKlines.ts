/**
 * GET /v1/info/klines: one instrument's candles of one interval from `startTimestamp` (required),
 * oldest first, at most 1,000 a page. Public; weight 5.
 */
import { z } from 'zod'
import { InstrumentId } from '../schemas/common.ts'
import { KLINE_INTERVALS_REST, type KlinesPage, KlinesPage as Schema } from '../schemas/market.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead, TimestampInput } from './perpsCall.ts'
import { startNotAfterEnd, WINDOW_ORDER, windowQuery } from './windowQuery.ts'

export const GetKlinesParams = z
  .strictObject({
    instrumentId: InstrumentId,
    interval: z.enum(KLINE_INTERVALS_REST),
    startTimestamp: TimestampInput,
    endTimestamp: TimestampInput.optional(),
  })
  .refine(startNotAfterEnd, WINDOW_ORDER)
export type GetKlinesParams = z.input<typeof GetKlinesParams>

/**
 * Reads one page of candles.
 * @throws {InputValidationError} before any request; the client's usual read errors after.
 */
export async function getKlines(
  ctx: PerpsClientContext,
  params: GetKlinesParams,
  options: PerpsReadOptions = {},
): Promise<KlinesPage> {
  const p = parseInput('getKlines', GetKlinesParams, params)
  return perpsRead(ctx, {
    endpoint: 'getKlines',
    query: windowQuery(p, { instrument_id: p.instrumentId, interval: p.interval }),
    schema: Schema,
    signal: options.signal,
    retry: options.retry,
  })
}
