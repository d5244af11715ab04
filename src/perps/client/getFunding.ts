/**
 * GET /v1/account/funding: funding-payment history as `{data, more}` (at most 100 rows per request),
 * plus pagers that walk the window backwards (see historyPaging.ts for the paging contract).
 * Header-authenticated; weight 10 per request.
 *
 * @see spec "Perpetuals: GET /v1/account/funding"; protocol-notes c.1 (query names)
 */
import { z } from 'zod'
import { type FundingCharge, FundingPage } from '../schemas/account.ts'
import { InstrumentId } from '../schemas/common.ts'
import { PERPS_WEIGHTS } from '../weights.ts'
import type { PerpsClientContext } from './context.ts'
import { type HistoryPage, type PaginateHistoryOptions, walkHistoryBackwards } from './historyPaging.ts'
import { type PerpsReadOptions, parseInput, perpsRead, TimestampInput } from './perpsCall.ts'

export const GetFundingParams = z
  .strictObject({
    instrumentId: InstrumentId.optional(),
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
export type GetFundingParams = z.input<typeof GetFundingParams>

/** The wire query: `instrument_id`, `start_timestamp`, `end_timestamp`. */
export function fundingQuery(params: z.output<typeof GetFundingParams>): URLSearchParams {
  const q = new URLSearchParams()
  if (params.instrumentId !== undefined) q.set('instrument_id', String(params.instrumentId))
  if (params.startTimestamp !== undefined) q.set('start_timestamp', String(params.startTimestamp))
  if (params.endTimestamp !== undefined) q.set('end_timestamp', String(params.endTimestamp))
  return q
}

/** Row identity for de-duplication: `id` when sent, else one charge per instrument per settlement ms. */
export function fundingKey(row: FundingCharge): string {
  return row.id !== undefined ? `id:${row.id}` : `iid:${row.instrument_id}:${row.timestamp}`
}

/**
 * Fetches one page of funding charges.
 * @throws {InputValidationError} instrument id out of range, start after end, before any request.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getFunding(
  ctx: PerpsClientContext,
  params: GetFundingParams = {},
  options: PerpsReadOptions = {},
): Promise<FundingPage> {
  const p = parseInput('getFunding', GetFundingParams, params)
  return perpsRead(ctx, {
    endpoint: 'getFunding',
    auth: true,
    query: fundingQuery(p),
    schema: FundingPage,
    signal: options.signal,
    retry: options.retry,
  })
}

/**
 * Yields every page of the window, newest first, each holding only rows not yielded before.
 * @throws as {@link getFunding}; validation happens on the first `next()`, before any request.
 */
export async function* paginateFunding(
  ctx: PerpsClientContext,
  params: GetFundingParams = {},
  options: PaginateHistoryOptions = {},
): AsyncGenerator<HistoryPage<FundingCharge>, void, undefined> {
  const p = parseInput('getFunding', GetFundingParams, params)
  yield* walkHistoryBackwards({
    path: PERPS_WEIGHTS.getFunding.path,
    window: p,
    fetchPage: (window) => getFunding(ctx, { ...p, ...window }, options),
    timestampOf: (f) => f.timestamp,
    keyOf: fundingKey,
    options,
  })
}

/** Yields every funding charge of the window once, newest first (see {@link paginateFunding}). */
export async function* iterateFunding(
  ctx: PerpsClientContext,
  params: GetFundingParams = {},
  options: PaginateHistoryOptions = {},
): AsyncGenerator<FundingCharge, void, undefined> {
  for await (const page of paginateFunding(ctx, params, options)) yield* page.data
}
