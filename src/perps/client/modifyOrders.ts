/**
 * PATCH /v1/trade/orders: changes the price and total quantity of existing orders by order id.
 * Proxy-signed `{op:{type:"modifyOrders", args:[{oid, p, qty}]}, sig, salt, ts, exp?}`; not
 * header-authenticated. Request weight 1 + floor(n/20), action weight 1 per order.
 * Per-order outcomes (`{status:"ok", order}` / `{status:"err", error, oid?}`) are returned as data in
 * request order; request-level failures (a one-item `[{status:"err", error}]` with 4xx/5xx) are thrown.
 *
 * @see spec "Perpetuals: PATCH /v1/trade/orders"; perps-openapi-shapes §3
 */
import { z } from 'zod'
import { OrderId } from '../schemas/common.ts'
import { type ModifyResult, ModifyResults } from '../schemas/orders.ts'
import { buildModifyOrders, type ModifyOrdersInput } from '../signing/ops.ts'
import type { PerpsClientContext } from './context.ts'
import { plainModifyOrders } from './orderInputs.ts'
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

export const ModifyOrderParams = z.strictObject({
  oid: OrderId,
  /** New price, decimal string > 0. */
  p: PositiveDecimalInput,
  /** New total quantity, decimal string > 0. */
  qty: PositiveDecimalInput,
})
export const ModifyOrdersParams = z.array(ModifyOrderParams).min(1, 'at least one modification is required')
export type ModifyOrderParams = z.input<typeof ModifyOrderParams>
true satisfies SameShape<z.output<typeof ModifyOrderParams>, ModifyOrdersInput['orders'][number]>

/**
 * Sends one modify batch.
 * @throws {InputValidationError} empty list, bad oid, non-decimal or zero price/qty, bad exp, before any request.
 * @throws {ConfigError} no proxy signer, before any request.
 * @throws {RequestRejectedError} a request-level rejection (400 invalid signature, 404 disabled, …)
 * @throws {RateLimitError} 429, with `retryAfterMs` when sent.
 * @throws {UnknownOutcomeError} sent but no answer (or a 5xx): reconcile open orders before resending.
 * @throws {TransportError} never sent. {UnexpectedResponseError} a result count or shape mismatch.
 */
export async function modifyOrders(
  ctx: PerpsClientContext,
  mods: readonly ModifyOrderParams[],
  options: PerpsCommandOptions = {},
): Promise<ModifyResult[]> {
  return (await admitModifyOrders(ctx, mods, options)).send()
}

/**
 * `modifyOrders` in two halves: validated and admitted by the request gate now (the same throws before
 * any request), signed and sent when the caller calls `send` (the batcher, after its reconcile hold).
 */
export async function admitModifyOrders(
  ctx: PerpsClientContext,
  mods: readonly ModifyOrderParams[],
  options: PerpsCommandOptions = {},
): Promise<AdmittedCommand<ModifyResult[]>> {
  // Plainly valid items skip the schema's parse (orderInputs.ts: the same output, every refusal the schema's).
  const valid = plainModifyOrders(mods) ?? parseInput('modifyOrders', ModifyOrdersParams, mods)
  validateCommandOptions(ctx, 'modifyOrders', options)
  const signer = requireSigner(ctx, 'modifyOrders')
  const built = buildModifyOrders({ orders: valid })
  const exp = expOptions(ctx, options)
  const admitted = await admitCommand(ctx, {
    endpoint: 'modifyOrders',
    weight: { n: valid.length },
    body: () => signer.signCommand(built, exp),
    typed: typedCommand(ctx, signer, built, exp),
    schema: ModifyResults,
    signal: options.signal,
    priority: options.priority,
  })
  return {
    send: async () => checkBatchLength('modifyOrders', await admitted.send(), valid.length),
    release: admitted.release,
  }
}
