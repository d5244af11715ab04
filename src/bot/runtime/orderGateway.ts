/**
 * Connects instrument actors to the batcher: a plan's modifies, creates and cancels become batcher
 * commands (each resolved with its own per-order outcome), and a halted actor's cancel-all goes to the
 * limiter as risk work. Outcomes are mapped to the actor's `ItemResult` vocabulary.
 */

import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type { Batcher, ItemOutcome } from '../batcher.ts'
import type { ItemResult, PlanOutcome, SubmitPlanInput } from '../instrument/instrument.machine.ts'
import type { WeightLimiter } from '../limiter/weightLimiter.ts'

export interface OrderGateway {
  submitPlan(input: SubmitPlanInput): Promise<PlanOutcome>
  cancelAll(instrumentId: number | undefined): Promise<void>
}

type VenueResult = { status: 'ok'; order?: Order; oid?: number } | { status: 'err'; error: string }

function toItemResult(o: ItemOutcome<VenueResult>): ItemResult {
  switch (o.status) {
    case 'unknown':
    case 'superseded':
      return { status: o.status }
    case 'failed':
      return { status: 'err', error: (o as { error: Error }).error.message }
    case 'err':
      return { status: 'err', error: (o as { error: string }).error }
    default: {
      const ok = o as { order?: Order; oid?: number }
      return {
        status: 'ok',
        ...(ok.order !== undefined ? { order: ok.order } : {}),
        ...(ok.oid !== undefined ? { oid: ok.oid } : {}),
      }
    }
  }
}

export function createOrderGateway(deps: {
  batcher: Batcher
  limiter: Pick<WeightLimiter, 'schedule'>
  perps: PerpsClient
}): OrderGateway {
  const { batcher } = deps
  return {
    async submitPlan({ instrumentId, plan, priority }) {
      const [modify, create, cancel] = await Promise.all([
        Promise.all(
          plan.modify.map((m) =>
            batcher.submit({
              type: 'modifyOrders',
              iid: instrumentId,
              order: { oid: m.oid, p: m.p, qty: m.qty },
              priority,
            }),
          ),
        ),
        Promise.all(
          plan.create.map((c) =>
            batcher.submit({
              type: 'createOrders',
              order: {
                iid: c.iid,
                buy: c.buy,
                p: c.p,
                qty: c.qty,
                tif: 'gtc',
                po: true,
                ...(c.ro ? { ro: true } : {}),
              },
              priority: c.ro ? 'risk' : priority,
            }),
          ),
        ),
        // Cancels reduce risk: always at risk priority.
        Promise.all(
          plan.cancel.map((oid) =>
            batcher.submit({ type: 'cancelOrders', iid: instrumentId, oid, priority: 'risk' }),
          ),
        ),
      ])
      return {
        modify: modify.map((r) => toItemResult(r as ItemOutcome<VenueResult>)),
        create: create.map((r) => toItemResult(r as ItemOutcome<VenueResult>)),
        cancel: cancel.map((r) => toItemResult(r as ItemOutcome<VenueResult>)),
      }
    },
    async cancelAll(instrumentId) {
      await deps.limiter.schedule({ endpoint: 'cancelAll', priority: 'risk' }, () =>
        deps.perps.cancelAll(instrumentId === undefined ? {} : { iid: instrumentId }),
      )
    },
  }
}
