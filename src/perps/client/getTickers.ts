/**
 * GET /v1/info/tickers: every instrument's index, mark, last, mid, open interest and funding in one
 * read. Public; weight 2 — one read replaces a `getIndex` per asset when polling (the stream's REST
 * fallback). With `instrumentId` the result holds at most that instrument (filtered here too, as the
 * live host is observed to ignore the filter on its sibling `statistics`).
 *
 * @see protocol-notes c.1 (`/v1/info/tickers`, weight 2); `@polymarket/bindings` `PerpsTickerSchema`
 */
import { z } from 'zod'
import { InstrumentId } from '../schemas/common.ts'
import { type Ticker, Tickers } from '../schemas/tickers.ts'
import { typedTickers } from '../typedReads.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

export const GetTickersParams = z.strictObject({ instrumentId: InstrumentId.optional() })
export type GetTickersParams = z.input<typeof GetTickersParams>

/**
 * Fetches the tickers, optionally of one instrument.
 * @throws {InputValidationError} an instrument id outside 0..4294967295, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getTickers(
  ctx: PerpsClientContext,
  params: GetTickersParams = {},
  options: PerpsReadOptions = {},
): Promise<Ticker[]> {
  const { instrumentId } = parseInput('getTickers', GetTickersParams, params)
  const query = new URLSearchParams()
  if (instrumentId !== undefined) query.set('instrument_id', String(instrumentId))
  const rows = await perpsRead(ctx, {
    endpoint: 'getTickers',
    weight: { instrumentId },
    query,
    schema: Tickers,
    typed: typedTickers,
    signal: options.signal,
    retry: options.retry,
  })
  return instrumentId === undefined ? rows : rows.filter((r) => r.instrument_id === instrumentId)
}
