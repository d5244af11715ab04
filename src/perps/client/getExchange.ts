/**
 * GET /v1/info/exchange: the EIP-712 domain values (`name`, `version`, `chain_id`, `contract`). Public; weight 2.
 * Feed the result to `perpsDomainFromExchangeInfo` (signing/domain.ts) to sign under the venue's domain.
 *
 * @see perps-openapi-shapes §1; protocol-notes a.1
 */
import { ExchangeInfo } from '../schemas/info.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/**
 * Fetches the exchange info.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getExchange(
  ctx: PerpsClientContext,
  options: PerpsReadOptions = {},
): Promise<ExchangeInfo> {
  return perpsRead(ctx, {
    endpoint: 'getExchange',
    schema: ExchangeInfo,
    signal: options.signal,
    retry: options.retry,
  })
}
