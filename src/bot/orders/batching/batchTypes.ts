/**
 * The batcher's vocabulary: the three order-command types (never mixed in one request), what each
 * caller submits, the typed send per batch type, and what each caller gets back. Items are the perps
 * client's own parameters, handed on unchanged.
 */
import type { RequestPriority } from '../../../perps/client/context.ts'
import type {
  CancelResult,
  CreateOrderAck,
  CreateOrderInput,
  ModifyOrderInput,
  ModifyResult,
} from '../../../perps/schemas/orders.ts'

export type BatchType = 'modifyOrders' | 'createOrders' | 'cancelOrders'

export interface BatchTypes {
  modifyOrders: { item: ModifyOrderInput; result: ModifyResult }
  createOrders: { item: CreateOrderInput; result: CreateOrderAck }
  /** Items are exchange order ids. */
  cancelOrders: { item: number; result: CancelResult }
}
export type BatchItem<T extends BatchType> = BatchTypes[T]['item']
export type BatchResult<T extends BatchType> = BatchTypes[T]['result']

/** Risk batches (cancels, reduce-only) go ahead of quote batches. */
export type CommandPriority = Extract<RequestPriority, 'risk' | 'quote'>

export interface SendOptions {
  /** Aborted when the batch times out (its outcome is then treated as unknown). */
  signal: AbortSignal
  /** The batch's priority in the request gate. */
  priority: CommandPriority
}

/**
 * A batch the request gate has admitted, not yet signed (the perps client's `AdmittedCommand`): the
 * batcher holds it while a reconciliation runs, then `send` signs and sends it once (or `release`
 * hands the weight back when the batcher stops first).
 */
export interface AdmittedBatch<R> {
  send(): Promise<readonly R[]>
  release(): void
}

/**
 * Admits ONE batch of a type in the request gate (the perps client's `admitted` commands satisfy it);
 * its `send` signs and sends it and returns one result per item, in request order. Throws for
 * request-level failures (the client's typed errors), before admission or from `send`.
 */
export interface BatchSend {
  modifyOrders(items: readonly ModifyOrderInput[], options: SendOptions): Promise<AdmittedBatch<ModifyResult>>
  createOrders(
    items: readonly CreateOrderInput[],
    options: SendOptions,
  ): Promise<AdmittedBatch<CreateOrderAck>>
  cancelOrders(oids: readonly number[], options: SendOptions): Promise<AdmittedBatch<CancelResult>>
}

/** Reads the venue's open orders for these instruments and updates the bot's view. */
export type Reconcile = (instrumentIds: readonly number[]) => Promise<void>

/** What a submitter gets back: the one outcome vocabulary of an order item (quoting/orderPlan.ts). */
export type { ItemOutcome } from '../../quoting/orderPlan.ts'

export interface ModifyCommand {
  type: 'modifyOrders'
  /** Instrument of the order (reconciliation reads it). */
  iid: number
  order: ModifyOrderInput
  /** Default 'quote'. */
  priority?: CommandPriority | undefined
  /** Not urgent (an order refreshed for its age): may wait up to the lazy window to share a batch. */
  lazy?: boolean | undefined
}

export interface CreateCommand {
  type: 'createOrders'
  order: CreateOrderInput
  /** Default 'risk' for reduce-only orders, else 'quote'. */
  priority?: CommandPriority | undefined
  lazy?: boolean | undefined
}

export interface CancelCommand {
  type: 'cancelOrders'
  iid: number
  oid: number
  /** Default 'risk'. */
  priority?: CommandPriority | undefined
}

export type OrderCommand = ModifyCommand | CreateCommand | CancelCommand

/** One item of a settled batch: its instrument, the client's parameters and the venue's answer. */
export interface SettledItem<T extends BatchType> {
  iid: number
  item: BatchItem<T>
  /** The venue's answer for this item; absent when the batch had no per-item answer (unknown, error). */
  result?: BatchResult<BatchType> | undefined
}

export interface BatchSettledOf<T extends BatchType> {
  type: T
  size: number
  outcome: 'ok' | 'unknown' | 'error'
  /** The request-level failure of an `error` batch (what the venue refused it with). */
  error?: unknown
  /** The items in request order, each with the venue's answer (values only: the journal copies them). */
  items: readonly SettledItem<T>[]
  /** From the gate's admission (the request signed and sent) to its answer or failure, clock ms. */
  latencyMs: number
  /** The request weight the batch was charged. */
  weight: number
}

/** How a sent batch ended, for metrics and the journal. */
export type BatchSettled = { [T in BatchType]: BatchSettledOf<T> }[BatchType]
