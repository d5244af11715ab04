/** GET /v1/account/balances: the account's collateral balances and their USD value. Header-authenticated. */
import { type Balance, Balances } from '../schemas/accountState.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/**
 * Reads the balances.
 * @throws {ConfigError} before any request; the client's usual read errors after.
 */
export async function getBalances(
  ctx: PerpsClientContext,
  options: PerpsReadOptions = {},
): Promise<Balance[]> {
  return perpsRead(ctx, {
    endpoint: 'getBalances',
    auth: true,
    schema: Balances,
    signal: options.signal,
    retry: options.retry,
  })
}
