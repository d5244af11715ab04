/**
 * GET /v1/info/instruments: instrument definitions (decimals, bounds, limits). Public; weight 2.
 * Filters are sent as `instrument_id`, `instrument_type`, `category` and, like statistics, also applied
 * to the answer, so a host that ignores them cannot widen the result.
 *
 * @see perps-openapi-shapes §1; protocol-notes c.1
 */
import { z } from 'zod'
import { InstrumentId } from '../schemas/common.ts'
import { type Instrument, Instruments } from '../schemas/info.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

export type InstrumentType = 'perpetual' | (string & {})
export type InstrumentCategory = 'equity' | 'commodity' | 'index' | 'crypto' | (string & {})

export const GetInstrumentsParams = z.strictObject({
  instrumentId: InstrumentId.optional(),
  instrumentType: z.string().min(1).optional(),
  category: z.string().min(1).optional(),
})
export interface GetInstrumentsParams {
  instrumentId?: number | undefined
  instrumentType?: InstrumentType | undefined
  category?: InstrumentCategory | undefined
}

/**
 * Fetches instruments, optionally filtered.
 * @throws {InputValidationError} an instrument id out of range or an empty filter, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getInstruments(
  ctx: PerpsClientContext,
  params: GetInstrumentsParams = {},
  options: PerpsReadOptions = {},
): Promise<Instrument[]> {
  const p = parseInput('getInstruments', GetInstrumentsParams, params)
  const query = new URLSearchParams()
  if (p.instrumentId !== undefined) query.set('instrument_id', String(p.instrumentId))
  if (p.instrumentType !== undefined) query.set('instrument_type', p.instrumentType)
  if (p.category !== undefined) query.set('category', p.category)
  const rows = await perpsRead(ctx, {
    endpoint: 'getInstruments',
    query,
    schema: Instruments,
    signal: options.signal,
    retry: options.retry,
  })
  return rows.filter(
    (r) =>
      (p.instrumentId === undefined || r.instrument_id === p.instrumentId) &&
      (p.instrumentType === undefined || r.instrument_type === p.instrumentType) &&
      (p.category === undefined || r.category === p.category),
  )
}
