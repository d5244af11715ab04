/**
 * GET /v1/account/portfolio: positions, margin summary, withdrawable balance, liquidation flag.
 * Header-authenticated; weight 2.
 *
 * @see spec "Perpetuals: GET /v1/account/portfolio"
 */
import { Portfolio } from '../schemas/account.ts'
import { typedPortfolio } from '../typedReads.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/**
 * Fetches the authenticated account's portfolio.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} (401 `unauthorized`) / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getPortfolio(
  ctx: PerpsClientContext,
  options: PerpsReadOptions = {},
): Promise<Portfolio> {
  return perpsRead(ctx, {
    endpoint: 'getPortfolio',
    auth: true,
    schema: Portfolio,
    typed: typedPortfolio,
    signal: options.signal,
    retry: options.retry,
  })
}
