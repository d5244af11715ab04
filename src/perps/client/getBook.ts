/**
 * GET /v1/info/book: one instrument's order book, `depth` levels a side (10, 100, 500 or 1000;
 * default 100). Public; weight 2 / 5 / 10 / 20 by depth (protocol-notes c.4).
 */
import { z } from 'zod'
import { InstrumentId } from '../schemas/common.ts'
import { type Book, Book as BookSchema } from '../schemas/market.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

export const BOOK_DEPTHS = [10, 100, 500, 1000] as const
export const GetBookParams = z.strictObject({
  instrumentId: InstrumentId,
  depth: z.union(BOOK_DEPTHS.map((d) => z.literal(d))).optional(),
})
export type GetBookParams = z.input<typeof GetBookParams>

/**
 * Reads the book.
 * @throws {InputValidationError} before any request; the client's usual read errors after.
 */
export async function getBook(
  ctx: PerpsClientContext,
  params: GetBookParams,
  options: PerpsReadOptions = {},
): Promise<Book> {
  const p = parseInput('getBook', GetBookParams, params)
  const query = new URLSearchParams({ instrument_id: String(p.instrumentId) })
  if (p.depth !== undefined) query.set('depth', String(p.depth))
  return perpsRead(ctx, {
    endpoint: 'getBook',
    weight: { depth: p.depth },
    query,
    schema: BookSchema,
    signal: options.signal,
    retry: options.retry,
  })
}
