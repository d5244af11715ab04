/**
 * GET /v1/info/time: the venue's clock, `{time}` in Unix ms. Public; weight 1.
 * Pair it with `estimateClockOffset` (signing/timing.ts) and an `OffsetClock` so signed `ts` is fresh.
 *
 * @see perps-openapi-shapes §1; protocol-notes a.3
 */
import { ServerTime } from '../schemas/info.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/**
 * Fetches the server time.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getTime(ctx: PerpsClientContext, options: PerpsReadOptions = {}): Promise<ServerTime> {
  return perpsRead(ctx, {
    endpoint: 'getTime',
    schema: ServerTime,
    signal: options.signal,
    retry: options.retry,
  })
}
