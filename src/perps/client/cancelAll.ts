/**
 * DELETE /v1/trade/orders/all: cancels every open order of the signing account, or of one instrument.
 * Proxy-signed `{op:{type:"cancelAll", args:{iid?}}, sig, salt, ts, exp?}`; answers `{status:"ok"}`.
 * Request weight 1, action weight 0.
 *
 * @see perps-openapi-shapes §3 (version B); protocol-notes a.2
 */
import { z } from 'zod'
import { InstrumentId, OkAck } from '../schemas/common.ts'
import { buildCancelAll, type CancelAllInput } from '../signing/ops.ts'
import type { PerpsClientContext } from './context.ts'
import {
  expOptions,
  type PerpsCommandOptions,
  parseInput,
  perpsCommand,
  requireSigner,
  typedCommand,
  validateCommandOptions,
} from './perpsCall.ts'
import type { SameShape } from './sameShape.ts'

export const CancelAllParams = z.strictObject({ iid: InstrumentId.optional() })
export type CancelAllParams = z.input<typeof CancelAllParams>
export type CancelAllResult = z.infer<typeof OkAck>
true satisfies SameShape<z.output<typeof CancelAllParams>, CancelAllInput>

/**
 * Cancels all open orders (of `iid` when given).
 * @throws {InputValidationError} iid out of range, bad exp, before any request.
 * @throws {ConfigError} no proxy signer, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnknownOutcomeError} / {TransportError} / {UnexpectedResponseError}
 */
export async function cancelAll(
  ctx: PerpsClientContext,
  params: CancelAllParams = {},
  options: PerpsCommandOptions = {},
): Promise<CancelAllResult> {
  const valid = parseInput('cancelAll', CancelAllParams, params)
  validateCommandOptions(ctx, 'cancelAll', options)
  const signer = requireSigner(ctx, 'cancelAll')
  const built = buildCancelAll(valid)
  const exp = expOptions(ctx, options)
  return perpsCommand(ctx, {
    endpoint: 'cancelAll',
    body: () => signer.signCommand(built, exp),
    typed: typedCommand(ctx, signer, built, exp),
    schema: OkAck,
    signal: options.signal,
    priority: options.priority,
  })
}
