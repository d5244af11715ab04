/**
 * DELETE /v1/trade/orders-coid: cancels orders by client order id. Proxy-signed
 * `{op:{type:"cancelOrdersCOID", args:[coid…]}, sig, salt, ts, exp?}`, the official client's layout
 * (`["cancelOrdersCOID", [coid…]]`). Request weight 1 + floor(n/20), action weight 0. Per-order
 * results are data (`order_in_flight` among them is retryable: see `isRetryableItemError`).
 */
import { z } from 'zod'
import { ClientOrderId } from '../schemas/common.ts'
import { type CancelResult, CancelResults } from '../schemas/orders.ts'
import { buildCancelOrdersCoid } from '../signing/ops.ts'
import type { PerpsClientContext } from './context.ts'
import {
  checkBatchLength,
  expOptions,
  type PerpsCommandOptions,
  parseInput,
  perpsCommand,
  requireSigner,
  typedCommand,
  validateCommandOptions,
} from './perpsCall.ts'

export const CancelOrdersCoidParams = z
  .array(ClientOrderId)
  .min(1, 'at least one client order id is required')

/**
 * Sends one cancel-by-client-id batch.
 * @throws {InputValidationError} empty list, malformed id, bad exp, before any request.
 * @throws {ConfigError} no proxy signer, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnknownOutcomeError} / {TransportError} / {UnexpectedResponseError}
 */
export async function cancelOrdersCoid(
  ctx: PerpsClientContext,
  coids: readonly string[],
  options: PerpsCommandOptions = {},
): Promise<CancelResult[]> {
  const valid = parseInput('cancelOrdersCoid', CancelOrdersCoidParams, coids)
  validateCommandOptions(ctx, 'cancelOrdersCoid', options)
  const signer = requireSigner(ctx, 'cancelOrdersCoid')
  const built = buildCancelOrdersCoid({ coids: valid })
  const exp = expOptions(ctx, options)
  const results = await perpsCommand(ctx, {
    endpoint: 'cancelOrdersCoid',
    weight: { n: valid.length },
    body: () => signer.signCommand(built, exp),
    typed: typedCommand(ctx, signer, built, exp),
    schema: CancelResults,
    signal: options.signal,
    priority: options.priority,
  })
  return checkBatchLength('cancelOrdersCoid', results, valid.length)
}
