/**
 * How a sent batch's answer or failure is read: results matched to items, whether a failure may have
 * been applied (so it is reconciled, never resent), and how far a batch the gate can never admit must
 * shrink. Pure.
 */
import {
  BotError,
  RateLimitError,
  RequestRejectedError,
  TransportError,
  UnexpectedResponseError,
  UnknownOutcomeError,
} from '../../../errors.ts'
import type { BatchRejected } from '../../../perps/schemas/orders.ts'
import { JobTooHeavyError } from '../../../perps/throttle/limiterErrors.ts'
import { maxBatchForWeight, PERPS_WEIGHTS } from '../../../perps/weights.ts'
import type { BatchType } from './batchTypes.ts'

/**
 * One result per item in order; a single `err` for a multi-item batch is a request-level rejection
 * that applies to every item. Anything else cannot be matched to orders, so the outcome is unknown.
 */
export function matchResults<R extends { status: string }>(
  type: BatchType,
  size: number,
  answer: readonly R[],
): readonly (R | BatchRejected)[] {
  if (answer.length === size) return answer
  const only = answer[0]
  if (answer.length === 1 && only !== undefined && isRejected(only))
    return Array.from({ length: size }, () => only)
  throw new UnexpectedResponseError(PERPS_WEIGHTS[type].path, [
    `${answer.length} results for a batch of ${size}`,
  ])
}

function isRejected(r: { status: string }): r is BatchRejected {
  return r.status === 'err'
}

/** The largest batch that would fit after a `JobTooHeavyError` for a batch of `size`, or 0 if none. */
export function splitCap(type: BatchType, e: unknown, size: number): number {
  if (!(e instanceof JobTooHeavyError)) return 0
  // Both inverses come from the weight table: action weight per order, request weight per batch size.
  const perOrder = PERPS_WEIGHTS[type].action({ n: 1 })
  const fits =
    e.budget === 'action'
      ? perOrder > 0
        ? Math.floor(e.maxWeight / perOrder)
        : size
      : maxBatchForWeight(e.maxWeight)
  return Math.max(0, Math.min(fits, size - 1))
}

/** Whether a failed send may have been applied by the venue (so it must be reconciled, never resent). */
export function isUnknownOutcome(e: unknown): boolean {
  if (e instanceof UnknownOutcomeError || e instanceof UnexpectedResponseError) return true
  if (e instanceof TransportError) return e.maybeDelivered
  if (e instanceof RateLimitError) return false
  if (e instanceof RequestRejectedError) return e.status >= 500
  // Our own typed errors (signing, input, config, limiter) are raised before anything is sent; anything
  // else cannot prove the request did not go out.
  return !(e instanceof BotError)
}
