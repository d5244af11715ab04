/**
 * GET /v1/account/deposits: the account's deposits in a window, newest first, at most 100 a page,
 * optionally by status or transaction hash. Header-authenticated; weight 10.
 */
import { z } from 'zod'
import { type Deposit, type DepositsPage, DepositsPage as Schema } from '../schemas/accountState.ts'
import { PERPS_WEIGHTS } from '../weights.ts'
import type { PerpsClientContext } from './context.ts'
import { type HistoryPage, type PaginateHistoryOptions, walkHistoryBackwards } from './historyPaging.ts'
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

/**
 * Yields every page of the window, newest first, each holding only rows not yielded before (the
 * window is on `created_timestamp`; see historyPaging.ts for the paging contract).
 * @throws as {@link getDeposits}; validation happens on the first `next()`, before any request.
 */
export async function* paginateDeposits(
  ctx: PerpsClientContext,
  params: GetDepositsParams = {},
  options: PaginateHistoryOptions = {},
): AsyncGenerator<HistoryPage<Deposit>, void, undefined> {
  const p = parseInput('getDeposits', GetDepositsParams, params)
  yield* walkHistoryBackwards({
    path: PERPS_WEIGHTS.getDeposits.path,
    window: p,
    fetchPage: (window) => getDeposits(ctx, { ...p, ...window }, options),
    timestampOf: (d) => d.created_timestamp,
    keyOf: (d) => d.hash,
    options,
  })
}

/** Yields every deposit of the window once, newest first (see {@link paginateDeposits}). */
export async function* iterateDeposits(
  ctx: PerpsClientContext,
  params: GetDepositsParams = {},
  options: PaginateHistoryOptions = {},
): AsyncGenerator<Deposit, void, undefined> {
  for await (const page of paginateDeposits(ctx, params, options)) yield* page.data
}
