/**
 * GET /v1/info/fees: the fee schedule ($0-tier default rates, plus volume tiers where sent). Public; weight 2.
 *
 * @see spec "Perpetuals: GET /v1/info/fees"
 */
import { FeeSchedule } from '../schemas/info.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/**
 * Fetches the fee schedule.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getFees(ctx: PerpsClientContext, options: PerpsReadOptions = {}): Promise<FeeSchedule> {
  return perpsRead(ctx, {
    endpoint: 'getFees',
    schema: FeeSchedule,
    signal: options.signal,
    retry: options.retry,
  })
}
