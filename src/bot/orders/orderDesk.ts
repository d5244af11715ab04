/**
 * The order path: the batcher (weight-optimal batches, risk first, reconcile on an unknown outcome),
 * the venue's passing conditions in front of it (venueConditions.ts) and the order gateway the instrument actors submit their plans to. Each batch is sent by the perps
 * client endpoint of its type; the client's request gate (the limiter) admits it before it is signed.
 */
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { BatchOutcome } from '../../ops/metrics.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type { Settings } from '../../settings/schema.ts'
import { type Batcher, type BatchSend, type BatchSettled, createBatcher } from './batcher.ts'
import { withGoneReconcile } from './goneReconcile.ts'
import { ModifyCapability } from './modifyCapability.ts'
import type { OpenOrderBook } from './openOrderBook.ts'
import { type CancelById, createOrderGateway, type OrderGateway } from './orderGateway.ts'
import type { OrderOwnership } from './orderOwnership.ts'
import { createOwedCancels, type OwedCancels } from './owedCancels.ts'
import { withVenueConditions } from './venueConditions.ts'

export interface OrderDesk {
  readonly batcher: Batcher
  readonly gateway: OrderGateway
  /** Whether reprices go out as modifies or (the venue refuses our modify signature) cancel + create. */
  readonly modify: ModifyCapability
  /** Cancel-alls not yet through (the dead-man switch is not refreshed while any are owed). */
  readonly owed: OwedCancels
  /** The run's client order ids (one generator: the flattener's reduce-only orders carry ours too). */
  readonly orderIds?: { next(): string } | undefined
}

/** Where settled batches are counted (the bot's metrics) and kept (the journal reads `settled`). */
export interface BatchRecorder {
  recordBatch(batch: { command: string; size: number; outcome: BatchOutcome; settled?: BatchSettled }): void
}

export function createOrderDesk(o: {
  /** The batch commands in two halves (`admitted`: the gate's admission, then the send), cancels by id, cancel-all. */
  perps: { readonly admitted: BatchSend } & CancelById &
    Pick<PerpsClient, 'cancelAll'> &
    Partial<Pick<PerpsClient, 'getOpenOrders'>>
  /** With `foreignRestOn`, a cancel-all spares the orders the bot did not place. */
  openOrders: Pick<OpenOrderBook, 'reconcile'> & Partial<Pick<OpenOrderBook, 'foreignRestOn' | 'snapshot'>>
  /** Our client order ids for creates (absent: none). */
  orderIds?: { next(): string } | undefined
  /** Which orders are ours: while others rest, a cancel-all cancels ours by id (absent: all). */
  isOurs?: ((order: Order) => boolean) | undefined
  settings: Settings
  clock: Clock
  logger: Logger
  /** Counts every settled batch (the bot's metrics). */
  metrics?: BatchRecorder | undefined
  /** Told once when reprices fall back to cancel + create. */
  alerts?: AlertSink | undefined
}): OrderDesk {
  const modify = new ModifyCapability()
  const batched = createBatcher({
    clock: o.clock,
    windowMs: o.settings.batcher.windowMs,
    lazyWindowMs: o.settings.batcher.lazyWindowMs,
    maxBatchSize: o.settings.batcher.maxBatchSize,
    send: o.perps.admitted,
    reconcile: async (ids) => {
      o.logger.warn({ instruments: ids }, 'reconciling open orders after an unknown outcome')
      await o.openOrders.reconcile(ids)
    },
    onReconcileError: (e, attempt) => o.logger.error({ attempt, err: describeError(e) }, 'reconcile failed'),
    onBatchSettled: (b) => {
      o.metrics?.recordBatch({ command: b.type, size: b.size, outcome: b.outcome, settled: b })
      const verdict =
        b.outcome === 'ok'
          ? { type: b.type, outcome: 'ok' as const }
          : b.outcome === 'error'
            ? { type: b.type, outcome: 'error' as const, error: b.error }
            : undefined
      if (verdict && modify.observe(verdict, o.clock.now())) {
        const reason = modify.state().reason ?? 'signature refused'
        o.logger.error(
          { reason },
          'the venue refuses our modifyOrders signature; repricing by cancel + create',
        )
        o.alerts?.send({
          key: 'modify-fallback',
          severity: 'warning',
          title: 'Modify refused: repricing by cancel + create',
          message: `The venue refuses our modifyOrders signature while creates and cancels verify (${reason}). Orders are repriced by cancel + create until restart (see /status).`,
          at: o.clock.now(),
        })
      }
    },
  })
  // 425 holds, 503 post-only mode and `order_in_flight` cancels handled in front of the batcher.
  const conditioned = withVenueConditions(batched, { clock: o.clock, logger: o.logger, alerts: o.alerts })
  // A modify or cancel answered "order is gone": reconcile that instrument (no rejection).
  const openNow = o.openOrders.snapshot
  const batcher = withGoneReconcile(conditioned, {
    reconcile: (ids) => o.openOrders.reconcile(ids),
    logger: o.logger,
    clock: o.clock,
    stillOpen: openNow && ((oid) => openNow().orders.some((x) => x.oid === oid)),
  })
  const { foreignRestOn } = o.openOrders
  const owed = createOwedCancels(o.clock)
  const gateway = createOrderGateway({
    owed,
    record: o.metrics,
    batcher,
    perps: o.perps,
    modify,
    orderIds: o.orderIds,
    book: foreignRestOn && { foreignRestOn },
    isOurs: o.isOurs,
  })
  return { batcher, modify, gateway, owed }
}

/**
 * The bot's order desk, from the parts before it: our client order ids and which orders are ours
 * (order ownership), the settled batches counted in the metrics through the journal's recorder.
 */
export function createBotOrderDesk(o: {
  perps: Parameters<typeof createOrderDesk>[0]['perps']
  openOrders: OpenOrderBook
  ownership: Pick<OrderOwnership, 'isOurs' | 'clientOrderIds'>
  settings: Settings
  clock: Clock
  log: Logger
  metrics: BatchRecorder
  journal: { batchRecorder(metrics: BatchRecorder): BatchRecorder }
  alerts: AlertSink
}): OrderDesk {
  const orderIds = o.ownership.clientOrderIds()
  const desk = createOrderDesk({
    ...o,
    orderIds,
    isOurs: o.ownership.isOurs,
    logger: o.log,
    metrics: o.journal.batchRecorder(o.metrics),
  })
  return { ...desk, orderIds }
}
