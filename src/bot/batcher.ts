/**
 * The order-command batcher: every instrument actor submits single order commands here; the batcher
 * collects them for a short window per (priority, type), splits each queue into weight-optimal batches
 * (batching/planBatches.ts), sends each batch as ONE limiter job and ONE signed request, and routes each
 * per-order result back to its submitter.
 *
 * - Types are never mixed in a request; risk queues (cancels, reduce-only) flush without waiting for a
 *   timer (`riskWindowMs` 0 = same tick) and are handed to the limiter first, at risk priority.
 * - A queue that reaches `maxBatchSize` flushes at once; otherwise the window timer (injected clock)
 *   flushes it, so a lone command waits at most `windowMs`.
 * - A newer command for the same order replaces a queued one (`superseded`); a cancel also supersedes
 *   a queued modify of that order.
 * - Unknown outcome (UnknownOutcomeError, a possibly delivered transport failure, a 5xx, a malformed
 *   answer, or `sendTimeoutMs`) never leads to a resend: sending stops, `reconcile(instrumentIds)` runs,
 *   the batch's items resolve `unknown`, and only then does anything else go out.
 */
import { type Clock, sleep, systemClock, type TimerId } from '../clock.ts'
import {
  BotError,
  InputValidationError,
  RateLimitError,
  RequestRejectedError,
  TransportError,
  UnexpectedResponseError,
  UnknownOutcomeError,
} from '../errors.ts'
import { InstrumentId, OrderId } from '../perps/schemas/common.ts'
import {
  type BatchRejected,
  type CancelResult,
  type CreateOrderAck,
  CreateOrderInput,
  ModifyOrderInput,
  type ModifyResult,
} from '../perps/schemas/orders.ts'
import { PERPS_WEIGHTS } from '../perps/weights.ts'
import type {
  BatchSend,
  BatchType,
  CancelCommand,
  CommandPriority,
  CreateCommand,
  ItemOutcome,
  ModifyCommand,
  OrderCommand,
  Reconcile,
} from './batching/batchTypes.ts'
import { planBatchSizes } from './batching/planBatches.ts'
import { JobTooHeavyError, StoppedError } from './limiter/limiterErrors.ts'
import type { WeightLimiter } from './limiter/weightLimiter.ts'

export type * from './batching/batchTypes.ts'

export interface BatcherOptions {
  limiter: Pick<WeightLimiter, 'schedule'>
  send: BatchSend
  reconcile: Reconcile
  clock?: Clock | undefined
  /** How long quote commands are collected before a flush. Default 10 ms. */
  windowMs?: number | undefined
  /** The same for risk commands; 0 (default) flushes at the end of the current tick, no timer. */
  riskWindowMs?: number | undefined
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
}

type QueueKey = `${CommandPriority}:${BatchType}`
/** Flush order: risk first; cancels before new exposure. */
const QUEUE_ORDER: readonly QueueKey[] = [
  'risk:cancelOrders',
  'risk:createOrders',
  'risk:modifyOrders',
  'quote:cancelOrders',
  'quote:modifyOrders',
  'quote:createOrders',
]

export interface BatcherState {
  /** Commands waiting to be flushed. */
  queueLength: number
  queued: Record<QueueKey, number>
  /** Batches handed to the limiter and not yet settled. */
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

type AnyResult = ModifyResult | CreateOrderAck | CancelResult
type AnyItem = ModifyOrderInput | CreateOrderInput | number

interface Entry {
  type: BatchType
  priority: CommandPriority
  iid: number
  item: AnyItem
  /** Coalescing key: one queued command per order. */
  key: string | undefined
  resolve: (outcome: ItemOutcome<AnyResult>) => void
}

const queueKey = (priority: CommandPriority, type: BatchType): QueueKey => `${priority}:${type}`

/** Creates a batcher. */
export function createBatcher(options: BatcherOptions): Batcher {
  const clock = options.clock ?? systemClock
  const windowMs = options.windowMs ?? 10
  const riskWindowMs = options.riskWindowMs ?? 0
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
  const microtasks = new Set<QueueKey>()
  const inFlight = new Set<Promise<void>>()
  /** Items of unknown-outcome batches awaiting reconciliation. */
  const pendingUnknown: Entry[] = []
  /** Set while sending is held for reconciliation. */
  let hold: Promise<void> | undefined
  let stopped = false
  const stats = {
    itemsSubmitted: 0,
    batchesSent: 0,
    itemsSent: 0,
    batchesBySize: {} as Record<number, number>,
    superseded: 0,
    unknownBatches: 0,
    unknownItems: 0,
    failedBatches: 0,
    splitBatches: 0,
    reconciles: 0,
    reconcileFailures: 0,
  }

  const queueOf = (k: QueueKey): Entry[] => queues.get(k) as Entry[]

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
      const modify = byKey.get(`modifyOrders:${entry.item as number}`)
      if (modify !== undefined) supersede(modify)
    }
    if (q.length >= maxBatchSize) {
      flushQueue(k)
      return
    }
    if (timers.has(k) || microtasks.has(k)) return
    const wait = entry.priority === 'risk' ? riskWindowMs : windowMs
    if (wait <= 0) {
      microtasks.add(k)
      queueMicrotask(() => {
        microtasks.delete(k)
        flushQueue(k)
      })
    } else {
      timers.set(
        k,
        clock.setTimeout(() => {
          timers.delete(k)
          flushQueue(k)
        }, wait),
      )
    }
  }

  function flushQueue(k: QueueKey): void {
    const timer = timers.get(k)
    if (timer !== undefined) {
      clock.clearTimeout(timer)
      timers.delete(k)
    }
    // While reconciling nothing is handed on; the queue flushes when the hold lifts.
    if (hold !== undefined) return
    const q = queueOf(k)
    if (q.length === 0) return
    const entries = q.splice(0)
    for (const e of entries) if (e.key !== undefined && byKey.get(e.key) === e) byKey.delete(e.key)
    const [priority, type] = k.split(':') as [CommandPriority, BatchType]
    let at = 0
    for (const size of planBatchSizes(entries.length, maxBatchSize)) {
      dispatch(type, priority, entries.slice(at, at + size))
      at += size
    }
  }

  function flushAll(): void {
    for (const k of QUEUE_ORDER) flushQueue(k)
  }

  function dispatch(type: BatchType, priority: CommandPriority, batch: Entry[]): void {
    const run = runBatch(type, priority, batch).finally(() => inFlight.delete(run))
    inFlight.add(run)
  }

  async function runBatch(type: BatchType, priority: CommandPriority, batch: Entry[]): Promise<void> {
    let sent = false
    let unknown = false
    try {
      const results = await options.limiter.schedule(
        { endpoint: type, n: batch.length, priority },
        async () => {
          // Nothing is sent while a reconciliation is pending (a new one may start while we wait).
          while (hold !== undefined) await hold
          sent = true
          stats.batchesSent += 1
          stats.itemsSent += batch.length
          stats.batchesBySize[batch.length] = (stats.batchesBySize[batch.length] ?? 0) + 1
          try {
            const answer = await sendWithTimeout(type, batch)
            return matchResults(type, batch, answer)
          } catch (e) {
            if (isUnknownOutcome(e)) {
              // Hold sending now, not after the limiter hands the error back.
              unknown = true
              beginReconcile(batch)
            }
            throw e
          }
        },
      )
      for (const [i, r] of results.entries()) batch[i]?.resolve(r)
    } catch (e) {
      if (sent && unknown) {
        stats.unknownBatches += 1
        stats.unknownItems += batch.length
        await hold
        return
      }
      const cap = sent ? 0 : splitCap(e, batch.length)
      if (cap > 0) {
        // The limiter can never admit this batch (budgets smaller than maxBatchSize): nothing was
        // sent, so re-plan it into batches that fit.
        stats.splitBatches += 1
        let at = 0
        for (const size of planBatchSizes(batch.length, cap)) {
          dispatch(type, priority, batch.slice(at, at + size))
          at += size
        }
        return
      }
      stats.failedBatches += 1
      const error = e instanceof Error ? e : new BotError(String(e))
      for (const entry of batch) entry.resolve({ status: 'failed', error })
    }
  }

  async function sendWithTimeout(type: BatchType, batch: Entry[]): Promise<readonly AnyResult[]> {
    const controller = new AbortController()
    const path = PERPS_WEIGHTS[type].path
    let timer: TimerId | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = clock.setTimeout(() => {
        const error = new UnknownOutcomeError(path, { details: [`no answer within ${sendTimeoutMs} ms`] })
        controller.abort(error)
        reject(error)
      }, sendTimeoutMs)
    })
    const send = options.send as (
      t: BatchType,
      items: readonly AnyItem[],
      o: { signal: AbortSignal },
    ) => Promise<readonly AnyResult[]>
    try {
      return await Promise.race([
        send(
          type,
          batch.map((e) => e.item),
          { signal: controller.signal },
        ),
        timeout,
      ])
    } finally {
      clock.clearTimeout(timer)
    }
  }

  function beginReconcile(batch: Entry[]): void {
    pendingUnknown.push(...batch)
    if (hold !== undefined) return
    hold = reconcileLoop().finally(() => {
      hold = undefined
      flushAll()
    })
  }

  async function reconcileLoop(): Promise<void> {
    // Batches that turn unknown during a reconciliation need another read after it.
    while (pendingUnknown.length > 0) {
      const entries = pendingUnknown.splice(0)
      const iids = [...new Set(entries.map((e) => e.iid))].sort((a, b) => a - b)
      await reconcileWithRetry(iids)
      for (const e of entries) e.resolve({ status: 'unknown' })
    }
  }

  async function reconcileWithRetry(iids: readonly number[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      stats.reconciles += 1
      try {
        await options.reconcile(iids)
        return
      } catch (e) {
        stats.reconcileFailures += 1
        try {
          options.onReconcileError?.(e, attempt)
        } catch {
          // A reporting bug must not wedge the batcher.
        }
        // Giving up resumes sending: actors still get `unknown` and re-diff from what they know.
        if (attempt >= reconcileAttempts) return
        await sleep(clock, reconcileRetryMs * 2 ** (attempt - 1))
      }
    }
  }

  function submit(command: OrderCommand): Promise<ItemOutcome<AnyResult>> {
    if (stopped) return Promise.resolve({ status: 'failed', error: new StoppedError('batcher') })
    const parsed = parseCommand(command)
    if (parsed instanceof InputValidationError) return Promise.resolve({ status: 'failed', error: parsed })
    stats.itemsSubmitted += 1
    return new Promise((resolve) => enqueue({ ...parsed, resolve }))
  }

  return {
    submit: submit as Batcher['submit'],
    flush: flushAll,
    state(): BatcherState {
      const queued = Object.fromEntries(QUEUE_ORDER.map((k) => [k, queueOf(k).length])) as Record<
        QueueKey,
        number
      >
      return {
        queueLength: Object.values(queued).reduce((a, b) => a + b, 0),
        queued,
        inFlightBatches: inFlight.size,
        ...stats,
        batchesBySize: { ...stats.batchesBySize },
        reconciling: hold !== undefined,
      }
    },
    async stop() {
      stopped = true
      flushAll()
      while (inFlight.size > 0 || hold !== undefined) {
        await Promise.allSettled([...inFlight, hold])
      }
      for (const t of timers.values()) clock.clearTimeout(t)
      timers.clear()
    },
  }
}

/** Validates a command into a queue entry (without its resolver), or says why not. */
function parseCommand(command: OrderCommand): Omit<Entry, 'resolve'> | InputValidationError {
  const issues = (e: { issues: readonly { path: PropertyKey[]; message: string }[] }): string[] =>
    e.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
  switch (command.type) {
    case 'modifyOrders': {
      const order = ModifyOrderInput.safeParse(command.order)
      const iid = InstrumentId.safeParse(command.iid)
      if (!order.success || !iid.success) {
        return new InputValidationError('invalid modify command', {
          details: [...(order.success ? [] : issues(order.error)), ...(iid.success ? [] : ['iid: invalid'])],
        })
      }
      return {
        type: 'modifyOrders',
        priority: command.priority ?? 'quote',
        iid: iid.data,
        item: order.data,
        key: `modifyOrders:${order.data.oid}`,
      }
    }
    case 'createOrders': {
      const order = CreateOrderInput.safeParse(command.order)
      if (!order.success)
        return new InputValidationError('invalid create command', { details: issues(order.error) })
      return {
        type: 'createOrders',
        priority: command.priority ?? (order.data.ro === true ? 'risk' : 'quote'),
        iid: order.data.iid,
        item: order.data,
        key: order.data.c === undefined ? undefined : `createOrders:${order.data.c}`,
      }
    }
    case 'cancelOrders': {
      const oid = OrderId.safeParse(command.oid)
      const iid = InstrumentId.safeParse(command.iid)
      if (!oid.success || !iid.success) {
        return new InputValidationError('invalid cancel command', {
          details: [...(oid.success ? [] : ['oid: invalid']), ...(iid.success ? [] : ['iid: invalid'])],
        })
      }
      return {
        type: 'cancelOrders',
        priority: command.priority ?? 'risk',
        iid: iid.data,
        item: oid.data,
        key: `cancelOrders:${oid.data}`,
      }
    }
    default:
      return new InputValidationError(`unknown command type ${String((command as { type: unknown }).type)}`)
  }
}

/**
 * One result per item in order; a single `err` for a multi-item batch is a request-level rejection
 * that applies to every item. Anything else cannot be matched to orders, so the outcome is unknown.
 */
function matchResults(
  type: BatchType,
  batch: readonly Entry[],
  answer: readonly AnyResult[],
): readonly AnyResult[] {
  if (answer.length === batch.length) return answer
  const only = answer[0]
  if (answer.length === 1 && only?.status === 'err') return batch.map(() => only as BatchRejected)
  throw new UnexpectedResponseError(PERPS_WEIGHTS[type].path, [
    `${answer.length} results for a batch of ${batch.length}`,
  ])
}

/** The largest batch that would fit after a `JobTooHeavyError` for a batch of `size`, or 0 if none. */
function splitCap(e: unknown, size: number): number {
  if (!(e instanceof JobTooHeavyError)) return 0
  // Action weight is one per order; request weight is 1 + floor(n / 20).
  const fits = e.budget === 'action' ? e.maxWeight : 20 * e.maxWeight - 1
  return Math.max(0, Math.min(fits, size - 1))
}

/** Whether a failed send may have been applied by the venue (so it must be reconciled, never resent). */
function isUnknownOutcome(e: unknown): boolean {
  if (e instanceof UnknownOutcomeError || e instanceof UnexpectedResponseError) return true
  if (e instanceof TransportError) return e.maybeDelivered
  if (e instanceof RateLimitError) return false
  if (e instanceof RequestRejectedError) return e.status >= 500
  // Our own typed errors (signing, input, config, limiter) are raised before anything is sent; anything
  // else cannot prove the request did not go out.
  return !(e instanceof BotError)
}
