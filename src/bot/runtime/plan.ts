/**
 * The plan function an instrument actor calls: its strategy's desired quotes, diffed against the live
 * orders into modify/create/cancel actions. Pure given the snapshot.
 */
import { InvariantError } from '../../errors.ts'
import type { ResolvedStrategy } from '../../strategy/registry.ts'
import type { StrategySnapshot } from '../../strategy/strategy.ts'
import type { OrderPlan } from '../instrument/instrument.machine.ts'
import { diffQuotes, type QuoteDiffTolerance } from '../quoteDiff.ts'

export function createPlanFn(
  strategy: ResolvedStrategy,
  tolerance: QuoteDiffTolerance,
): (snapshot: StrategySnapshot) => OrderPlan {
  return (snapshot) => {
    const desired = strategy.quote(snapshot)
    const diff = diffQuotes({
      desired,
      live: snapshot.openOrders,
      instrument: snapshot.instrument,
      now: snapshot.now,
      tolerance,
    })
    return {
      modify: diff.modify.map((m) => ({ oid: m.oid, p: m.p, qty: m.qty })),
      create: diff.create.map((c) => {
        // Quotes are GTC limit orders: the diff always prices them.
        if (c.p === undefined) throw new InvariantError('quote diff produced an unpriced order')
        return { iid: c.iid, buy: c.buy, p: c.p, qty: c.qty, ...(c.ro ? { ro: true } : {}) }
      }),
      cancel: diff.cancel,
    }
  }
}
