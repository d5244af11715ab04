/**
 * GET /v1/account/fills: the account's fills as `{data, more}` (at most 100 rows per request), and
 * pagers that walk the window backwards (see historyPaging.ts). Header-authenticated; weight 10.
 *
 * @see protocol-notes c.1 (query names), d (fill fields)
 */
import { z } from 'zod'
import { type Fill, FillsPage } from '../schemas/account.ts'
import { PERPS_WEIGHTS } from '../weights.ts'
import type { PerpsClientContext } from './context.ts'
import { type HistoryPage, type PaginateHistoryOptions, walkHistoryBackwards } from './historyPaging.ts'
import { type PerpsReadOptions, parseInput, perpsRead, TimestampInput } from './perpsCall.ts'

export const GetFillsParams = z
  .strictObject({
    startTimestamp: TimestampInput.optional(),
    endTimestamp: TimestampInput.optional(),
  })
  .refine(
    (p) =>
      p.startTimestamp === undefined || p.endTimestamp === undefined || p.startTimestamp <= p.endTimestamp,
    { message: 'startTimestamp must not be after endTimestamp', path: ['startTimestamp'] },
  )
export type GetFillsParams = z.input<typeof GetFillsParams>

function fillsQuery(params: z.output<typeof GetFillsParams>): URLSearchParams {
  const q = new URLSearchParams()
  if (params.startTimestamp !== undefined) q.set('start_timestamp', String(params.startTimestamp))
  if (params.endTimestamp !== undefined) q.set('end_timestamp', String(params.endTimestamp))
  return q
}

/** A fill's identity: one trade id per order side. */
export const fillKey = (f: Fill): string => `${f.tid}:${f.oid}`

/**
 * Fetches one page of fills.
 * @throws {InputValidationError} start after end, before any request.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getFills(
  ctx: PerpsClientContext,
  params: GetFillsParams = {},
  options: PerpsReadOptions = {},
): Promise<FillsPage> {
  const p = parseInput('getFills', GetFillsParams, params)
  return perpsRead(ctx, {
    endpoint: 'getFills',
    auth: true,
    query: fillsQuery(p),
    schema: FillsPage,
    signal: options.signal,
    retry: options.retry,
  })
}

/** Yields every page of the window, newest first, each holding only rows not yielded before. */
export async function* paginateFills(
  ctx: PerpsClientContext,
  params: GetFillsParams = {},
  options: PaginateHistoryOptions = {},
): AsyncGenerator<HistoryPage<Fill>, void, undefined> {
  const p = parseInput('getFills', GetFillsParams, params)
  yield* walkHistoryBackwards({
    path: PERPS_WEIGHTS.getFills.path,
    window: p,
    fetchPage: (window) => getFills(ctx, { ...p, ...window }, options),
    timestampOf: (f) => f.ts,
    keyOf: fillKey,
    options,
  })
}

/** Yields every fill of the window once, newest first (see {@link paginateFills}). */
export async function* iterateFills(
  ctx: PerpsClientContext,
  params: GetFillsParams = {},
  options: PaginateHistoryOptions = {},
): AsyncGenerator<Fill, void, undefined> {
  for await (const page of paginateFills(ctx, params, options)) yield* page.data
}
