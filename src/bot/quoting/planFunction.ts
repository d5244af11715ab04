/**
 * The plan function an instrument actor calls: its strategy's desired quotes, diffed against the live
 * orders into modify/create/cancel actions whose items are the perps client's own parameters. Pure
 * given the snapshot.
 */
import { InputValidationError } from '../../errors.ts'
import { ClientOrderId } from '../../perps/schemas/common.ts'
import type { ResolvedStrategy } from '../../strategy/registry.ts'
import type { StrategySnapshot } from '../../strategy/strategy.ts'
import type { OrderPlan } from './orderPlan.ts'
import { diffQuotes, type QuoteDiffTolerance } from './quoteDiff.ts'

export function createPlanFn(
  strategy: Pick<ResolvedStrategy, 'quote'>,
  tolerance: QuoteDiffTolerance,
): (snapshot: StrategySnapshot) => OrderPlan {
  return (snapshot) => {
    const desired = strategy.quote(snapshot)
    // A strategy is untrusted code: a malformed client order id would fail a whole batch at the client.
    for (const [i, q] of desired.entries()) {
      if (q.coid !== undefined && !ClientOrderId.safeParse(q.coid).success) {
        throw new InputValidationError(`quote ${i}: coid must be 32 lowercase hex characters, not all zero`)
      }
    }
    return diffQuotes({
      desired,
      live: snapshot.openOrders,
      instrument: snapshot.instrument,
      now: snapshot.now,
      tolerance,
    })
  }
}
