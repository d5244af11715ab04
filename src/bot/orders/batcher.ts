/**
 * The order-command batcher: every instrument actor submits single order commands here; the batcher
 * collects them for a short window per (priority, type), splits each queue into weight-optimal batches
 * (batching/batchSizes.ts), sends each batch as ONE signed request through the typed `send` (the
 * perps client, whose request gate charges it once), and routes each per-order result back to its
 * submitter. Items are the client's own parameters, passed on unchanged; the client parses them.
 *
 * - Types are never mixed in a request; risk queues (cancels, reduce-only) flush without waiting for a
 *   timer (`riskWindowMs` 0 = same tick) and are handed to the gate first, at risk priority.
 * - Nothing is signed or sent while a reconciliation holds: the admitted batch (the client's
 *   `AdmittedCommand`) is held until it lifts, then sent. A batch the gate can never admit (`JobTooHeavyError`) is split into ones that fit.
 * - A queue that reaches `maxBatchSize` flushes at once; otherwise the window timer (injected clock)
 *   flushes it, so a lone command waits at most `windowMs` (a lazy one, an age refresh, at most
 *   `lazyWindowMs`, and no longer than the next urgent command of its queue).
 * - A newer command for the same order replaces a queued one (`superseded`); a cancel also supersedes
 *   a queued modify of that order.
 * - Unknown outcome (UnknownOutcomeError, a possibly delivered transport failure, a 5xx, a malformed
 *   answer, or `sendTimeoutMs`) never leads to a resend: sending stops, `reconcile(instrumentIds)` runs,
 *   the batch's items resolve `unknown`, and only then does anything else go out.
 *
 * Parts (batching/): the queues and their coalescing (`batchQueues.ts`), the window timers and the
 * admission count (`flushTimers.ts`), the send with its timeout and settlement (`batchRun.ts`), the
 * reconcile hold (`reconcileHold.ts`), and the weight-optimal sizes (`batchSizes.ts`). This file
 * connects them: submit → queue → flush → split → run.
 */
import { type Clock, systemClock } from '../../clock.ts'
import { InputValidationError } from '../../errors.ts'
import type { CancelResult, CreateOrderAck, ModifyResult } from '../../perps/schemas/orders.ts'
import { StoppedError } from '../../perps/throttle/limiterErrors.ts'
import {
  type AnyResult,
  type Entry,
  entryOf,
  QUEUE_ORDER,
  type QueueKey,
  queueKey,
  queueParts,
} from './batching/batchEntries.ts'
import { createBatchQueues } from './batching/batchQueues.ts'
import { createBatchRunner } from './batching/batchRun.ts'
import { splitBatchSizes } from './batching/batchSizes.ts'
import type {
  BatchSend,
  BatchSettled,
  BatchType,
  CancelCommand,
  CommandPriority,
  CreateCommand,
  ItemOutcome,
  ModifyCommand,
  OrderCommand,
  Reconcile,
} from './batching/batchTypes.ts'
import { createFlushTimers } from './batching/flushTimers.ts'
import { createReconcileHold } from './batching/reconcileHold.ts'

export type * from './batching/batchTypes.ts'

export interface BatcherOptions {
  /** One typed send per batch type; the perps client (with the bot's request gate) satisfies it. */
  send: BatchSend
  reconcile: Reconcile
  clock?: Clock | undefined
  /** How long quote commands are collected before a flush. Default 10 ms. */
  windowMs?: number | undefined
  /** The same for risk commands; 0 (default) flushes at the end of the current tick, no timer. */
  riskWindowMs?: number | undefined
  /**
   * How long lazy commands (orders refreshed for their age) may wait to share a batch; an urgent
   * command in the same queue flushes them with it. Default 1 s: refreshes of many instruments, each
   * on its own wake, then leave as a few large requests instead of one small request each.
   */
  lazyWindowMs?: number | undefined
  /**
   * Most commands in one request. Default 99: weight 5 for 99 actions. The venue's cap is not
   * published; values of the form 20k + 19 (19, 39, …, 99) waste no weight.
   */
  maxBatchSize?: number | undefined
  /** A batch without an answer after this long (from send) has an unknown outcome. Default 10 s. */
  sendTimeoutMs?: number | undefined
  /** Reconcile attempts before giving up and resuming anyway (reported via `onReconcileError`). Default 3. */
  reconcileAttempts?: number | undefined
  /** Pause before the first reconcile retry; doubles per retry. Default 250 ms. */
  reconcileRetryMs?: number | undefined
  onReconcileError?: ((error: unknown, attempt: number) => void) | undefined
  /** Each batch that reached the venue (or may have), with how it ended (metrics). */
  onBatchSettled?: ((batch: BatchSettled) => void) | undefined
}

export interface BatcherState {
  /** Commands waiting to be flushed. */
  queueLength: number
  queued: Record<QueueKey, number>
  /** Batches handed to the gate and not yet settled. */
  inFlightBatches: number
  itemsSubmitted: number
  batchesSent: number
  itemsSent: number
  /** Batches sent, by size. */
  batchesBySize: Record<number, number>
  superseded: number
  unknownBatches: number
  unknownItems: number
  failedBatches: number
  /** Batches the limiter could never admit, re-planned into smaller ones. */
  splitBatches: number
  reconciles: number
  reconcileFailures: number
  /** True while sending is held for a reconciliation. */
  reconciling: boolean
}

export interface Batcher {
  submit(command: ModifyCommand): Promise<ItemOutcome<ModifyResult>>
  submit(command: CreateCommand): Promise<ItemOutcome<CreateOrderAck>>
  submit(command: CancelCommand): Promise<ItemOutcome<CancelResult>>
  /** Flushes every queue now, ignoring the window (shutdown, tests). */
  flush(): void
  state(): BatcherState
  /** Flushes what is queued and waits for every batch and reconciliation; later submits fail. */
  stop(): Promise<void>
}

/** Creates a batcher. */
export function createBatcher(options: BatcherOptions): Batcher {
  const clock = options.clock ?? systemClock
  const windowMs = options.windowMs ?? 10
  const maxBatchSize = options.maxBatchSize ?? 99
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
    throw new InputValidationError(`maxBatchSize must be a positive integer, got ${maxBatchSize}`)
  }
  const inFlight = new Set<Promise<void>>()
  let stopped = false
  const batchesBySize: Record<number, number> = {}
  const stats = {
    itemsSubmitted: 0,
    batchesSent: 0,
    itemsSent: 0,
    batchesBySize,
    superseded: 0,
    unknownBatches: 0,
    unknownItems: 0,
    failedBatches: 0,
    splitBatches: 0,
    reconciles: 0,
    reconcileFailures: 0,
  } satisfies Omit<BatcherState, 'queueLength' | 'queued' | 'inFlightBatches' | 'reconciling'>

  const queues = createBatchQueues(stats)
  const timers = createFlushTimers({
    clock,
    windowMs,
    riskWindowMs: options.riskWindowMs ?? 0,
    lazyWindowMs: Math.max(windowMs, options.lazyWindowMs ?? 1_000),
    flush: (k) => flushQueue(k),
  })
  const hold = createReconcileHold({
    clock,
    reconcile: options.reconcile,
    attempts: Math.max(1, options.reconcileAttempts ?? 3),
    retryMs: options.reconcileRetryMs ?? 250,
    onError: options.onReconcileError,
    stats,
    released: () => flushAll(),
  })
  const runner = createBatchRunner({
    clock,
    send: options.send,
    sendTimeoutMs: options.sendTimeoutMs ?? 10_000,
    hold,
    stats,
    onSettled: options.onBatchSettled,
    split: (type, priority, batch, cap) => dispatchSized(type, priority, batch, cap),
  })

  function enqueue(entry: Entry): void {
    const k = queues.add(entry)
    if (queues.length(k) >= maxBatchSize) flushQueue(k)
    else timers.arm(k, entry)
  }

  function flushQueue(k: QueueKey, force = false): void {
    timers.disarm(k)
    // While reconciling nothing is handed on; the queue flushes when the hold lifts.
    if (hold.current !== undefined) return
    const length = queues.length(k)
    if (length === 0) return
    // A quote batch of this queue still waits for the gate: keep collecting behind it (one bigger
    // batch later, and a newer reprice still replaces a queued one) instead of lining up small
    // batches in the limiter. The queue flushes when that batch is admitted or gives up.
    if (!force && !k.startsWith('risk') && timers.awaiting(k) > 0 && length < maxBatchSize) return
    const { priority, type } = queueParts(k)
    dispatchSized(type, priority, queues.take(k), maxBatchSize)
  }

  function flushAll(force = false): void {
    for (const k of QUEUE_ORDER) flushQueue(k, force)
  }

  /** Splits entries into weight-optimal batches of at most `cap` and hands each to the runner. */
  function dispatchSized(type: BatchType, priority: CommandPriority, entries: Entry[], cap: number): void {
    let at = 0
    for (const size of splitBatchSizes(entries.length, cap)) {
      dispatch(type, priority, entries.slice(at, at + size))
      at += size
    }
  }

  function dispatch(type: BatchType, priority: CommandPriority, batch: Entry[]): void {
    const k = queueKey(priority, type)
    const admit = timers.dispatched(k)
    const admitted = (): void => {
      // What collected behind it goes to the gate now (next microtask: after this batch's own step).
      if (admit() && queues.length(k) > 0) queueMicrotask(() => flushQueue(k))
    }
    const run = runner.run(type, priority, batch, admitted).finally(() => {
      admitted()
      inFlight.delete(run)
    })
    inFlight.add(run)
  }

  function submit(command: ModifyCommand): Promise<ItemOutcome<ModifyResult>>
  function submit(command: CreateCommand): Promise<ItemOutcome<CreateOrderAck>>
  function submit(command: CancelCommand): Promise<ItemOutcome<CancelResult>>
  function submit(command: OrderCommand): Promise<ItemOutcome<AnyResult>> {
    if (stopped) return Promise.resolve({ status: 'failed', error: new StoppedError('batcher') })
    stats.itemsSubmitted += 1
    return new Promise((resolve) => {
      const entry = entryOf(command, resolve)
      if (entry instanceof InputValidationError) resolve({ status: 'failed', error: entry })
      else enqueue(entry)
    })
  }

  return {
    submit,
    flush: () => flushAll(true),
    state(): BatcherState {
      const queued = queues.counts()
      return {
        queueLength: Object.values(queued).reduce((a, b) => a + b, 0),
        queued,
        inFlightBatches: inFlight.size,
        ...stats,
        batchesBySize: { ...stats.batchesBySize },
        reconciling: hold.current !== undefined,
      }
    },
    async stop() {
      stopped = true
      flushAll(true)
      while (inFlight.size > 0 || hold.current !== undefined) {
        await Promise.allSettled([...inFlight, hold.current])
      }
      timers.clear()
    },
  }
}
