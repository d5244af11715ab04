/**
 * The order-command batcher: every instrument actor submits single order commands here; the batcher
 * collects them for a short window per (priority, type), splits each queue into weight-optimal batches
 * (batching/batchSizes.ts), sends each batch as ONE signed request through the typed `send` (the
 * perps client, whose request gate charges it once), and routes each per-order result back to its
 * submitter. Items are the client's own parameters, passed on unchanged; the client parses them.
 *
 * - Types are never mixed in a request; risk queues (cancels, reduce-only) flush without waiting for a
 *   timer (`riskWindowMs` 0 = same tick) and are handed to the gate first, at risk priority.
 * - Nothing is signed or sent while a reconciliation holds: checked when the gate admits a batch
 *   (`onAdmitted`). A batch the gate can never admit (`JobTooHeavyError`) is split into ones that fit.
 * - A queue that reaches `maxBatchSize` flushes at once; otherwise the window timer (injected clock)
 *   flushes it, so a lone command waits at most `windowMs` (a lazy one, an age refresh, at most
 *   `lazyWindowMs`, and no longer than the next urgent command of its queue).
 * - A newer command for the same order replaces a queued one (`superseded`); a cancel also supersedes
 *   a queued modify of that order.
 * - Unknown outcome (UnknownOutcomeError, a possibly delivered transport failure, a 5xx, a malformed
 *   answer, or `sendTimeoutMs`) never leads to a resend: sending stops, `reconcile(instrumentIds)` runs,
 *   the batch's items resolve `unknown`, and only then does anything else go out.
 */
import { type Clock, systemClock, type TimerId } from '../../clock.ts'
import { BotError, InputValidationError, UnknownOutcomeError } from '../../errors.ts'
import type { CancelResult, CreateOrderAck, ModifyResult } from '../../perps/schemas/orders.ts'
import { PERPS_WEIGHTS } from '../../perps/weights.ts'
import { StoppedError } from '../limiter/limiterErrors.ts'
import { mustGet } from '../shared/itemAt.ts'
import {
  type AnyResult,
  type Entry,
  entryOf,
  perQueue,
  QUEUE_ORDER,
  type QueueKey,
  queueKey,
  queueParts,
} from './batching/batchEntries.ts'
import { isUnknownOutcome, matchResults, splitCap } from './batching/batchResults.ts'
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
  SendOptions,
} from './batching/batchTypes.ts'
import { createReconcileHold } from './batching/reconcileHold.ts'
import { sendBatch } from './batching/sendBatch.ts'
import { settledBatch } from './batching/settledBatch.ts'

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
  const riskWindowMs = options.riskWindowMs ?? 0
  const lazyWindowMs = Math.max(windowMs, options.lazyWindowMs ?? 1_000)
  const maxBatchSize = options.maxBatchSize ?? 99
  const sendTimeoutMs = options.sendTimeoutMs ?? 10_000
  const reconcileAttempts = Math.max(1, options.reconcileAttempts ?? 3)
  const reconcileRetryMs = options.reconcileRetryMs ?? 250
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
    throw new InputValidationError(`maxBatchSize must be a positive integer, got ${maxBatchSize}`)
  }

  const queues = new Map<QueueKey, Entry[]>(QUEUE_ORDER.map((k) => [k, []]))
  const byKey = new Map<string, Entry>()
  const timers = new Map<QueueKey, TimerId>()
  /** When each queue's timer fires (clock time). */
  const dueAt = new Map<QueueKey, number>()
  const microtasks = new Set<QueueKey>()
  const inFlight = new Set<Promise<void>>()
  /** Quote batches handed to the gate and not yet admitted, per queue (see flushQueue). */
  const awaitingAdmission = new Map<QueueKey, number>()
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
  }

  const queueOf = (k: QueueKey): Entry[] => mustGet(queues, k)
  const holding = createReconcileHold({
    clock,
    reconcile: options.reconcile,
    attempts: reconcileAttempts,
    retryMs: reconcileRetryMs,
    onError: options.onReconcileError,
    stats,
    released: () => flushAll(),
  })

  function supersede(entry: Entry): void {
    const q = queueOf(queueKey(entry.priority, entry.type))
    const i = q.indexOf(entry)
    if (i >= 0) q.splice(i, 1)
    if (entry.key !== undefined && byKey.get(entry.key) === entry) byKey.delete(entry.key)
    stats.superseded += 1
    entry.resolve({ status: 'superseded' })
  }

  function enqueue(entry: Entry): void {
    const k = queueKey(entry.priority, entry.type)
    const q = queueOf(k)
    const prev = entry.key === undefined ? undefined : byKey.get(entry.key)
    if (prev !== undefined && queueKey(prev.priority, prev.type) === k) {
      // Same queue: the newer command takes the older one's place in line.
      q[q.indexOf(prev)] = entry
      stats.superseded += 1
      prev.resolve({ status: 'superseded' })
    } else {
      if (prev !== undefined) supersede(prev)
      q.push(entry)
    }
    if (entry.key !== undefined) byKey.set(entry.key, entry)
    if (entry.type === 'cancelOrders') {
      const modify = byKey.get(`modifyOrders:${entry.item}`)
      if (modify !== undefined) supersede(modify)
    }
    if (q.length >= maxBatchSize) {
      flushQueue(k)
      return
    }
    if (microtasks.has(k)) return
    const wait = entry.priority === 'risk' ? riskWindowMs : entry.lazy ? lazyWindowMs : windowMs
    const timer = timers.get(k)
    if (timer !== undefined) {
      // A queue flushes at its most urgent entry's time: nothing urgent waits out a lazy window.
      if ((dueAt.get(k) ?? 0) <= clock.now() + wait) return
      clock.clearTimeout(timer)
      timers.delete(k)
    }
    if (wait <= 0) {
      microtasks.add(k)
      queueMicrotask(() => {
        microtasks.delete(k)
        flushQueue(k)
      })
    } else {
      dueAt.set(k, clock.now() + wait)
      timers.set(
        k,
        clock.setTimeout(() => {
          timers.delete(k)
          flushQueue(k)
        }, wait),
      )
    }
  }

  function flushQueue(k: QueueKey, force = false): void {
    const timer = timers.get(k)
    if (timer !== undefined) {
      clock.clearTimeout(timer)
      timers.delete(k)
    }
    // While reconciling nothing is handed on; the queue flushes when the hold lifts.
    if (holding.current !== undefined) return
    const q = queueOf(k)
    if (q.length === 0) return
    // A quote batch of this queue still waits for the gate: keep collecting behind it (one bigger
    // batch later, and a newer reprice still replaces a queued one) instead of lining up small
    // batches in the limiter. The queue flushes when that batch is admitted or gives up.
    if (!force && !k.startsWith('risk') && (awaitingAdmission.get(k) ?? 0) > 0 && q.length < maxBatchSize)
      return
    const entries = q.splice(0)
    for (const e of entries) if (e.key !== undefined && byKey.get(e.key) === e) byKey.delete(e.key)
    const { priority, type } = queueParts(k)
    let at = 0
    for (const size of splitBatchSizes(entries.length, maxBatchSize)) {
      dispatch(type, priority, entries.slice(at, at + size))
      at += size
    }
  }

  function flushAll(force = false): void {
    for (const k of QUEUE_ORDER) flushQueue(k, force)
  }

  function dispatch(type: BatchType, priority: CommandPriority, batch: Entry[]): void {
    const k = queueKey(priority, type)
    awaitingAdmission.set(k, (awaitingAdmission.get(k) ?? 0) + 1)
    let waiting = true
    const admitted = (): void => {
      if (!waiting) return
      waiting = false
      awaitingAdmission.set(k, (awaitingAdmission.get(k) ?? 1) - 1)
      // What collected behind it goes to the gate now (next microtask: after this batch's own step).
      if (queueOf(k).length > 0) queueMicrotask(() => flushQueue(k))
    }
    const run = runBatch(type, priority, batch, admitted).finally(() => {
      admitted()
      inFlight.delete(run)
    })
    inFlight.add(run)
  }

  async function runBatch(
    type: BatchType,
    priority: CommandPriority,
    batch: Entry[],
    admitted: () => void,
  ): Promise<void> {
    let sent = false
    let sentAt = 0
    let timer: TimerId | undefined
    const controller = new AbortController()
    let timedOut: (e: Error) => void = () => undefined
    const timeout = new Promise<never>((_, reject) => {
      timedOut = reject
    })
    const sendOptions: SendOptions = {
      signal: controller.signal,
      priority,
      onAdmitted: async () => {
        admitted()
        // Nothing is sent while a reconciliation is pending (a new one may start while we wait).
        while (holding.current !== undefined) await holding.current
        sent = true
        sentAt = clock.now()
        stats.batchesSent += 1
        stats.itemsSent += batch.length
        stats.batchesBySize[batch.length] = (stats.batchesBySize[batch.length] ?? 0) + 1
        timer = clock.setTimeout(() => {
          const error = new UnknownOutcomeError(PERPS_WEIGHTS[type].path, {
            details: [`no answer within ${sendTimeoutMs} ms`],
          })
          controller.abort(error)
          timedOut(error)
        }, sendTimeoutMs)
      },
    }
    try {
      const answer = sendBatch(options.send, type, batch, sendOptions).catch((e: unknown) => {
        // Hold sending as soon as the failure is known, before anything else can be admitted.
        if (sent && isUnknownOutcome(e)) holding.begin(batch)
        throw e
      })
      timeout.catch(() => {
        if (sent) holding.begin(batch)
      })
      const results = matchResults(type, batch.length, await Promise.race([answer, timeout]))
      settled(type, batch, 'ok', sentAt, results)
      for (const [i, r] of results.entries()) batch[i]?.resolve(r)
    } catch (e) {
      if (sent && isUnknownOutcome(e)) {
        settled(type, batch, 'unknown', sentAt)
        stats.unknownBatches += 1
        stats.unknownItems += batch.length
        holding.begin(batch)
        await holding.current
        return
      }
      if (sent) settled(type, batch, 'error', sentAt, undefined, e ?? new BotError('failed'))
      const cap = sent ? 0 : splitCap(type, e, batch.length)
      if (cap > 0) {
        // The gate can never admit this batch (budgets smaller than maxBatchSize): nothing was
        // sent, so re-plan it into batches that fit.
        stats.splitBatches += 1
        let at = 0
        for (const size of splitBatchSizes(batch.length, cap)) {
          dispatch(type, priority, batch.slice(at, at + size))
          at += size
        }
        return
      }
      stats.failedBatches += 1
      const error = e instanceof Error ? e : new BotError(String(e))
      for (const entry of batch) entry.resolve({ status: 'failed', error })
    } finally {
      clock.clearTimeout(timer)
    }
  }

  function settled(
    type: BatchType,
    batch: readonly Entry[],
    outcome: BatchSettled['outcome'],
    sentAt: number,
    results?: readonly AnyResult[],
    error?: unknown,
  ): void {
    if (options.onBatchSettled === undefined) return
    try {
      options.onBatchSettled(settledBatch(type, batch, outcome, clock.now() - sentAt, results, error))
    } catch {
      // A metrics bug must not wedge the batcher.
    }
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
      const queued = perQueue((k) => queueOf(k).length)
      return {
        queueLength: Object.values(queued).reduce((a, b) => a + b, 0),
        queued,
        inFlightBatches: inFlight.size,
        ...stats,
        batchesBySize: { ...stats.batchesBySize },
        reconciling: holding.current !== undefined,
      }
    },
    async stop() {
      stopped = true
      flushAll(true)
      while (inFlight.size > 0 || holding.current !== undefined) {
        await Promise.allSettled([...inFlight, holding.current])
      }
      for (const t of timers.values()) clock.clearTimeout(t)
      timers.clear()
    },
  }
}
