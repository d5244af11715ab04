/**
 * Sends one batch and settles it: the typed admission (the perps client's, through its request gate),
 * the reconcile hold between admission and signing, the answer timeout started at the send, the per-item results routed back to the submitters, and
 * what a failure means. An unknown outcome (a possibly delivered failure, a 5xx, a malformed answer,
 * `sendTimeoutMs`) is never resent: the reconcile hold starts at once and the items resolve `unknown`
 * after it. A batch the gate can never admit is handed back to be split; any other failure resolves
 * its items `failed`. Nothing is signed while a reconciliation holds (checked at admission).
 */
import type { Clock, TimerId } from '../../../clock.ts'
import { BotError, UnknownOutcomeError } from '../../../errors.ts'
import { PERPS_WEIGHTS } from '../../../perps/weights.ts'
import type { AnyResult, Entry } from './batchEntries.ts'
import { isUnknownOutcome, matchResults, splitCap } from './batchResults.ts'
import type { BatchSend, BatchSettled, BatchType, CommandPriority, SendOptions } from './batchTypes.ts'
import type { ReconcileHold } from './reconcileHold.ts'
import { sendBatch } from './sendBatch.ts'
import { settledBatch } from './settledBatch.ts'

/** The batcher's counters this part moves. */
export interface RunStats {
  batchesSent: number
  itemsSent: number
  batchesBySize: Record<number, number>
  unknownBatches: number
  unknownItems: number
  failedBatches: number
  splitBatches: number
}

export interface BatchRunner {
  /**
   * Sends the batch and resolves every item; `admitted` is called when the gate admits it. Resolves
   * when the batch is settled (after the reconciliation, when its outcome is unknown).
   */
  run(type: BatchType, priority: CommandPriority, batch: Entry[], admitted: () => void): Promise<void>
}

export function createBatchRunner(o: {
  clock: Clock
  send: BatchSend
  sendTimeoutMs: number
  hold: ReconcileHold
  stats: RunStats
  onSettled?: ((batch: BatchSettled) => void) | undefined
  /** A batch the gate can never admit (nothing sent): re-plan it into batches of at most `cap`. */
  split: (type: BatchType, priority: CommandPriority, batch: Entry[], cap: number) => void
}): BatchRunner {
  const { clock, stats, hold } = o

  function settled(
    type: BatchType,
    batch: readonly Entry[],
    outcome: BatchSettled['outcome'],
    sentAt: number,
    results?: readonly AnyResult[],
    error?: unknown,
  ): void {
    if (o.onSettled === undefined) return
    try {
      o.onSettled(settledBatch(type, batch, outcome, clock.now() - sentAt, results, error))
    } catch {
      // A metrics bug must not wedge the batcher.
    }
  }

  async function run(
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
    const sendOptions: SendOptions = { signal: controller.signal, priority }
    // Admitted by the request gate (a value the client hands back), then held here while a
    // reconciliation is pending, then signed and sent: nothing calls back into the batcher.
    const admitThenSend = async (): Promise<readonly AnyResult[]> => {
      const admittedBatch = await sendBatch(o.send, type, batch, sendOptions)
      admitted()
      try {
        // Nothing is sent while a reconciliation is pending (a new one may start while we wait).
        while (hold.current !== undefined) await hold.current
      } catch (e) {
        admittedBatch.release()
        throw e
      }
      sent = true
      sentAt = clock.now()
      stats.batchesSent += 1
      stats.itemsSent += batch.length
      stats.batchesBySize[batch.length] = (stats.batchesBySize[batch.length] ?? 0) + 1
      timer = clock.setTimeout(() => {
        const error = new UnknownOutcomeError(PERPS_WEIGHTS[type].path, {
          details: [`no answer within ${o.sendTimeoutMs} ms`],
        })
        controller.abort(error)
        timedOut(error)
      }, o.sendTimeoutMs)
      return admittedBatch.send()
    }
    try {
      const answer = admitThenSend().catch((e: unknown) => {
        // Hold sending as soon as the failure is known, before anything else can be admitted.
        if (sent && isUnknownOutcome(e)) hold.begin(batch)
        throw e
      })
      timeout.catch(() => {
        if (sent) hold.begin(batch)
      })
      const results = matchResults(type, batch.length, await Promise.race([answer, timeout]))
      settled(type, batch, 'ok', sentAt, results)
      for (const [i, r] of results.entries()) batch[i]?.resolve(r)
    } catch (e) {
      if (sent && isUnknownOutcome(e)) {
        settled(type, batch, 'unknown', sentAt)
        stats.unknownBatches += 1
        stats.unknownItems += batch.length
        hold.begin(batch)
        await hold.current
        return
      }
      if (sent) settled(type, batch, 'error', sentAt, undefined, e ?? new BotError('failed'))
      const cap = sent ? 0 : splitCap(type, e, batch.length)
      if (cap > 0) {
        // The gate can never admit this batch (budgets smaller than maxBatchSize): nothing was
        // sent, so re-plan it into batches that fit.
        stats.splitBatches += 1
        o.split(type, priority, batch, cap)
        return
      }
      stats.failedBatches += 1
      const error = e instanceof Error ? e : new BotError(String(e))
      for (const entry of batch) entry.resolve({ status: 'failed', error })
    } finally {
      clock.clearTimeout(timer)
    }
  }

  return { run }
}
