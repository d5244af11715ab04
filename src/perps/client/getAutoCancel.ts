/**
 * GET /v1/account/auto-cancel: the dead-man switch's status — the armed deadline (0 when not armed),
 * the triggers used today of the daily limit, and when the day's counter resets. Header-authenticated;
 * weight 1. No official schema (the client does not read it; protocol-notes d).
 */
import { type AutoCancelStatus, AutoCancelStatus as Schema } from '../schemas/accountState.ts'
import type { PerpsClientContext } from './context.ts'
import { type PerpsReadOptions, perpsRead } from './perpsCall.ts'

/**
 * Reads the switch's status.
 * @throws {ConfigError} no credentials configured, before any request.
 * @throws {RequestRejectedError} / {RateLimitError} / {UnexpectedResponseError} / {TransportError}
 */
export async function getAutoCancel(
  ctx: PerpsClientContext,
  options: PerpsReadOptions = {},
): Promise<AutoCancelStatus> {
  return perpsRead(ctx, {
    endpoint: 'getAutoCancel',
    auth: true,
    schema: Schema,
    signal: options.signal,
    retry: options.retry,
  })
}
