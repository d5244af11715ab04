/**
 * POST /v1/trade/orders: places a batch of orders. Proxy-signed
 * `{op:{type:"createOrders", args:[{iid, buy, po, qty, tif?, ro?, p?, c?, tr?}], grp?}, sig, salt, ts, exp?}`.
 * Request weight 1 + floor(n/20), action weight 1 per order. Answers are acks only (`{status:"ok", oid, coid?}`
 * or `{status:"err", error}` per order, as data); the order's fate is read from open orders later.
 *
 * @see perps-openapi-shapes §3; protocol-notes a.2, c.2
 */
import { z } from 'zod'
import { ClientOrderId, InstrumentId } from '../schemas/common.ts'
import { type CreateOrderAck, CreateOrderAcks, TimeInForce } from '../schemas/orders.ts'
import { buildCreateOrders, type CreateOrderInput, type OrderGroup } from '../signing/ops.ts'
import type { PerpsClientContext } from './context.ts'
import { plainCreateOrders } from './orderInputs.ts'
import {
  type AdmittedCommand,
  admitCommand,
  checkBatchLength,
  expOptions,
  type PerpsCommandOptions,
  PositiveDecimalInput,
  parseInput,
  requireSigner,
  typedCommand,
  validateCommandOptions,
} from './perpsCall.ts'
import type { SameShape } from './sameShape.ts'

export const CreateOrderParams = z
  .strictObject({
    iid: InstrumentId,
    buy: z.boolean(),
    /** Limit price; required for GTC, optional (market-style) for IOC/FOK. */
    p: PositiveDecimalInput.optional(),
    qty: PositiveDecimalInput,
    tif: TimeInForce.optional(),
    /** Post-only: GTC only. */
    po: z.boolean().optional(),
    /** Reduce-only. */
    ro: z.boolean().optional(),
    /** Client order id, 32 lowercase hex; sent as `c`. */
    coid: ClientOrderId.optional(),
    trigger: z
      .strictObject({ trp: PositiveDecimalInput, tpsl: z.enum(['tp', 'sl']), market: z.boolean().optional() })
      .optional(),
  })
  .refine((o) => !(o.po === true && (o.tif === 'ioc' || o.tif === 'fok')), {
    message: 'IOC/FOK orders cannot be post-only',
    path: ['po'],
  })
  .refine((o) => !(o.tif === 'gtc' && o.p === undefined), {
    message: 'GTC orders require a price',
    path: ['p'],
  })
export const CreateOrdersParams = z.array(CreateOrderParams).min(1, 'at least one order is required')
true satisfies SameShape<z.output<typeof CreateOrderParams>, CreateOrderInput>

export interface CreateOrdersOptions extends PerpsCommandOptions {
  /** TP/SL grouping of the batch. */
  grp?: OrderGroup | undefined
}

/**
 * Sends one order batch.
 * @throws {InputValidationError} empty list, bad fields, po with IOC/FOK, GTC without price, bad exp, before any request.
 * @throws {ConfigError} no proxy signer, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} (e.g. `open_orders_limit`, no Retry-After)
 * @throws {UnknownOutcomeError} sent but no answer (or a 5xx): reconcile by client order id before resending.
 * @throws {TransportError} never sent. {UnexpectedResponseError} an ack count or shape mismatch.
 */
export async function createOrders(
  ctx: PerpsClientContext,
  orders: readonly CreateOrderInput[],
  options: CreateOrdersOptions = {},
): Promise<CreateOrderAck[]> {
  return (await admitCreateOrders(ctx, orders, options)).send()
}

/**
 * `createOrders` in two halves: validated and admitted by the request gate now (the same throws before
 * any request), signed and sent when the caller calls `send` (the batcher, after its reconcile hold).
 */
export async function admitCreateOrders(
  ctx: PerpsClientContext,
  orders: readonly CreateOrderInput[],
  options: CreateOrdersOptions = {},
): Promise<AdmittedCommand<CreateOrderAck[]>> {
  // Plainly valid items skip the schema's parse (orderInputs.ts: the same output, every refusal the schema's).
  const valid = plainCreateOrders(orders) ?? parseInput('createOrders', CreateOrdersParams, orders)
  if (options.grp !== undefined)
    parseInput('createOrders', z.object({ grp: z.enum(['order', 'position']) }), options)
  validateCommandOptions(ctx, 'createOrders', options)
  const signer = requireSigner(ctx, 'createOrders')
  const built = buildCreateOrders({ orders: valid, grp: options.grp })
  const exp = expOptions(ctx, options)
  const admitted = await admitCommand(ctx, {
    endpoint: 'createOrders',
    weight: { n: valid.length },
    body: () => signer.signCommand(built, exp),
    typed: typedCommand(ctx, signer, built, exp),
    schema: CreateOrderAcks,
    signal: options.signal,
    priority: options.priority,
  })
  return {
    send: async () => checkBatchLength('createOrders', await admitted.send(), valid.length),
    release: admitted.release,
  }
}
