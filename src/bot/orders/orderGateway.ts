/**
 * Connects instrument actors to the batcher: a plan's modifies, creates and cancels go to the batcher
 * unchanged (the client's own parameters; each resolved with its own per-order outcome), and a halted
 * actor's cancel-all goes to the client as risk work (its request gate charges it). Outcomes are
 * mapped to the actor's `ItemResult` vocabulary.
 *
 * When the venue refuses our modify signature (see `ModifyCapability`), each modify is sent as a
 * cancel of the order and then, once the cancel went through, a create of the same side and flags at
 * the new price and quantity; the pair is reported as the modify's one result, so the actor's plan
 * contract is unchanged.
 */

import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type {
  BatchRejected,
  CancelResult,
  CreateOrderAck,
  ModifyOrderInput,
  ModifyResult,
  Order,
} from '../../perps/schemas/orders.ts'
import type { ItemResult, PlanOutcome, SubmitPlanInput, WorkPriority } from '../quoting/orderPlan.ts'
import type { Batcher, ItemOutcome } from './batcher.ts'
import type { ModifyCapability } from './modifyCapability.ts'

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
      // The request as a whole was refused: not one of the venue's per-order domain rejections.
      return { status: 'err', error: o.error.message, request: true }
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
  /** Absent: modifies are always sent as modifies. */
  modify?: Pick<ModifyCapability, 'mode'> | undefined
}): OrderGateway {
  const { batcher } = deps

  /** One modify as cancel, then create of the same order at the new price and quantity. */
  async function replace(
    iid: number,
    m: ModifyOrderInput,
    order: Order | undefined,
    priority: WorkPriority,
  ): Promise<ItemResult> {
    const cancel = await batcher.submit({ type: 'cancelOrders', iid, oid: m.oid, priority: 'risk' })
    // Not cancelled (gone, refused, unknown): report it as the modify's outcome; nothing is created.
    if (cancel.status !== 'ok') return notOk(cancel)
    if (order === undefined)
      return {
        status: 'err',
        error: `order ${m.oid} unknown to the actor: cancelled, not recreated`,
        cancelled: true,
      }
    const created = await batcher.submit({
      type: 'createOrders',
      order: {
        iid,
        buy: order.buy,
        p: m.p,
        qty: m.qty,
        tif: 'gtc',
        po: order.po,
        ...(order.ro ? { ro: true } : {}),
      },
      priority: order.ro ? 'risk' : priority,
    })
    if (created.status === 'ok') return { status: 'ok', oid: created.oid }
    const r = notOk(created)
    return r.status === 'err' ? { ...r, cancelled: true } : r
  }

  return {
    async submitPlan({ instrumentId, plan, priority, lazy, openOrders = [] }) {
      const fallback = deps.modify?.mode === 'cancel+create'
      const byOid = new Map(openOrders.map((o) => [o.oid, o]))
      const [modify, create, cancel] = await Promise.all([
        fallback
          ? Promise.all(plan.modify.map((m) => replace(instrumentId, m, byOid.get(m.oid), priority)))
          : Promise.all(
              plan.modify.map((order) =>
                batcher
                  .submit({ type: 'modifyOrders', iid: instrumentId, order, priority, lazy })
                  .then(modifyResult),
              ),
            ),
        Promise.all(
          plan.create.map((order) =>
            batcher.submit({ type: 'createOrders', order, priority: order.ro ? 'risk' : priority, lazy }),
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
        modify,
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
