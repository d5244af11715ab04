/**
 * PATCH /v1/trade/leverage: one instrument's leverage and margin mode (`cross` false = isolated).
 * Proxy-signed `{op:{type:"updateLeverage", args:{cross, iid, lev}}, sig, salt, ts}`, the official
 * client's layout (`["updateLeverage", [iid, lev, cross]]`; it never sends `exp` here). Answers
 * `{status:"ok", instrument_id, leverage, cross}`; a refusal is 422 (e.g. `invalid_leverage`,
 * `invalid_margin_mode`).
 */
import { z } from 'zod'
import { UpdateLeverageResult } from '../schemas/accountState.ts'
import { InstrumentId } from '../schemas/common.ts'
import { buildUpdateLeverage } from '../signing/ops.ts'
import type { PerpsClientContext } from './context.ts'
import {
  type PerpsCommandOptions,
  parseInput,
  perpsCommand,
  requireSigner,
  typedCommand,
  validateCommandOptions,
} from './perpsCall.ts'

export const UpdateLeverageParams = z.strictObject({
  instrumentId: InstrumentId,
  leverage: z.number().int().positive(),
  /** true: cross margin; false: isolated. */
  cross: z.boolean(),
})
export type UpdateLeverageParams = z.input<typeof UpdateLeverageParams>

/**
 * Sets leverage and margin mode of one instrument.
 * @throws {InputValidationError} / {ConfigError} before any request; the client's usual command errors after.
 */
export async function updateLeverage(
  ctx: PerpsClientContext,
  params: UpdateLeverageParams,
  options: PerpsCommandOptions = {},
): Promise<UpdateLeverageResult> {
  const p = parseInput('updateLeverage', UpdateLeverageParams, params)
  validateCommandOptions(ctx, 'updateLeverage', options)
  const signer = requireSigner(ctx, 'updateLeverage')
  const built = buildUpdateLeverage({ iid: p.instrumentId, lev: p.leverage, cross: p.cross })
  return perpsCommand(ctx, {
    endpoint: 'updateLeverage',
    // No exp, as the official client: a setting, not an order.
    body: () => signer.signCommand(built),
    typed: typedCommand(ctx, signer, built, {}),
    schema: UpdateLeverageResult,
    signal: options.signal,
    priority: options.priority,
  })
}
