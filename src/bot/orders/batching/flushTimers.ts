/**
 * When the batcher's queues flush, and how long a queue keeps collecting:
 * - timers: a queue flushes when its window ends (on the injected clock), at its most urgent entry's
 *   time (quote `windowMs`, lazy `lazyWindowMs`, risk `riskWindowMs`; a zero window flushes at the end
 *   of the current tick, as a microtask, with no timer), so nothing urgent waits out a lazy window;
 * - admission: while a batch of a queue waits for the request gate, `awaiting(k)` counts it, so a
 *   quote queue keeps collecting behind it (one bigger batch later) instead of lining up small ones.
 */
import type { Clock, TimerId } from '../../../clock.ts'
import type { QueueKey } from './batchEntries.ts'
import type { CommandPriority } from './batchTypes.ts'

export interface FlushTimers {
  /** A command of this urgency joined queue `k`: flush it by the end of its window. */
  arm(k: QueueKey, entry: { priority: CommandPriority; lazy: boolean }): void
  /** The queue flushes now: its timer is no longer needed. */
  disarm(k: QueueKey): void
  /** Batches of queue `k` handed to the gate and not yet admitted. */
  awaiting(k: QueueKey): number
  /** A batch of queue `k` goes to the gate; the function marks it admitted (true the first time only). */
  dispatched(k: QueueKey): () => boolean
  /** Cancels every timer (stop). */
  clear(): void
}

export function createFlushTimers(o: {
  clock: Clock
  windowMs: number
  riskWindowMs: number
  lazyWindowMs: number
  /** Flushes one queue (the batcher's). */
  flush: (k: QueueKey) => void
}): FlushTimers {
  const { clock } = o
  const timers = new Map<QueueKey, TimerId>()
  /** When each queue's timer fires (clock time). */
  const dueAt = new Map<QueueKey, number>()
  const microtasks = new Set<QueueKey>()
  const awaitingAdmission = new Map<QueueKey, number>()

  const disarm = (k: QueueKey): void => {
    const timer = timers.get(k)
    if (timer === undefined) return
    clock.clearTimeout(timer)
    timers.delete(k)
  }

  return {
    arm(k, entry) {
      if (microtasks.has(k)) return
      const wait = entry.priority === 'risk' ? o.riskWindowMs : entry.lazy ? o.lazyWindowMs : o.windowMs
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
          o.flush(k)
        })
      } else {
        dueAt.set(k, clock.now() + wait)
        timers.set(
          k,
          clock.setTimeout(() => {
            timers.delete(k)
            o.flush(k)
          }, wait),
        )
      }
    },
    disarm,
    awaiting: (k) => awaitingAdmission.get(k) ?? 0,
    dispatched(k) {
      awaitingAdmission.set(k, (awaitingAdmission.get(k) ?? 0) + 1)
      let waiting = true
      return () => {
        if (!waiting) return false
        waiting = false
        awaitingAdmission.set(k, (awaitingAdmission.get(k) ?? 1) - 1)
        return true
      }
    },
    clear() {
      for (const t of timers.values()) clock.clearTimeout(t)
      timers.clear()
    },
  }
}
