/**
 * GET /v1/account/config: leverage and margin mode per instrument, optionally of one. Header-
 * authenticated; weight 2 (protocol-notes c.1; bindings `PerpsAccountConfigSchema`).
 */
import { z } from 'zod'
import { AccountConfig, type InstrumentConfig } from '../schemas/accountState.ts'
import { InstrumentId } from '../schemas/common.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

export const GetAccountConfigParams = z.strictObject({ instrumentId: InstrumentId.optional() })
export type GetAccountConfigParams = z.input<typeof GetAccountConfigParams>

/**
 * Reads the account's per-instrument settings.
 * @throws {InputValidationError} / {ConfigError} before any request; the client's usual read errors after.
 */
export async function getAccountConfig(
  ctx: PerpsClientContext,
  params: GetAccountConfigParams = {},
  options: PerpsReadOptions = {},
): Promise<InstrumentConfig[]> {
  const { instrumentId } = parseInput('getAccountConfig', GetAccountConfigParams, params)
  const query = new URLSearchParams()
  if (instrumentId !== undefined) query.set('instrument_id', String(instrumentId))
  return perpsRead(ctx, {
    endpoint: 'getAccountConfig',
    auth: true,
    query,
    schema: AccountConfig,
    signal: options.signal,
    retry: options.retry,
  })
}
