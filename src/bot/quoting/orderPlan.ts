/**
 * The one order shape from the quote diff to the perps client: a plan's items ARE the client's own
 * parameters (`createOrders` / `modifyOrders` inputs, client order id as `coid`), passed on unchanged
 * by the gateway and the batcher and parsed once, by the client, before signing; and the one outcome
 * vocabulary coming back (`ItemOutcome`: the client's parsed per-item result, or the batcher's verdict).
 */
import type {
  CancelResult,
  CreateOrderAck,
  CreateOrderInput,
  ModifyOrderInput,
  ModifyResult,
  Order,
} from '../../perps/schemas/orders.ts'

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
 * What became of one order item: the ONE vocabulary from the batcher to the actor (the batcher
 * resolves it, the gateway hands it on, `applyOutcome` reads it). Either the venue's own per-item
 * answer `R` (`ok`, or `err` for a refusal by its per-order rules), or one of the batcher's verdicts:
 * - `unknown`: the batch may or may not have been applied; the batcher reconciled the instruments
 *   before resolving this, so re-diff from the reconciled orders (nothing is resent);
 * - `superseded`: a later submission for the same order replaced this one before it was sent;
 * - `failed`: the request as a whole was refused or never sent (429, 4xx, a bad signature, invalid
 *   input, stopped): definitely not applied.
 */
export type ItemOutcome<R extends { status: 'ok' | 'err' }> =
  | R
  | { status: 'unknown' }
  | { status: 'superseded' }
  | { status: 'failed'; error: Error }

/**
 * A modify repriced by cancel + create (the venue refuses our modify signature): the cancel went
 * through, so the order left the book; `create` is how its replacement fared (undefined: the actor
 * did not know the order, so nothing was created).
 */
export interface Replaced {
  status: 'replaced'
  create: ItemOutcome<CreateOrderAck> | undefined
}

/** A modify's outcome: the venue's answer to the modify, or to the cancel + create that replaced it. */
export type ModifyOutcome = ItemOutcome<ModifyResult> | Replaced

/** Outcomes aligned index by index with the plan's arrays. */
export interface PlanOutcome {
  modify: ModifyOutcome[]
  create: ItemOutcome<CreateOrderAck>[]
  cancel: ItemOutcome<CancelResult>[]
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
