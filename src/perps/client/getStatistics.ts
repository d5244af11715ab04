/**
 * GET /v1/info/statistics: 24-hour statistics per instrument. Public; weight 2.
 * The live host ignores `instrument_id` and returns every instrument, so the filter is also applied
 * here: with `instrumentId` the result holds at most that instrument.
 *
 * @see spec "Perpetuals: GET /v1/info/statistics"; perps-openapi-shapes §1 (OBSERVED)
 */
import { z } from 'zod'
import { InputValidationError } from '../../errors.ts'
import { InstrumentId } from '../schemas/common.ts'
import { Kline, Statistics, StatisticsItem } from '../schemas/info.ts'
import { tolerantArray } from '../schemas/tolerantArray.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

export const GetStatisticsParams = z.strictObject({ instrumentId: InstrumentId.optional() })
export type GetStatisticsParams = z.input<typeof GetStatisticsParams>

export interface GetStatisticsOptions extends PerpsReadOptions {
  /**
   * Keep only each row's newest `n` klines: those are validated, the older ones are dropped unread. A
   * day of 1-minute klines is 1,440 rows per instrument (~95 KB), and checking every one costs about
   * twice the JSON parse; a caller that keeps a few need not pay for the rest.
   */
  newestKlines?: number | undefined
}

/** The rows' schema when only the newest `n` klines are kept (one per `n`, built on first use). */
const keeping = new Map<number, z.ZodType<StatisticsItem[]>>()
function statisticsKeeping(n: number): z.ZodType<StatisticsItem[]> {
  let schema = keeping.get(n)
  if (schema === undefined) {
    const newest = z
      .array(z.unknown())
      .transform((rows) => (n === 0 ? [] : rows.slice(-n)))
      .pipe(tolerantArray(Kline))
    schema = tolerantArray(StatisticsItem.extend({ klines: newest }))
    keeping.set(n, schema)
  }
  return schema
}

/**
 * Fetches statistics, optionally of one instrument (with `newestKlines`, only the newest klines).
 * @throws {InputValidationError} an instrument id outside 0..4294967295, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getStatistics(
  ctx: PerpsClientContext,
  params: GetStatisticsParams = {},
  options: GetStatisticsOptions = {},
): Promise<StatisticsItem[]> {
  const n = options.newestKlines
  if (n !== undefined && !(Number.isInteger(n) && n >= 0))
    throw new InputValidationError(`getStatistics: newestKlines must be a whole number ≥ 0, not ${n}`)
  const { instrumentId } = parseInput('getStatistics', GetStatisticsParams, params)
  const query = new URLSearchParams()
  if (instrumentId !== undefined) query.set('instrument_id', String(instrumentId))
  const rows = await perpsRead(ctx, {
    endpoint: 'getStatistics',
    weight: { instrumentId },
    query,
    schema: n === undefined ? Statistics : statisticsKeeping(n),
    signal: options.signal,
    retry: options.retry,
  })
  return instrumentId === undefined ? rows : rows.filter((r) => r.instrument_id === instrumentId)
}
