/**
 * Orders in their three wire forms: the terse `Order` (modifyOrders results, WS pushes; the spec's
 * shape), the REST `OrderData` with long names (open-orders), and the create/cancel acknowledgements.
 * `OrderData` is transformed into `Order`, so the bot sees one domain shape.
 */
import { z } from 'zod'
import { DecimalString, InstrumentId, OrderId, TimestampMs } from './common.ts'
import { tolerantArray } from './tolerantArray.ts'

export const TIME_IN_FORCE = ['gtc', 'ioc', 'fok'] as const
export const TimeInForce = z.enum(TIME_IN_FORCE)
export type TimeInForce = z.infer<typeof TimeInForce>

/** Known statuses (protocol-notes c.2); unknown future values pass through as strings. */
export const KNOWN_ORDER_STATUSES = [
  'accepted',
  'open',
  'partial',
  'filled',
  'cancelled',
  'auto_cancelled',
  'post_only_rejected',
  'fok_unfilled',
  'ioc_no_fill',
  'ioc_expired',
  'stp_cancelled',
  'zero_quantity',
  'duplicate_order',
  'order_not_found',
  'reduce_only_invalid',
  'reduce_only_expired',
  'order_expired',
] as const
export type KnownOrderStatus = (typeof KNOWN_ORDER_STATUSES)[number]
export const OrderStatus = z.string()

/** The spec's Order (terse keys). */
export const Order = z.looseObject({
  oid: OrderId,
  iid: InstrumentId,
  buy: z.boolean(),
  p: DecimalString,
  /** Total quantity. */
  qty: DecimalString,
  tif: z.union([TimeInForce, z.string()]),
  /** Post-only. */
  po: z.boolean(),
  /** Reduce-only. */
  ro: z.boolean(),
  /** Resting quantity. */
  rest: DecimalString,
  /** Filled quantity. */
  fill: DecimalString,
  cts: TimestampMs,
  uts: TimestampMs,
  status: OrderStatus,
  coid: z.string().optional(),
})
export type Order = z.infer<typeof Order>

/** REST `OrderData` (open-orders, orders): long names, `ro` short; transformed to `Order`. */
export const OrderData = z
  .looseObject({
    order_id: OrderId,
    instrument_id: InstrumentId,
    buy: z.boolean(),
    price: DecimalString,
    quantity: DecimalString,
    tif: z.union([TimeInForce, z.string()]),
    post_only: z.boolean(),
    ro: z.boolean(),
    status: OrderStatus,
    resting_quantity: DecimalString,
    filled_quantity: DecimalString,
    created_timestamp: TimestampMs,
    updated_timestamp: TimestampMs,
    client_order_id: z.string().nullish(),
  })
  .transform(
    (d): Order => ({
      oid: d.order_id,
      iid: d.instrument_id,
      buy: d.buy,
      p: d.price,
      qty: d.quantity,
      tif: d.tif,
      po: d.post_only,
      ro: d.ro,
      rest: d.resting_quantity,
      fill: d.filled_quantity,
      cts: d.created_timestamp,
      uts: d.updated_timestamp,
      status: d.status,
      ...(d.client_order_id ? { coid: d.client_order_id } : {}),
    }),
  )
export type OrderDataWire = z.input<typeof OrderData>
/** An order we cannot read is dropped and reported, not the whole list. */
export const OpenOrders = tolerantArray(OrderData)

/** A batch item's rejection code when the venue sent none (the official client substitutes a text too). */
export const UNSPECIFIED_REJECTION = 'unspecified_rejection'

/** A per-item rejection inside a batch answer; an absent or empty `error` reads as `UNSPECIFIED_REJECTION`. */
export const BatchRejected = z.looseObject({
  status: z.literal('err'),
  error: z
    .string()
    .optional()
    .transform((e) => (e === undefined || e === '' ? UNSPECIFIED_REJECTION : e)),
  oid: OrderId.optional(),
  coid: z.string().optional(),
})
export type BatchRejected = z.infer<typeof BatchRejected>

/**
 * Per-item rejection codes that say "not now" rather than "no": the order is between the risk check
 * and the engine (`order_in_flight`, and the cancel codes `order_not_pending_risk` /
 * `order_not_pending_engine`), so the same cancel succeeds a moment later. A caller retries these
 * (after a short pause) instead of reporting a failure.
 */
export const RETRYABLE_ITEM_ERRORS: ReadonlySet<string> = new Set([
  'order_in_flight',
  'order_not_pending_risk',
  'order_not_pending_engine',
])

/** Whether a batch item's rejection is worth the same command again shortly (see RETRYABLE_ITEM_ERRORS). */
export function isRetryableItemError(item: { status: string; error?: string | undefined }): boolean {
  return item.status === 'err' && item.error !== undefined && RETRYABLE_ITEM_ERRORS.has(item.error)
}

/**
 * Per-item rejection codes that mean "this order is not on the book any more" (filled, cancelled,
 * rejected, or never ours): the official client's `order_not_found`, `order_not_in_orderbook`,
 * `order_unknown` (a client order id that resolves to no order), and the venue's newer
 * `order_already_terminal`. A cancel or modify answered so is no rejection: the order is gone, and
 * the caller reconciles to learn how it ended. Read by code only: message texts change.
 */
export const ORDER_GONE_CODES = [
  'order_not_found',
  'order_not_in_orderbook',
  'order_unknown',
  'order_already_terminal',
] as const
export type OrderGoneCode = (typeof ORDER_GONE_CODES)[number]
const GONE: ReadonlySet<string> = new Set(ORDER_GONE_CODES)

/** Whether a per-item rejection code says the order is already gone (see ORDER_GONE_CODES). */
export function isOrderGoneCode(code: string): code is OrderGoneCode {
  return GONE.has(code)
}

export const ModifyResult = z.discriminatedUnion('status', [
  z.looseObject({ status: z.literal('ok'), order: Order }),
  BatchRejected,
])
export type ModifyResult = z.infer<typeof ModifyResult>
export const ModifyResults = z.array(ModifyResult)

export const CreateOrderAck = z.discriminatedUnion('status', [
  z.looseObject({ status: z.literal('ok'), oid: OrderId, coid: z.string().optional() }),
  BatchRejected,
])
export type CreateOrderAck = z.infer<typeof CreateOrderAck>
export const CreateOrderAcks = z.array(CreateOrderAck)

/** Results answer the request positionally; an `ok` without `oid` is valid (the official client allows it). */
export const CancelResult = z.discriminatedUnion('status', [
  z.looseObject({ status: z.literal('ok'), oid: OrderId.optional(), coid: z.string().optional() }),
  BatchRejected,
])
export type CancelResult = z.infer<typeof CancelResult>
export const CancelResults = z.array(CancelResult)

/**
 * Order-command inputs are the client's own parameter types (the client order id is `coid`, as in the
 * official client; it travels as `c` in the JSON body). They are parsed once, by the client.
 */
export type { CreateOrderInput, ModifyOrderInput } from '../signing/ops.ts'
