/**
 * The batcher's reconcile hold: once a sent batch's outcome is unknown, sending stops until the open
 * orders of its instruments have been read again (with retries), then every item of it resolves as
 * `unknown` and the queues flush. Batches that turn unknown meanwhile are read in the same hold.
 */
import { type Clock, sleep } from '../../../clock.ts'
import type { Entry } from './batchEntries.ts'
import type { Reconcile } from './batchTypes.ts'

export interface ReconcileHold {
  /** Set while sending is held for reconciliation. */
  readonly current: Promise<void> | undefined
  /** A sent batch's outcome is unknown: hold sending and reconcile its instruments (once per batch). */
  begin(batch: Entry[]): void
}

export function createReconcileHold(o: {
  clock: Clock
  reconcile: Reconcile
  /** Attempts before giving up and resuming anyway. */
  attempts: number
  /** Pause before the first retry; doubles per retry. */
  retryMs: number
  onError?: ((error: unknown, attempt: number) => void) | undefined
  /** The batcher's counters. */
  stats: { reconciles: number; reconcileFailures: number }
  /** The hold lifted: what queued meanwhile goes now. */
  released: () => void
}): ReconcileHold {
  const { stats } = o
  /** Items of unknown-outcome batches awaiting reconciliation. */
  const pendingUnknown: Entry[] = []
  let hold: Promise<void> | undefined
  const reconciling = new WeakSet<Entry[]>()

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
        await o.reconcile(iids)
        return
      } catch (e) {
        stats.reconcileFailures += 1
        try {
          o.onError?.(e, attempt)
        } catch {
          // A reporting bug must not wedge the batcher.
        }
        // Giving up resumes sending: actors still get `unknown` and re-diff from what they know.
        if (attempt >= o.attempts) return
        await sleep(o.clock, o.retryMs * 2 ** (attempt - 1))
      }
    }
  }

  return {
    get current() {
      return hold
    },
    begin(batch) {
      if (reconciling.has(batch)) return
      reconciling.add(batch)
      pendingUnknown.push(...batch)
      if (hold !== undefined) return
      hold = reconcileLoop().finally(() => {
        hold = undefined
        o.released()
      })
    },
  }
}
