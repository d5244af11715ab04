/**
 * PATCH /v1/trade/margin: adds (positive) or removes (negative) isolated margin on one position.
 * Proxy-signed `{op:{type:"updateMargin", args:{amt, iid}}, sig, salt, ts}` (the official body). The
 * positional layout `["updateMargin", [iid, amount]]` is not in the published client and is inferred
 * (protocol-notes a.2, d); a venue that signs another layout answers `invalid signature` (a 400).
 */
import { z } from 'zod'
import { UpdateMarginResult } from '../schemas/accountState.ts'
import { InstrumentId } from '../schemas/common.ts'
import { buildUpdateMargin } from '../signing/ops.ts'
import type { PerpsClientContext } from './context.ts'
import {
  type PerpsCommandOptions,
  parseInput,
  perpsCommand,
  requireSigner,
  typedCommand,
  validateCommandOptions,
} from './perpsCall.ts'

export const UpdateMarginParams = z.strictObject({
  instrumentId: InstrumentId,
  /** USD, a signed decimal string: positive adds margin, negative removes it. */
  amount: z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a signed decimal string'),
})
export type UpdateMarginParams = z.input<typeof UpdateMarginParams>

/**
 * Moves isolated margin in or out of one position.
 * @throws {InputValidationError} / {ConfigError} before any request; the client's usual command errors after.
 */
export async function updateMargin(
  ctx: PerpsClientContext,
  params: UpdateMarginParams,
  options: PerpsCommandOptions = {},
): Promise<UpdateMarginResult> {
  const p = parseInput('updateMargin', UpdateMarginParams, params)
  validateCommandOptions(ctx, 'updateMargin', options)
  const signer = requireSigner(ctx, 'updateMargin')
  const built = buildUpdateMargin({ iid: p.instrumentId, amount: p.amount })
  return perpsCommand(ctx, {
    endpoint: 'updateMargin',
    body: () => signer.signCommand(built),
    typed: typedCommand(ctx, signer, built, {}),
    schema: UpdateMarginResult,
    signal: options.signal,
    priority: options.priority,
  })
}
