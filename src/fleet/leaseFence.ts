/**
 * The lease as a fence on the request path: a command is sent only while this process may write for
 * the account (`AccountLease.canWrite()`), checked once before queueing and again right before the
 * send (the wait for admission may outlast the lease). After the lease is lost only cancels by order
 * id still go (the bot cancels its own epoch's orders); `cancelAll` and the dead-man switch are
 * account-wide, so a process that lost the account must not send them: they would cancel, or disarm,
 * the successor's. Reads always go.
 */
import { BotError } from '../errors.ts'
import type { Admission, GatedRequest, RequestGate } from '../perps/client/context.ts'
import type { PerpsEndpoint } from '../perps/weights.ts'

/** The lease no longer lets this process write for the account. */
export class LeaseLostError extends BotError {
  override name = 'LeaseLostError' as const
  constructor(account: string, endpoint: string) {
    super(`${endpoint} refused: this process no longer holds the fleet lease of account ${account}`)
  }
}

const AFTER_LOSS: ReadonlySet<PerpsEndpoint> = new Set<PerpsEndpoint>(['cancelOrders'])

export interface WriteFence {
  readonly account: string
  canWrite(): boolean
}

export function withLeaseFence(inner: RequestGate, fence: WriteFence): RequestGate {
  const refused = (r: GatedRequest): boolean =>
    r.kind === 'command' && !AFTER_LOSS.has(r.endpoint) && !fence.canWrite()
  return {
    async admit(request: GatedRequest): Promise<Admission> {
      if (refused(request)) throw new LeaseLostError(fence.account, request.endpoint)
      const admitted = await inner.admit(request)
      return {
        sending: () => {
          // Again right before the send: the wait for admission (or a batcher's hold) may outlast the lease.
          if (refused(request)) throw new LeaseLostError(fence.account, request.endpoint)
          admitted.sending()
        },
        settle: (e?: unknown) => admitted.settle(e),
        release: () => admitted.release(),
      }
    },
  }
}
