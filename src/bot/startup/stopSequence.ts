/**
 * The bot's stop sequence, in the order that leaves the fewest orders behind: stop the inputs, stop
 * planning, finish (or abandon after a bound) the in-flight batch, apply the exit policy, then release
 * the limiter, deliver queued alerts and close servers and connections.
 */
import { type Clock, sleep } from '../../clock.ts'
import { describeError, RateLimitError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Order } from '../../perps/schemas/orders.ts'

export interface StopReport {
  /** The exit policy was cancel-all and it failed or timed out: orders may remain on the book. */
  cancelAllFailed: boolean
}

/** What must stop, in order. Each step is bounded; a failing step does not skip the later ones. */
export interface StopParts {
  /** Pollers and any other input source. */
  inputs: readonly { stop(): Promise<void> }[]
  /** Tells every actor to stop planning. */
  stopPlanning(): void
  /** Flushes the batcher and waits for in-flight batches. */
  finishOrders(): Promise<void>
  /** The exit policy's cancel-all (through the limiter, as risk work); `signal` aborts it at the bound. */
  cancelAll(signal: AbortSignal): Promise<void>
  /**
   * After the exit policy: stop refreshing the venue's dead-man switch, clearing it unless orders may
   * remain (then it stays armed and cancels them at its deadline).
   */
  disarm(clear: boolean): Promise<void>
  /**
   * The bot's last view of its open orders (last read plus the actors' live sets), named in the log
   * when cancel-all fails. Read before planning stops too, as the actors' sets go with them.
   */
  lastOrders(): readonly Order[]
  releaseLimiter(): Promise<void>
  flushAlerts(timeoutMs: number): Promise<void>
  close: readonly (() => Promise<void> | void)[]
}

/**
 * Each step's share of the shutdown budget (ops.shutdownTimeoutMs, 8 s by default): 7.5 s in all, so
 * the exit policy always gets its turn, whatever an earlier step is stuck on (a read the venue holds, a
 * job queued behind a rate-limit pause or the breaker, a dead venue).
 */
export const STOP_STEP_MS = {
  /** Pollers abort their reads (queued in the limiter or in flight); a read that ignores it is left. */
  inputs: 1_000,
  /** The in-flight batch (a quote held by the breaker is abandoned; the limiter's stop rejects it). */
  batch: 2_000,
  /** cancel-all, at risk priority: only the venue's own Retry-After on cancels may delay it. */
  cancelAll: 3_000,
  disarm: 500,
  alertFlush: 500,
  close: 500,
} as const

/** cancel-all attempts within its bound: a 429 means the venue did not act, so it may go again. */
const CANCEL_ALL_ATTEMPTS = 3

/**
 * cancel-all, again after a 429 (the limiter holds risk work for the venue's Retry-After, which is
 * the only wait the exit policy accepts), until `signal` aborts or the attempts are spent.
 */
async function cancelAllHonouringRetryAfter(
  parts: StopParts,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await parts.cancelAll(signal)
      return
    } catch (e) {
      if (!(e instanceof RateLimitError) || signal.aborted || attempt >= CANCEL_ALL_ATTEMPTS) throw e
      log.warn(
        { retryAfterMs: e.retryAfterMs ?? null, attempt },
        'exit policy: the venue rate-limited cancel-all; trying again after its Retry-After',
      )
    }
  }
}

/**
 * Settles when `p` does or after `ms` on `clock`, whichever is first (the timer is cleared either
 * way); true when `p` settled in time.
 */
async function bounded(clock: Clock, ms: number, p: Promise<unknown>): Promise<boolean> {
  const done = new AbortController()
  const timedOut = sleep(clock, ms, done.signal).then(
    () => true,
    () => false,
  )
  const settled = p.then(
    () => false,
    () => false,
  )
  const late = await Promise.race([settled, timedOut])
  done.abort()
  return !late
}

/**
 * The orders that may remain on the book: the last open-orders read plus every instrument's live
 * set (orders acknowledged since that read), once per order id.
 */
export function ordersMayRemain(sources: readonly (readonly Order[])[]): Order[] {
  const byOid = new Map<number, Order>()
  for (const source of sources) for (const order of source) byOid.set(order.oid, order)
  return [...byOid.values()]
}

/** The bot's parts as its stop sequence reaches them (each declared by what the stop needs of it). */
export interface StoppableBot {
  /** Input loops, in the order they stop (absent ones skipped). */
  inputs: readonly ({ stop(): Promise<void> } | undefined)[]
  actors: {
    stopAll(): void
    readonly instruments: readonly { id: number }[]
    snapshotOf(id: number): { context: { openOrders: readonly Order[] } } | undefined
  }
  orders: {
    batcher: { stop(): Promise<void> }
    gateway: { cancelAll(ids: undefined, opts: { signal: AbortSignal }): Promise<void> }
  }
  openOrders: { snapshot(): { orders: readonly Order[] } }
  deadMan: { stop(clear: boolean): Promise<void> } | undefined
  limiter: { stop(): Promise<void> }
  alerts: { flush(timeoutMs: number): Promise<void> }
  close: readonly (() => Promise<void> | void)[]
}

/** The stop steps of the bot's parts. */
export function botStopParts(b: StoppableBot): StopParts {
  return {
    inputs: b.inputs.filter((p) => p !== undefined),
    stopPlanning: () => b.actors.stopAll(),
    finishOrders: () => b.orders.batcher.stop(),
    cancelAll: (signal) => b.orders.gateway.cancelAll(undefined, { signal }),
    disarm: async (clear) => b.deadMan?.stop(clear),
    lastOrders: () =>
      ordersMayRemain([
        b.openOrders.snapshot().orders,
        ...b.actors.instruments.map((i) => b.actors.snapshotOf(i.id)?.context.openOrders ?? []),
      ]),
    releaseLimiter: () => b.limiter.stop(),
    flushAlerts: (ms) => b.alerts.flush(ms),
    close: b.close,
  }
}

export async function runStopSequence(o: {
  parts: StopParts
  exitPolicy: 'cancel-all' | 'leave-orders'
  clock: Clock
  logger: Logger
  reason: string
}): Promise<StopReport> {
  const { parts, logger: log, clock } = o
  log.info({ reason: o.reason }, `stopping: ${o.reason}`)
  // 1. No new inputs, no new plans. Every poller aborts its read at once; the wait is bounded too.
  if (!(await bounded(clock, STOP_STEP_MS.inputs, Promise.allSettled(parts.inputs.map((i) => i.stop())))))
    log.warn(`stopping: an input did not stop within ${STOP_STEP_MS.inputs} ms; going on`)
  // The actors' live orders, read while they still exist (stopping them discards their state).
  const knownAtStop = parts.lastOrders()
  parts.stopPlanning()
  // 2. Finish (or abandon after a bound) the in-flight batch.
  if (!(await bounded(clock, STOP_STEP_MS.batch, parts.finishOrders())))
    log.warn(`stopping: the in-flight batch did not finish within ${STOP_STEP_MS.batch} ms; going on`)
  // 3. Exit policy.
  let cancelAllFailed = false
  if (o.exitPolicy === 'cancel-all') {
    const abort = new AbortController()
    const timer = new AbortController()
    try {
      await Promise.race([
        cancelAllHonouringRetryAfter(parts, abort.signal, log),
        sleep(clock, STOP_STEP_MS.cancelAll, timer.signal).then(() => {
          const error = new Error(`cancel-all timed out after ${STOP_STEP_MS.cancelAll} ms`)
          abort.abort(error)
          throw error
        }),
      ])
      timer.abort()
      log.info('exit policy: cancelled all open orders')
    } catch (e) {
      timer.abort()
      cancelAllFailed = true
      const orders = ordersMayRemain([knownAtStop, parts.lastOrders()]).map((x) => ({
        oid: x.oid,
        iid: x.iid,
      }))
      log.error(
        { err: describeError(e), ordersMayRemain: orders },
        `exit policy: cancel-all failed; ${orders.length} order(s) known to the bot may remain open`,
      )
    }
  } else log.info('exit policy: leaving open orders in place')
  await bounded(clock, STOP_STEP_MS.disarm, parts.disarm(!cancelAllFailed))
  await parts.releaseLimiter()
  await parts.flushAlerts(STOP_STEP_MS.alertFlush)
  await bounded(clock, STOP_STEP_MS.close, Promise.allSettled(parts.close.map(async (c) => c())))
  log.info('stopped')
  return { cancelAllFailed }
}
