/**
 * The bot's stop sequence, in the order that leaves the fewest orders behind: stop the inputs, stop
 * planning, drop every job still waiting in the limiter (nothing new goes out but the exit's own
 * commands), finish (or abandon after a bound) the in-flight batch, apply the exit policy, then
 * deliver queued alerts and close servers and connections.
 *
 * The exit policy's cancel-all is held by nothing local (issue 24): it goes at the `exit` priority,
 * which no pause, breaker or budget of ours holds, signed with the local clock if the venue's clock is
 * refused (the report says so). A 429 answered to it is the venue's word: it goes again after the
 * venue's Retry-After, capped by what is left of the budget.
 */
import { type Clock, sleep } from '../../clock.ts'
import { describeError, RateLimitError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Order } from '../../perps/schemas/orders.ts'

export interface StopReport {
  /** The exit policy was cancel-all and it failed or timed out: orders may remain on the book. */
  cancelAllFailed: boolean
  /**
   * The clock the exit's cancel-all was signed with: `local` when the venue's clock was refused (its
   * time endpoint beyond `perps.maxClockSkewMs`), so the command carries our own time.
   */
  exitClock: 'venue' | 'local'
}

/** What must stop, in order. Each step is bounded; a failing step does not skip the later ones. */
export interface StopParts {
  /** Pollers and any other input source. */
  inputs: readonly { stop(): Promise<void> }[]
  /** Tells every actor to stop planning. */
  stopPlanning(): void
  /**
   * Rejects every job waiting in the limiter (reads, quotes, risk work held by a pause or the breaker):
   * nothing but the exit's own commands goes out from here on. Optional for callers without a limiter.
   */
  dropQueued?(): Promise<void>
  /** Flushes the batcher and waits for in-flight batches. */
  finishOrders(): Promise<void>
  /** The exit policy's cancel-all at the `exit` priority (held by nothing local); `signal` aborts it. */
  cancelAll(signal: AbortSignal): Promise<void>
  /** Which clock signs the exit's commands now (`local` while the venue's clock is refused). */
  exitClock?(): 'venue' | 'local'
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
  /**
   * cancel-all, held by nothing local; at least this, or what is left of `STOP_BUDGET_MS` after the
   * steps before it and the tail after it (a Retry-After on it is honoured within that).
   */
  cancelAll: 3_000,
  disarm: 500,
  alertFlush: 500,
  close: 500,
} as const

/** The whole stop sequence's budget (ops.shutdownTimeoutMs is 8 s by default). */
export const STOP_BUDGET_MS = 7_500
/** The steps after cancel-all, kept out of its share. */
const TAIL_MS = STOP_STEP_MS.disarm + STOP_STEP_MS.alertFlush + STOP_STEP_MS.close
/** A retry of cancel-all leaves this much of its bound for the answer. */
const RETRY_MARGIN_MS = 300
/** Without a Retry-After, the wait before cancel-all goes again. */
const RETRY_WITHOUT_HEADER_MS = 500

/**
 * cancel-all until it is accepted: after a 429 (the venue did not act) it goes again after the
 * venue's Retry-After, capped so that the retry still fits before `deadline` (clock ms); any other
 * error, or no time left for another try, ends it.
 */
async function cancelAllHonouringRetryAfter(
  parts: StopParts,
  signal: AbortSignal,
  clock: Clock,
  deadline: number,
  log: Logger,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await parts.cancelAll(signal)
      return
    } catch (e) {
      const left = deadline - RETRY_MARGIN_MS - clock.now()
      if (!(e instanceof RateLimitError) || signal.aborted || left <= 0) throw e
      const waitMs = Math.min(e.retryAfterMs ?? RETRY_WITHOUT_HEADER_MS, left)
      log.warn(
        { retryAfterMs: e.retryAfterMs ?? null, waitMs, attempt },
        `exit policy: the venue rate-limited cancel-all; trying again in ${waitMs} ms (its Retry-After, capped by the stop budget)`,
      )
      await sleep(clock, waitMs, signal)
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
    gateway: {
      cancelAll(
        ids: undefined,
        opts: { signal: AbortSignal; exit: true; only?: ((order: Order) => boolean) | undefined },
      ): Promise<void>
    }
  }
  openOrders: { snapshot(): { orders: readonly Order[] } }
  deadMan: { stop(clear: boolean): Promise<void> } | undefined
  limiter: { stop(): Promise<void> }
  alerts: { flush(timeoutMs: number): Promise<void> }
  /**
   * Narrows the exit's cancels to some of our orders (a fleet process that lost its lease: its own
   * epoch's, by id); absent, all of ours (cancel-all when no foreign order rests).
   */
  exitOnly?: (() => ((order: Order) => boolean) | undefined) | undefined
  /** Whether the venue's clock is trusted (else the exit signs with the local clock). */
  venueClock: { readonly trusted: boolean }
  close: readonly (() => Promise<void> | void)[]
}

/** The stop steps of the bot's parts. */
export function botStopParts(b: StoppableBot): StopParts {
  return {
    inputs: b.inputs.filter((p) => p !== undefined),
    stopPlanning: () => b.actors.stopAll(),
    dropQueued: () => b.limiter.stop(),
    finishOrders: () => b.orders.batcher.stop(),
    // The exit's cancels go at the `exit` priority (held by nothing local), through the gateway so
    // foreign orders stay and a fenced fleet process cancels only its own epoch's.
    cancelAll: async (signal) => {
      await b.orders.gateway.cancelAll(undefined, { signal, exit: true, only: b.exitOnly?.() })
    },
    exitClock: () => (b.venueClock.trusted ? 'venue' : 'local'),
    // Narrowed exit (a fenced fleet process): the switch stays armed, as it now guards a successor.
    disarm: async (clear) => b.deadMan?.stop(clear && b.exitOnly?.() === undefined),
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
  const startedAt = clock.now()
  log.info({ reason: o.reason }, `stopping: ${o.reason}`)
  // 1. No new inputs, no new plans. Every poller aborts its read at once; the wait is bounded too.
  if (!(await bounded(clock, STOP_STEP_MS.inputs, Promise.allSettled(parts.inputs.map((i) => i.stop())))))
    log.warn(`stopping: an input did not stop within ${STOP_STEP_MS.inputs} ms; going on`)
  // The actors' live orders, read while they still exist (stopping them discards their state).
  const knownAtStop = parts.lastOrders()
  parts.stopPlanning()
  // Whatever waits in the limiter (behind a pause, the breaker or the budget) is dropped, not sent.
  await parts.dropQueued?.()
  // 2. Finish (or abandon after a bound) the in-flight batch.
  if (!(await bounded(clock, STOP_STEP_MS.batch, parts.finishOrders())))
    log.warn(`stopping: the in-flight batch did not finish within ${STOP_STEP_MS.batch} ms; going on`)
  // 3. Exit policy.
  let cancelAllFailed = false
  const exitClock = parts.exitClock?.() ?? 'venue'
  if (o.exitPolicy === 'cancel-all') {
    const abort = new AbortController()
    const timer = new AbortController()
    const boundMs = Math.max(STOP_STEP_MS.cancelAll, STOP_BUDGET_MS - TAIL_MS - (clock.now() - startedAt))
    if (exitClock === 'local')
      log.warn(
        'exit policy: the venue clock is refused; cancel-all is signed with the local clock (our own time)',
      )
    try {
      await Promise.race([
        cancelAllHonouringRetryAfter(parts, abort.signal, clock, clock.now() + boundMs, log),
        sleep(clock, boundMs, timer.signal).then(() => {
          const error = new Error(`cancel-all timed out after ${boundMs} ms`)
          abort.abort(error)
          throw error
        }),
      ])
      timer.abort()
      log.info(
        { exitClock },
        `exit policy: cancelled all open orders${exitClock === 'local' ? ' (signed with the local clock)' : ''}`,
      )
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
  return { cancelAllFailed, exitClock }
}

/**
 * The running bot's `stop(reason)`: the views say stopping and the watchdog stops at once, then the
 * stop sequence runs over the bot's parts, once (a second call gets the same report).
 */
export function botStop(o: {
  views: { markStopping(): void }
  watchdog: { stop(reason: string): void }
  exitPolicy: 'cancel-all' | 'leave-orders'
  clock: Clock
  logger: Logger
  bot: StoppableBot
}): (reason: string) => Promise<StopReport> {
  let stopped: Promise<StopReport> | undefined
  return (reason) => {
    o.views.markStopping()
    o.watchdog.stop(reason)
    stopped ??= runStopSequence({
      reason,
      exitPolicy: o.exitPolicy,
      clock: o.clock,
      logger: o.logger,
      parts: botStopParts(o.bot),
    })
    return stopped
  }
}

/**
 * The bot's stop, from every part as the stop reaches it: the inputs first (streams, pollers, the
 * account's pollers, the ops loops), then the orders as `botStopParts` says, the exit's narrowing from
 * order ownership, and the parts closed in order (the ops server, the connection, the actors, the
 * repeated-line log, the journal's part last).
 */
export function botStopFor(
  p: Omit<StoppableBot, 'inputs' | 'limiter' | 'exitOnly' | 'close'> & {
    views: { markStopping(): void }
    watchdog: { stop(reason: string): void }
    settings: { ops: { exitPolicy: 'cancel-all' | 'leave-orders' } }
    clock: Clock
    log: Logger
    streams: { stop(): Promise<void> } | undefined
    feeds: { stop(): Promise<void> }
    account: { stop(): Promise<void> }
    protections: { stop(): Promise<void> }
    /** The Telegram bot, when one runs: stopped after the exit policy's alerts went out. */
    phone?: { stop(): Promise<void> } | undefined
    ops: { readonly loops: readonly { stop(): Promise<void> }[]; close(): Promise<void> | void }
    limits: { readonly limiter: { stop(): Promise<void> } }
    ownership: { exitOnly(): ((order: Order) => boolean) | undefined }
    conn: { close(): Promise<void> | void }
    actors: { stop(): Promise<void> | void }
    repeated: { stop(): void }
    journal: { stop(): void }
  },
): (reason: string) => Promise<StopReport> {
  return botStop({
    views: p.views,
    watchdog: p.watchdog,
    exitPolicy: p.settings.ops.exitPolicy,
    clock: p.clock,
    logger: p.log,
    bot: {
      ...p,
      inputs: [p.streams, p.feeds, p.protections, p.account, ...p.ops.loops],
      limiter: p.limits.limiter,
      exitOnly: () => p.ownership.exitOnly(),
      close: [
        () => p.phone?.stop(),
        () => p.ops.close(),
        () => p.conn.close(),
        () => p.actors.stop(),
        () => p.repeated.stop(),
        () => p.journal.stop(),
      ],
    },
  })
}
