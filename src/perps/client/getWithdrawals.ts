/**
 * GET /v1/account/withdrawals: withdrawal history as `{data, more}` (at most 100 rows per request),
 * plus pagers that walk the window backwards (see historyPaging.ts for the paging contract).
 * Header-authenticated; weight 10 per request.
 *
 * @see spec "Perpetuals: GET /v1/account/withdrawals"; protocol-notes c.1 (query names)
 */
import { z } from 'zod'
import { WITHDRAWAL_STATUSES, type Withdrawal, WithdrawalsPage } from '../schemas/account.ts'
import { Hex } from '../schemas/common.ts'
import { PERPS_WEIGHTS } from '../weights.ts'
import type { PerpsClientContext } from './context.ts'
import { type HistoryPage, type PaginateHistoryOptions, walkHistoryBackwards } from './historyPaging.ts'
import { type PerpsReadOptions, parseInput, perpsRead, TimestampInput } from './perpsCall.ts'

export const GetWithdrawalsParams = z
  .strictObject({
    status: z.enum(WITHDRAWAL_STATUSES).optional(),
    /** On-chain transaction hash. */
    hash: Hex.optional(),
    startTimestamp: TimestampInput.optional(),
    endTimestamp: TimestampInput.optional(),
  })
  .refine(
    (p) =>
      p.startTimestamp === undefined || p.endTimestamp === undefined || p.startTimestamp <= p.endTimestamp,
    {
      message: 'startTimestamp must not be after endTimestamp',
      path: ['startTimestamp'],
    },
  )
export type GetWithdrawalsParams = z.input<typeof GetWithdrawalsParams>

/** The wire query: `withdrawal_status`, `hash`, `start_timestamp`, `end_timestamp`. */
export function withdrawalsQuery(params: z.output<typeof GetWithdrawalsParams>): URLSearchParams {
  const q = new URLSearchParams()
  if (params.status !== undefined) q.set('withdrawal_status', params.status)
  if (params.hash !== undefined) q.set('hash', params.hash)
  if (params.startTimestamp !== undefined) q.set('start_timestamp', String(params.startTimestamp))
  if (params.endTimestamp !== undefined) q.set('end_timestamp', String(params.endTimestamp))
  return q
}

/**
 * Fetches one page of withdrawals.
 * @throws {InputValidationError} bad filters (unknown status, non-hex hash, start after end), before any request.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getWithdrawals(
  ctx: PerpsClientContext,
  params: GetWithdrawalsParams = {},
  options: PerpsReadOptions = {},
): Promise<WithdrawalsPage> {
  const p = parseInput('getWithdrawals', GetWithdrawalsParams, params)
  return perpsRead(ctx, {
    endpoint: 'getWithdrawals',
    auth: true,
    query: withdrawalsQuery(p),
    schema: WithdrawalsPage,
    signal: options.signal,
    retry: options.retry,
  })
}

/**
 * Yields every page of the window, newest first, each holding only rows not yielded before.
 * @throws as {@link getWithdrawals}; validation happens on the first `next()`, before any request.
 */
export async function* paginateWithdrawals(
  ctx: PerpsClientContext,
  params: GetWithdrawalsParams = {},
  options: PaginateHistoryOptions = {},
): AsyncGenerator<HistoryPage<Withdrawal>, void, undefined> {
  const p = parseInput('getWithdrawals', GetWithdrawalsParams, params)
  yield* walkHistoryBackwards({
    path: PERPS_WEIGHTS.getWithdrawals.path,
    window: p,
    fetchPage: (window) => getWithdrawals(ctx, { ...p, ...window }, options),
    timestampOf: (w) => w.created_timestamp,
    keyOf: (w) => String(w.withdraw_id),
    options,
  })
}

/** Yields every withdrawal of the window once, newest first (see {@link paginateWithdrawals}). */
export async function* iterateWithdrawals(
  ctx: PerpsClientContext,
  params: GetWithdrawalsParams = {},
  options: PaginateHistoryOptions = {},
): AsyncGenerator<Withdrawal, void, undefined> {
  for await (const page of paginateWithdrawals(ctx, params, options)) yield* page.data
}
