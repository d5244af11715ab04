/**
 * GET /v1/account/open-orders: the account's resting orders as a bare array of REST `OrderData`,
 * transformed to the terse domain `Order`. Header-authenticated; weight 1 with `instrument_id`, 20 without.
 *
 * @see perps-openapi-shapes §2; protocol-notes c.1
 */
import { z } from 'zod'
import { InstrumentId } from '../schemas/common.ts'
import { OpenOrders, type Order } from '../schemas/orders.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead } from './perpsCall.ts'

export const GetOpenOrdersParams = z.strictObject({ instrumentId: InstrumentId.optional() })
export type GetOpenOrdersParams = z.input<typeof GetOpenOrdersParams>

/**
 * Fetches open orders, optionally of one instrument (20× cheaper in request weight).
 * @throws {InputValidationError} an instrument id out of range, before any request.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getOpenOrders(
  ctx: PerpsClientContext,
  params: GetOpenOrdersParams = {},
  options: PerpsReadOptions = {},
): Promise<Order[]> {
  const { instrumentId } = parseInput('getOpenOrders', GetOpenOrdersParams, params)
  const query = new URLSearchParams()
  if (instrumentId !== undefined) query.set('instrument_id', String(instrumentId))
  return perpsRead(ctx, {
    endpoint: 'getOpenOrders',
    weight: { instrumentId },
    auth: true,
    query,
    schema: OpenOrders,
    signal: options.signal,
    retry: options.retry,
    priority: options.priority,
  })
}
