/**
 * GET /v1/account/credentials: the account address and its proxy keys (with expiry).
 * Header-authenticated; weight 2 (protocol-notes c.1; the spec does not show it).
 *
 * @see spec "Perpetuals: GET /v1/account/credentials"
 */
import { Credentials } from '../schemas/account.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/**
 * Fetches the authenticated account's credentials.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getCredentials(
  ctx: PerpsClientContext,
  options: PerpsReadOptions = {},
): Promise<Credentials> {
  return perpsRead(ctx, {
    endpoint: 'getCredentials',
    auth: true,
    schema: Credentials,
    signal: options.signal,
    retry: options.retry,
  })
}
