/**
 * GET /v1/account/deposits: the account's deposits in a window, newest first, at most 100 a page,
 * optionally by status or transaction hash. Header-authenticated; weight 10.
 */
import { z } from 'zod'
import { type DepositsPage, DepositsPage as Schema } from '../schemas/accountState.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'
import { startNotAfterEnd, TimeWindow, WINDOW_ORDER, windowQuery } from './windowQuery.ts'

export const GetDepositsParams = z
  .strictObject({
    status: z.enum(['pending', 'confirmed', 'removed']).optional(),
    hash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 32-byte transaction hash')
      .optional(),
    ...TimeWindow,
  })
  .refine(startNotAfterEnd, WINDOW_ORDER)
export type GetDepositsParams = z.input<typeof GetDepositsParams>

/**
 * Reads one page of deposits.
 * @throws {InputValidationError} / {ConfigError} before any request; the client's usual read errors after.
 */
export async function getDeposits(
  ctx: PerpsClientContext,
  params: GetDepositsParams = {},
  options: PerpsReadOptions = {},
): Promise<DepositsPage> {
  const p = parseInput('getDeposits', GetDepositsParams, params)
  return perpsRead(ctx, {
    endpoint: 'getDeposits',
    auth: true,
    query: windowQuery(p, { deposit_status: p.status, hash: p.hash }),
    schema: Schema,
    signal: options.signal,
    retry: options.retry,
  })
}
