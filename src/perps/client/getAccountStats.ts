/** GET /v1/account/stats: the account's 7-day volumes and maker share (header-authenticated). */
import { AccountStats } from '../schemas/accountAdmin.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/** @throws {ConfigError} no credentials; the client's usual read errors after. */
export async function getAccountStats(
  ctx: PerpsClientContext,
  options: PerpsReadOptions = {},
): Promise<AccountStats> {
  return perpsRead(ctx, {
    endpoint: 'getAccountStats',
    auth: true,
    schema: AccountStats,
    signal: options.signal,
    retry: options.retry,
  })
}
