/**
 * GET /v1/info/assets: the collateral assets. Public; weight 2.
 *
 * @see spec "Perpetuals: GET /v1/info/assets"
 */
import { type CollateralAsset, CollateralAssets } from '../schemas/info.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/**
 * Fetches the collateral assets.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getAssets(
  ctx: PerpsClientContext,
  options: PerpsReadOptions = {},
): Promise<CollateralAsset[]> {
  return perpsRead(ctx, {
    endpoint: 'getAssets',
    schema: CollateralAssets,
    signal: options.signal,
    retry: options.retry,
  })
}
