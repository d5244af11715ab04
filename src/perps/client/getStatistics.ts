/**
 * GET /v1/info/statistics: 24-hour statistics per instrument. Public; weight 2.
 * The live host ignores `instrument_id` and returns every instrument, so the filter is also applied
 * here: with `instrumentId` the result holds at most that instrument.
 *
 * @see spec "Perpetuals: GET /v1/info/statistics"; perps-openapi-shapes §1 (OBSERVED)
 */
import { z } from 'zod'
import { InstrumentId } from '../schemas/common.ts'
import { Statistics, type StatisticsItem } from '../schemas/info.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

export const GetStatisticsParams = z.strictObject({ instrumentId: InstrumentId.optional() })
export type GetStatisticsParams = z.input<typeof GetStatisticsParams>

/**
 * Fetches statistics, optionally of one instrument.
 * @throws {InputValidationError} an instrument id outside 0..4294967295, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getStatistics(
  ctx: PerpsClientContext,
  params: GetStatisticsParams = {},
  options: PerpsReadOptions = {},
): Promise<StatisticsItem[]> {
  const { instrumentId } = parseInput('getStatistics', GetStatisticsParams, params)
  const query = new URLSearchParams()
  if (instrumentId !== undefined) query.set('instrument_id', String(instrumentId))
  const rows = await perpsRead(ctx, {
    endpoint: 'getStatistics',
    weight: { instrumentId },
    query,
    schema: Statistics,
    signal: options.signal,
    retry: options.retry,
  })
  return instrumentId === undefined ? rows : rows.filter((r) => r.instrument_id === instrumentId)
}
