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

export type ItemResult =
  | { status: 'ok'; order?: Order | undefined; oid?: number | undefined }
  | { status: 'err'; error: string }
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
}
