/**
 * GET /v1/info/index?asset=…: index price and constituents of one asset. Public; request weight 2.
 *
 * @see spec "Perpetuals: GET /v1/info/index"; protocol-notes c.1 (`asset`, required)
 */
import { z } from 'zod'
import { Index } from '../schemas/info.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

export const GetIndexParams = z.string().trim().min(1, 'asset must not be empty').max(64)

/**
 * Fetches the index of `asset` (e.g. `"NVDA"`).
 * @throws {InputValidationError} an empty asset, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getIndex(
  ctx: PerpsClientContext,
  asset: string,
  options: PerpsReadOptions = {},
): Promise<Index> {
  const valid = parseInput('getIndex', GetIndexParams, asset)
  return perpsRead(ctx, {
    endpoint: 'getIndex',
    query: new URLSearchParams({ asset: valid }),
    schema: Index,
    signal: options.signal,
    retry: options.retry,
  })
}
