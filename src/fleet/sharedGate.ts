/**
 * The adapter between the limiter and the fleet: a `RequestGate` around the limiter whose admission,
 * after the local one, takes the request's weight from the shared IP budget. So Bottleneck stays the
 * local queue and priority order, and Redis is asked right before each send, after local admission.
 * A 429 naming the IP budget (anything but the per-account action budget and the open-order cap)
 * pauses the whole fleet for its Retry-After.
 */
import { RateLimitError } from '../errors.ts'
import type { Admission, GatedRequest, RequestGate } from '../perps/client/context.ts'
import type { SharedBudget, SharedGrant } from './sharedBudget.ts'

/** 429 codes that are not about the egress IP's request weight. */
const NOT_IP_WIDE = new Set(['action_rate_limited', 'open_orders_limit'])

export function withSharedBudget(
  inner: RequestGate,
  budget: SharedBudget,
  opts: { defaultPauseMs?: number | undefined } = {},
): RequestGate {
  const defaultPauseMs = opts.defaultPauseMs ?? 1_000
  return {
    async admit(request: GatedRequest): Promise<Admission> {
      const local = await inner.admit(request)
      // The exit's own commands (stop sequence) wait on nothing of ours, shared or local: the
      // venue's answer is their only limit (issue 24); everything else asks Redis first.
      const priority = request.priority ?? 'read'
      // A halted instrument's cancels take the halt reserve, which nothing else is ever lent.
      let grant: SharedGrant | undefined
      try {
        grant =
          request.requestWeight > 0 && priority !== 'exit'
            ? await budget.acquire(request.requestWeight, priority, request.signal)
            : undefined
      } catch (e) {
        local.release()
        throw e
      }
      return {
        sending: () => {
          local.sending()
          // A send long after its admission (a starved process) is stamped again: see SharedBudget.sent.
          if (grant !== undefined) budget.sent(grant)
        },
        settle: async (e?: unknown) => {
          if (e instanceof RateLimitError && !NOT_IP_WIDE.has(e.code)) {
            await budget.reportRateLimited(e.retryAfterMs ?? defaultPauseMs)
          }
          await local.settle(e)
        },
        // The grant stays in the shared log: the window forgets it, as it forgets a sent one.
        release: () => local.release(),
      }
    },
  }
}
