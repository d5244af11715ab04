/**
 * POST /v1/account/withdraw: a withdrawal of collateral to the owner's wallet (or `to`), signed by the
 * owner (signing/withdraw.ts). The venue answers the withdrawal's id; it then shows in
 * `GET /v1/account/withdrawals` and on the `withdrawals` channel. An `err` answer is a refusal.
 */
import type { Address } from 'viem'
import { RequestRejectedError } from '../../errors.ts'
import { WithdrawResult } from '../schemas/accountAdmin.ts'
import type { CommandSigner } from '../signing/commandSigner.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsCallOptions, perpsCommand } from './perpsCall.ts'

export interface WithdrawParams {
  /** Collateral base units (pUSD: 6 decimals). */
  amount: bigint
  to?: Address | undefined
}

/**
 * Requests a withdrawal; returns its id.
 * @throws {RequestRejectedError} the venue refused (an `err` answer, or 4xx/422 with `withdraw_id`).
 * @throws {UnknownOutcomeError} sent but no answer: read the withdrawals before trying again.
 */
export async function withdraw(
  ctx: PerpsClientContext,
  params: WithdrawParams,
  options: PerpsCallOptions & { owner: Pick<CommandSigner, 'signWithdraw'> },
): Promise<number> {
  const r = await perpsCommand(ctx, {
    endpoint: 'withdraw',
    body: () => options.owner.signWithdraw({ amount: params.amount, to: params.to }),
    schema: WithdrawResult,
    signal: options.signal,
  })
  if (r.status === 'err' || r.withdraw_id === undefined)
    throw new RequestRejectedError('/v1/account/withdraw', 200, r.error ?? 'withdrawal refused')
  return r.withdraw_id
}
