/**
 * POST /v1/account/referral `{code}`: applies a referral code (only if the account has none yet).
 * Header-authenticated, not signed; weight 1. It changes state, so it is sent once like a command:
 * never retried, and a lost answer is an `UnknownOutcomeError`.
 *
 * @see spec "Perpetuals: POST /v1/account/referral"
 */
import { z } from 'zod'
import { OkAck } from '../schemas/common.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsCallOptions, parseInput, perpsCommand } from './perpsCall.ts'

export const ApplyReferralParams = z.string().trim().min(1, 'code must not be empty').max(128)

export type ApplyReferralResult = z.infer<typeof OkAck>

/**
 * Applies `code` to the authenticated account.
 * @throws {InputValidationError} an empty code, before any request.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} (e.g. 400/422 when a code is already applied, 401) / {RateLimitError}
 * @throws {UnknownOutcomeError} sent but no answer (or a 5xx); {TransportError} never sent.
 */
export async function applyReferral(
  ctx: PerpsClientContext,
  code: string,
  options: PerpsCallOptions = {},
): Promise<ApplyReferralResult> {
  const valid = parseInput('applyReferral', ApplyReferralParams, code)
  return perpsCommand(ctx, {
    endpoint: 'applyReferral',
    auth: true,
    body: () => ({ code: valid }),
    schema: OkAck,
    signal: options.signal,
  })
}
