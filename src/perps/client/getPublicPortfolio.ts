/**
 * GET /v1/info/portfolio?address=…: the public positions and equity of an account. Public; weight 5.
 *
 * @see spec "Perpetuals: GET /v1/info/portfolio"; protocol-notes c.1 (`address`, required)
 */
import { Address } from '../schemas/common.ts'
import { PublicPortfolio } from '../schemas/info.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

/**
 * Fetches the public portfolio of `address` (sent exactly as given).
 * @throws {InputValidationError} a malformed address, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getPublicPortfolio(
  ctx: PerpsClientContext,
  address: string,
  options: PerpsReadOptions = {},
): Promise<PublicPortfolio> {
  const valid = parseInput('getPublicPortfolio', Address, address)
  return perpsRead(ctx, {
    endpoint: 'getPublicPortfolio',
    query: new URLSearchParams({ address: valid }),
    schema: PublicPortfolio,
    signal: options.signal,
    retry: options.retry,
  })
}
