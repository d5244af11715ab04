/**
 * The one order shape from the quote diff to the perps client: a plan's items ARE the client's own
 * parameters (`createOrders` / `modifyOrders` inputs, client order id as `coid`), passed on unchanged
 * by the gateway and the batcher and parsed once, by the client, before signing.
 */
import type { CreateOrderInput, ModifyOrderInput, Order } from '../../perps/schemas/orders.ts'

/** A create item: the client's `createOrders` parameter, priced (quotes are limit orders). */
export type PlannedCreate = CreateOrderInput & { p: string }

/** What one repricing decision wants done. */
export interface OrderPlan {
  modify: ModifyOrderInput[]
  create: PlannedCreate[]
  /** Exchange order ids. */
  cancel: number[]
}

/**
 * A modify's `ok` carries the changed order, or (repriced by cancel + create) the new order's `oid`
 * when it differs from the modified one; a create's `ok` carries its `oid`.
 */
export type ItemResult =
  | { status: 'ok'; order?: Order | undefined; oid?: number | undefined }
  /**
   * The venue refused the item. `request` marks a refusal of the whole request (a 4xx, a 429, a bad
   * signature: nothing was applied) as opposed to the venue's per-order domain rules.
   */
  | {
      status: 'err'
      error: string
      request?: boolean | undefined
      /** A modify replaced by cancel + create whose cancel went through: the order left the book. */
      cancelled?: boolean | undefined
    }
  | { status: 'unknown' }
  | { status: 'superseded' }

/** Results aligned index by index with the plan's arrays. */
export interface PlanOutcome {
  modify: ItemResult[]
  create: ItemResult[]
  cancel: ItemResult[]
}

export type WorkPriority = 'risk' | 'quote'

export interface SubmitPlanInput {
  instrumentId: number
  plan: OrderPlan
  priority: WorkPriority
  /** Only orders refreshed for their age (no input changed): may wait to share a batch. */
  lazy?: boolean | undefined
  /** The actor's open orders: what a modify replaced by cancel + create recreates (side, flags). */
  openOrders?: readonly Order[] | undefined
}
