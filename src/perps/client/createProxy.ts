/**
 * POST /v1/account/proxy: registers a proxy key for the owner account and returns its API secret.
 * Signed by the OWNER (EOA) as a `CreateProxy` struct; not header-authenticated; weight 1.
 * Body `{op:{type:"createProxy", args:{owner, proxy, expiry}}, sig, salt, ts, label?, code?}`.
 * The secret is returned inside `ProxyCredentials`, whose JSON/inspect/string forms hide it, and it
 * never appears in an error. The answer needs only the secret: once it is issued the proxy is
 * registered, so an answer without `status` (as the official client reads it) still yields it.
 *
 * @see spec "Perpetuals: POST /v1/account/proxy"; protocol-notes a.1, a.3
 */
import { z } from 'zod'
import { ConfigError, InputValidationError, UnexpectedResponseError } from '../../errors.ts'
import { CreateProxyResult } from '../schemas/account.ts'
import { Address } from '../schemas/common.ts'
import { PERPS_WEIGHTS } from '../weights.ts'
import { type PerpsClientContext, type PerpsOwnerSigner, ProxyCredentials } from './context.ts'
import { type PerpsCallOptions, parseInput, perpsCommand, TimestampInput } from './perpsCall.ts'

export const CreateProxyParams = z.strictObject({
  /** The new proxy's address, sent (and signed) exactly as given. */
  proxy: Address,
  /** Proxy expiry, Unix ms. */
  expiry: TimestampInput,
  /** Human-readable label (not signed). */
  label: z.string().min(1).max(256).optional(),
  /** Referral/invite code (not signed). */
  code: z.string().min(1).max(128).optional(),
})
export type CreateProxyParams = z.input<typeof CreateProxyParams>

export interface CreateProxyOptions extends PerpsCallOptions {
  /** The owner signer; defaults to the context's `ownerSigner`. */
  owner?: PerpsOwnerSigner | undefined
}

export interface CreateProxyResponse {
  status: 'ok'
  /** `proxy` plus the API secret for the header pair. */
  credentials: ProxyCredentials
}

/**
 * Creates a proxy and returns its credentials.
 * @throws {InputValidationError} malformed proxy, expiry not after now, before any request.
 * @throws {ConfigError} no owner signer, before any request.
 * @throws {RequestRejectedError} (400 invalid signature, 422 `proxy already exists`) / {RateLimitError}
 * @throws {UnknownOutcomeError} sent but no answer (or a 5xx): read credentials before retrying.
 * @throws {TransportError} never sent. {UnexpectedResponseError} the answer lacked a secret.
 */
export async function createProxy(
  ctx: PerpsClientContext,
  params: CreateProxyParams,
  options: CreateProxyOptions = {},
): Promise<CreateProxyResponse> {
  const p = parseInput('createProxy', CreateProxyParams, params)
  const now = Math.floor(ctx.clock.now())
  if (p.expiry <= now) {
    throw new InputValidationError(`invalid createProxy input: expiry ${p.expiry} is not after now (${now})`)
  }
  const owner = options.owner ?? ctx.ownerSigner
  if (owner === undefined)
    throw new ConfigError('createProxy needs an owner signer', ['ownerSigner: not configured'])
  const result = await perpsCommand(ctx, {
    endpoint: 'createProxy',
    body: () => owner.signCreateProxy(p),
    schema: CreateProxyResult,
    signal: options.signal,
  })
  try {
    return { status: 'ok', credentials: new ProxyCredentials(p.proxy, result.secret) }
  } catch {
    // A secret with control characters cannot go in a header; say so without echoing it.
    throw new UnexpectedResponseError(PERPS_WEIGHTS.createProxy.path, [
      'secret: not usable as a header value',
    ])
  }
}
