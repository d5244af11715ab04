/**
 * Connects instrument actors to the batcher: a plan's modifies, creates and cancels go to the batcher
 * unchanged (the client's own parameters; each resolved with its own per-order outcome), and a halted
 * actor's cancel-all goes to the client as risk work (its request gate charges it). Outcomes are
 * mapped to the actor's `ItemResult` vocabulary.
 */

import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { BatchRejected, CancelResult, CreateOrderAck, ModifyResult } from '../../perps/schemas/orders.ts'
import type { Batcher, ItemOutcome } from '../batcher.ts'
import type { ItemResult, PlanOutcome, SubmitPlanInput } from '../orders/orderPlan.ts'

export interface OrderGateway {
  submitPlan(input: SubmitPlanInput): Promise<PlanOutcome>
  /** Cancels every open order (of one instrument when given), at risk priority. */
  cancelAll(instrumentId: number | undefined, options?: { signal?: AbortSignal | undefined }): Promise<void>
}

type NotOk = Exclude<ItemOutcome<BatchRejected>, { status: 'ok' }>

/** Everything but a venue `ok`: the same for the three command types. */
function notOk(o: NotOk): ItemResult {
  switch (o.status) {
    case 'unknown':
    case 'superseded':
      return { status: o.status }
    case 'failed':
      return { status: 'err', error: o.error.message }
    default:
      return { status: 'err', error: o.error }
  }
}

const modifyResult = (o: ItemOutcome<ModifyResult>): ItemResult =>
  o.status === 'ok' ? { status: 'ok', order: o.order } : notOk(o)
const ackResult = (o: ItemOutcome<CreateOrderAck | CancelResult>): ItemResult =>
  o.status === 'ok' ? { status: 'ok', oid: o.oid } : notOk(o)

export function createOrderGateway(deps: {
  batcher: Batcher
  perps: Pick<PerpsClient, 'cancelAll'>
}): OrderGateway {
  const { batcher } = deps
  return {
    async submitPlan({ instrumentId, plan, priority }) {
      const [modify, create, cancel] = await Promise.all([
        Promise.all(
          plan.modify.map((order) =>
            batcher.submit({ type: 'modifyOrders', iid: instrumentId, order, priority }),
          ),
        ),
        Promise.all(
          plan.create.map((order) =>
            batcher.submit({ type: 'createOrders', order, priority: order.ro ? 'risk' : priority }),
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
        modify: modify.map(modifyResult),
        create: create.map(ackResult),
        cancel: cancel.map(ackResult),
      }
    },
    async cancelAll(instrumentId, options = {}) {
      await deps.perps.cancelAll(instrumentId === undefined ? {} : { iid: instrumentId }, {
        priority: 'risk',
        signal: options.signal,
      })
    },
  }
}
