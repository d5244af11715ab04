/**
 * The bot's stop sequence, in the order that leaves the fewest orders behind: stop the inputs, stop
 * planning, finish (or abandon after a bound) the in-flight batch, apply the exit policy, then release
 * the limiter, deliver queued alerts and close servers and connections.
 */
import { type Clock, sleep } from '../../clock.ts'
import { describeError } from '../../errors.ts'
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
  /** The exit policy's cancel-all (through the limiter, as risk work). */
  cancelAll(): Promise<void>
  /**
   * After the exit policy: stop refreshing the venue's dead-man switch, clearing it unless orders may
   * remain (then it stays armed and cancels them at its deadline).
   */
  disarm(clear: boolean): Promise<void>
  /** The bot's last view of its open orders, named in the log when cancel-all fails. */
  lastOrders(): readonly Order[]
  releaseLimiter(): Promise<void>
  flushAlerts(timeoutMs: number): Promise<void>
  close: readonly (() => Promise<void> | void)[]
}

/** Each bounded step's share of the shutdown budget. */
const BATCH_WAIT_MS = 3_000
const CANCEL_ALL_MS = 3_000
const ALERT_FLUSH_MS = 1_000

export async function runStopSequence(o: {
  parts: StopParts
  exitPolicy: 'cancel-all' | 'leave-orders'
  clock: Clock
  logger: Logger
  reason: string
}): Promise<StopReport> {
  const { parts, logger: log, clock } = o
  log.info({ reason: o.reason }, `stopping: ${o.reason}`)
  // 1. No new inputs, no new plans.
  await Promise.allSettled(parts.inputs.map((i) => i.stop()))
  parts.stopPlanning()
  // 2. Finish (or abandon after a bound) the in-flight batch.
  await Promise.race([parts.finishOrders(), sleep(clock, BATCH_WAIT_MS)])
  // 3. Exit policy.
  let cancelAllFailed = false
  if (o.exitPolicy === 'cancel-all') {
    try {
      await Promise.race([
        parts.cancelAll(),
        sleep(clock, CANCEL_ALL_MS).then(() => {
          throw new Error('cancel-all timed out')
        }),
      ])
      log.info('exit policy: cancelled all open orders')
    } catch (e) {
      cancelAllFailed = true
      const orders = parts.lastOrders().map((x) => ({ oid: x.oid, iid: x.iid }))
      log.error(
        { err: describeError(e), ordersMayRemain: orders },
        `exit policy: cancel-all failed; ${orders.length} order(s) known to the bot may remain open`,
      )
    }
  } else log.info('exit policy: leaving open orders in place')
  await parts.disarm(!cancelAllFailed)
  await parts.releaseLimiter()
  await parts.flushAlerts(ALERT_FLUSH_MS)
  await Promise.allSettled(parts.close.map(async (c) => c()))
  log.info('stopped')
  return { cancelAllFailed }
}
