/**
 * DELETE /v1/trade/orders: cancels orders by order id (cancelling a parent cascades to its TP/SL
 * children). Proxy-signed `{op:{type:"cancelOrders", args:[oid…]}, sig, salt, ts, exp?}` in the body.
 * Request weight 1 + floor(n/20), action weight 0. Per-order results are returned as data.
 *
 * @see perps-openapi-shapes §3; protocol-notes a.2
 */
import { z } from 'zod'
import { OrderId } from '../schemas/common.ts'
import { type CancelResult, CancelResults } from '../schemas/orders.ts'
import { buildCancelOrders, type CancelOrdersInput } from '../signing/ops.ts'
import type { PerpsClientContext } from './context.ts'
import {
  type AdmittedCommand,
  admitCommand,
  checkBatchLength,
  expOptions,
  type PerpsCommandOptions,
  parseInput,
  requireSigner,
  typedCommand,
  validateCommandOptions,
} from './perpsCall.ts'
import type { SameShape } from './sameShape.ts'

export const CancelOrdersParams = z.array(OrderId).min(1, 'at least one order id is required')
true satisfies SameShape<z.output<typeof CancelOrdersParams>[number], CancelOrdersInput['oids'][number]>

/**
 * Sends one cancel batch.
 * @throws {InputValidationError} empty list, bad oid, bad exp, before any request.
 * @throws {ConfigError} no proxy signer, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnknownOutcomeError} / {TransportError} / {UnexpectedResponseError}
 */
export async function cancelOrders(
  ctx: PerpsClientContext,
  oids: readonly number[],
  options: PerpsCommandOptions = {},
): Promise<CancelResult[]> {
  return (await admitCancelOrders(ctx, oids, options)).send()
}

/**
 * `cancelOrders` in two halves: validated and admitted by the request gate now (the same throws before
 * any request), signed and sent when the caller calls `send` (the batcher, after its reconcile hold).
 */
export async function admitCancelOrders(
  ctx: PerpsClientContext,
  oids: readonly number[],
  options: PerpsCommandOptions = {},
): Promise<AdmittedCommand<CancelResult[]>> {
  const valid = parseInput('cancelOrders', CancelOrdersParams, oids)
  validateCommandOptions(ctx, 'cancelOrders', options)
  const signer = requireSigner(ctx, 'cancelOrders')
  const built = buildCancelOrders({ oids: valid })
  const exp = expOptions(ctx, options)
  const admitted = await admitCommand(ctx, {
    endpoint: 'cancelOrders',
    weight: { n: valid.length },
    body: () => signer.signCommand(built, exp),
    typed: typedCommand(ctx, signer, built, exp),
    schema: CancelResults,
    signal: options.signal,
    priority: options.priority,
  })
  return {
    send: async () => checkBatchLength('cancelOrders', await admitted.send(), valid.length),
    release: admitted.release,
  }
}
