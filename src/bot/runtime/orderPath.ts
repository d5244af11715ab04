/**
 * The order path: the batcher (weight-optimal batches through the limiter, reconcile on an unknown
 * outcome) and the order gateway the instrument actors submit their plans to. Each batch is sent by
 * the perps client endpoint of its type, and its outcome is recorded in the metrics.
 */
import type { Clock } from '../../clock.ts'
import { describeError, TransportError, UnknownOutcomeError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { BatchOutcome } from '../../ops/metrics.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Settings } from '../../settings/schema.ts'
import { type Batcher, type BatchSend, createBatcher } from '../batcher.ts'
import type { WeightLimiter } from '../limiter/weightLimiter.ts'
import type { OpenOrderBook } from './openOrderBook.ts'
import { createOrderGateway, type OrderGateway } from './orderGateway.ts'

export interface OrderPath {
  readonly batcher: Batcher
  readonly gateway: OrderGateway
}

/** Sends one batch with the client endpoint of its type. */
export function perpsBatchSend(perps: PerpsClient): BatchSend {
  return (async (type: string, items: readonly unknown[], { signal }: { signal: AbortSignal }) => {
    switch (type) {
      case 'modifyOrders':
        return perps.modifyOrders(items as never, { signal })
      case 'createOrders':
        return perps.createOrders(items as never, { signal })
      default:
        return perps.cancelOrders(items as number[], { signal })
    }
  }) as BatchSend
}

/** Whether a failed batch may have been applied by the venue. */
function outcomeOf(e: unknown): BatchOutcome {
  return e instanceof UnknownOutcomeError || (e instanceof TransportError && e.maybeDelivered)
    ? 'unknown'
    : 'error'
}

export function createOrderPath(o: {
  perps: PerpsClient
  limiter: Pick<WeightLimiter, 'schedule'>
  openOrders: Pick<OpenOrderBook, 'reconcile'>
  settings: Settings
  clock: Clock
  logger: Logger
  recordBatch?: ((batch: { command: string; size: number; outcome: BatchOutcome }) => void) | undefined
  /** Default: the perps client's endpoints (benchmarks time-stamp the hand-off around them). */
  send?: BatchSend | undefined
}): OrderPath {
  const send = o.send ?? perpsBatchSend(o.perps)
  const recorded: BatchSend = (async (type, items, options) => {
    try {
      const results = await send(type, items, options)
      o.recordBatch?.({ command: type, size: items.length, outcome: 'ok' })
      return results
    } catch (e) {
      o.recordBatch?.({ command: type, size: items.length, outcome: outcomeOf(e) })
      throw e
    }
  }) as BatchSend
  const batcher = createBatcher({
    limiter: o.limiter,
    clock: o.clock,
    windowMs: o.settings.batcher.windowMs,
    maxBatchSize: o.settings.batcher.maxBatchSize,
    send: recorded,
    reconcile: async (ids) => {
      o.logger.warn({ instruments: ids }, 'reconciling open orders after an unknown outcome')
      await o.openOrders.reconcile(ids)
    },
    onReconcileError: (e, attempt) => o.logger.error({ attempt, err: describeError(e) }, 'reconcile failed'),
  })
  return { batcher, gateway: createOrderGateway({ batcher, limiter: o.limiter, perps: o.perps }) }
}
