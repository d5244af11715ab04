/**
 * The batcher's queue entries: one per submitted command, keyed for coalescing, in queues per
 * (priority, type) flushed in a fixed order.
 */
import { InputValidationError } from '../../../errors.ts'
import { fieldOf } from '../../../guards.ts'
import type {
  CancelResult,
  CreateOrderAck,
  CreateOrderInput,
  ModifyOrderInput,
  ModifyResult,
} from '../../../perps/schemas/orders.ts'
import type { BatchType, CommandPriority, ItemOutcome, OrderCommand } from './batchTypes.ts'

export type QueueKey = `${CommandPriority}:${BatchType}`
/** Flush order: risk first; cancels before new exposure. */
export const QUEUE_ORDER: readonly QueueKey[] = [
  'risk:cancelOrders',
  'risk:createOrders',
  'risk:modifyOrders',
  'quote:cancelOrders',
  'quote:modifyOrders',
  'quote:createOrders',
]

/** A value per queue; the record's keys follow the flush order. */
export function perQueue<T>(f: (k: QueueKey) => T): Record<QueueKey, T> {
  return {
    'risk:cancelOrders': f('risk:cancelOrders'),
    'risk:createOrders': f('risk:createOrders'),
    'risk:modifyOrders': f('risk:modifyOrders'),
    'quote:cancelOrders': f('quote:cancelOrders'),
    'quote:modifyOrders': f('quote:modifyOrders'),
    'quote:createOrders': f('quote:createOrders'),
  }
}

const QUEUE_PARTS: Record<QueueKey, { priority: CommandPriority; type: BatchType }> = perQueue((k) => {
  const type = k.endsWith('cancelOrders')
    ? 'cancelOrders'
    : k.endsWith('createOrders')
      ? 'createOrders'
      : 'modifyOrders'
  return { priority: k.startsWith('risk') ? 'risk' : 'quote', type }
})

/** A queue's priority and command type. */
export const queueParts = (k: QueueKey): { priority: CommandPriority; type: BatchType } => QUEUE_PARTS[k]

export type AnyResult = ModifyResult | CreateOrderAck | CancelResult

interface EntryBase {
  priority: CommandPriority
  /** May wait up to the batcher's lazy window (risk entries never wait). */
  lazy: boolean
  iid: number
  /** Coalescing key: one queued command per order. */
  key: string | undefined
  resolve: (outcome: ItemOutcome<AnyResult>) => void
}
export type Entry =
  | (EntryBase & { type: 'modifyOrders'; item: ModifyOrderInput })
  | (EntryBase & { type: 'createOrders'; item: CreateOrderInput })
  | (EntryBase & { type: 'cancelOrders'; item: number })

export const queueKey = (priority: CommandPriority, type: BatchType): QueueKey => `${priority}:${type}`

/**
 * A queue entry for a command, its item unchanged (the client parses it once, before signing). Only
 * what types cannot promise is checked here: a command type from untyped code.
 */
export function entryOf(
  command: OrderCommand,
  resolve: (o: ItemOutcome<AnyResult>) => void,
): Entry | InputValidationError {
  switch (command.type) {
    case 'modifyOrders':
      return {
        type: 'modifyOrders',
        priority: command.priority ?? 'quote',
        lazy: command.lazy === true,
        iid: command.iid,
        item: command.order,
        key: `modifyOrders:${command.order.oid}`,
        resolve,
      }
    case 'createOrders':
      return {
        type: 'createOrders',
        priority: command.priority ?? (command.order.ro === true ? 'risk' : 'quote'),
        lazy: command.lazy === true,
        iid: command.order.iid,
        item: command.order,
        key: command.order.coid === undefined ? undefined : `createOrders:${command.order.coid}`,
        resolve,
      }
    case 'cancelOrders':
      return {
        type: 'cancelOrders',
        priority: command.priority ?? 'risk',
        lazy: false,
        iid: command.iid,
        item: command.oid,
        key: `cancelOrders:${command.oid}`,
        resolve,
      }
    default:
      return new InputValidationError(`unknown command type ${String(fieldOf(command, 'type'))}`)
  }
}
