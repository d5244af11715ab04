/**
 * The adapter between the bot's limiter and the fleet: a `RequestGate` around the limiter's gate
 * whose send first takes the request's weight from the shared IP budget. So Bottleneck stays the
 * local queue and priority order, and Redis is asked right before each send, after local admission.
 * A 429 naming the IP budget (anything but the per-account action budget and the open-order cap)
 * pauses the whole fleet for its Retry-After.
 */
import { RateLimitError } from '../errors.ts'
import type { GatedRequest, RequestGate } from '../perps/client/context.ts'
import type { SharedBudget } from './sharedBudget.ts'

/** 429 codes that are not about the egress IP's request weight. */
const NOT_IP_WIDE = new Set(['action_rate_limited', 'open_orders_limit'])

export function withSharedBudget(
  inner: RequestGate,
  budget: SharedBudget,
  opts: { defaultPauseMs?: number | undefined } = {},
): RequestGate {
  const defaultPauseMs = opts.defaultPauseMs ?? 1_000
  return {
    run<T>(request: GatedRequest, send: () => Promise<T>): Promise<T> {
      return inner.run(request, async () => {
        // The exit's own commands (stop sequence) wait on nothing of ours, shared or local: the
        // venue's answer is their only limit (issue 24); everything else asks Redis first.
        const priority = request.priority ?? 'read'
        // A halted instrument's cancels take the halt reserve, which nothing else is ever lent.
        const grant =
          request.requestWeight > 0 && priority !== 'exit'
            ? await budget.acquire(request.requestWeight, priority, request.signal)
            : undefined
        try {
          const sending = send()
          // A send long after its admission (a starved process) is stamped again: see SharedBudget.sent.
          if (grant !== undefined) budget.sent(grant)
          return await sending
        } catch (e) {
          if (e instanceof RateLimitError && !NOT_IP_WIDE.has(e.code)) {
            await budget.reportRateLimited(e.retryAfterMs ?? defaultPauseMs)
          }
          throw e
        }
      })
    },
  }
}
