/**
 * GET /v1/account/orders: order history — the latest known state of each matching order (accepted,
 * open, partial, filled, cancelled …), a bare array of REST `OrderData` transformed to `Order`, at most
 * 100. Header-authenticated; weight 1 with `order_id`, 10 without. Not in the spec; the bot uses it to
 * learn what became of an order that left the book.
 *
 * @see perps-openapi-shapes §2; protocol-notes c.1
 */
import { z } from 'zod'
import { ClientOrderId, InstrumentId, OrderId } from '../schemas/common.ts'
import { OpenOrders, type Order } from '../schemas/orders.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, parseInput, perpsRead, TimestampInput } from './perpsCall.ts'

export const GetOrdersParams = z.strictObject({
  orderId: OrderId.optional(),
  clientOrderId: ClientOrderId.optional(),
  instrumentId: InstrumentId.optional(),
  startTimestamp: TimestampInput.optional(),
  endTimestamp: TimestampInput.optional(),
})
export type GetOrdersParams = z.input<typeof GetOrdersParams>

/**
 * Fetches order history.
 * @throws {InputValidationError} bad filters, before any request.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getOrders(
  ctx: PerpsClientContext,
  params: GetOrdersParams = {},
  options: PerpsReadOptions = {},
): Promise<Order[]> {
  const p = parseInput('getOrders', GetOrdersParams, params)
  const query = new URLSearchParams()
  if (p.orderId !== undefined) query.set('order_id', String(p.orderId))
  if (p.clientOrderId !== undefined) query.set('client_order_id', p.clientOrderId)
  if (p.instrumentId !== undefined) query.set('instrument_id', String(p.instrumentId))
  if (p.startTimestamp !== undefined) query.set('start_timestamp', String(p.startTimestamp))
  if (p.endTimestamp !== undefined) query.set('end_timestamp', String(p.endTimestamp))
  return perpsRead(ctx, {
    endpoint: 'getOrders',
    weight: { orderId: p.orderId },
    auth: true,
    query,
    schema: OpenOrders,
    signal: options.signal,
    retry: options.retry,
  })
}
