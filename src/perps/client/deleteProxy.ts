/**
 * DELETE /v1/account/proxy: revokes a proxy key, signed by the owner as the generic Op
 * `["deleteProxy", [proxy]]` (the official client's `revokePerpsCredentials`; byte-identical layout,
 * test/perps/signing/officialClient.test.ts). An `err` answer is a refusal.
 */
import { z } from 'zod'
import { RequestRejectedError } from '../../errors.ts'
import { DeleteProxyResult } from '../schemas/accountAdmin.ts'
import { Address } from '../schemas/common.ts'
import type { CommandSigner } from '../signing/commandSigner.ts'
import type { PerpsClientContext, PerpsOwnerSigner } from './context.ts'
import { type PerpsCallOptions, parseInput, perpsCommand } from './perpsCall.ts'

export const DeleteProxyParams = z.strictObject({ proxy: Address })
export type DeleteProxyParams = z.input<typeof DeleteProxyParams>

/** An owner that signs generic ops (a `CommandSigner` of the owner key). */
export type ProxyRevoker = PerpsOwnerSigner & Pick<CommandSigner, 'signCommand'>

/**
 * Revokes `proxy`; the owner signs.
 * @throws {InputValidationError} a malformed address, before any request.
 * @throws {RequestRejectedError} the venue refused (an `err` answer, or 4xx); the client's usual command errors.
 */
export async function deleteProxy(
  ctx: PerpsClientContext,
  params: DeleteProxyParams,
  options: PerpsCallOptions & { owner: ProxyRevoker },
): Promise<DeleteProxyResult> {
  const p = parseInput('deleteProxy', DeleteProxyParams, params)
  const r = await perpsCommand(ctx, {
    endpoint: 'deleteProxy',
    body: () =>
      options.owner.signCommand({
        op: { type: 'deleteProxy', args: { proxy: p.proxy } },
        signedOp: ['deleteProxy', [p.proxy]],
      }),
    schema: DeleteProxyResult,
    signal: options.signal,
  })
  if (r.status === 'err')
    throw new RequestRejectedError('/v1/account/proxy', 200, r.error ?? 'proxy revocation refused')
  return r
}
