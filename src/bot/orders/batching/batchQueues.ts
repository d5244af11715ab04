/**
 * The batcher's queues and their coalescing: one queue per (priority, type), flushed in a fixed
 * order. A newer command for the same order takes the older one's place in line (the older resolves
 * `superseded`), or, queued elsewhere (another priority), removes it; a cancel also supersedes a
 * queued modify of its order.
 */
import { mustGet } from '../../shared/itemAt.ts'
import { type Entry, perQueue, QUEUE_ORDER, type QueueKey, queueKey } from './batchEntries.ts'

export interface BatchQueues {
  /** Queues the entry, coalescing it with a queued command for the same order; returns its queue. */
  add(entry: Entry): QueueKey
  length(k: QueueKey): number
  /** Takes every entry of the queue, in order (they are no longer coalesced with). */
  take(k: QueueKey): Entry[]
  /** Entries waiting per queue. */
  counts(): Record<QueueKey, number>
}

export function createBatchQueues(stats: { superseded: number }): BatchQueues {
  const queues = new Map<QueueKey, Entry[]>(QUEUE_ORDER.map((k) => [k, []]))
  /** The queued entry per coalescing key (one per order). */
  const byKey = new Map<string, Entry>()
  const queueOf = (k: QueueKey): Entry[] => mustGet(queues, k)

  function supersede(entry: Entry): void {
    const q = queueOf(queueKey(entry.priority, entry.type))
    const i = q.indexOf(entry)
    if (i >= 0) q.splice(i, 1)
    if (entry.key !== undefined && byKey.get(entry.key) === entry) byKey.delete(entry.key)
    stats.superseded += 1
    entry.resolve({ status: 'superseded' })
  }

  return {
    add(entry) {
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
      return k
    },
    length: (k) => queueOf(k).length,
    take(k) {
      const entries = queueOf(k).splice(0)
      for (const e of entries) if (e.key !== undefined && byKey.get(e.key) === e) byKey.delete(e.key)
      return entries
    },
    counts: () => perQueue((k) => queueOf(k).length),
  }
}
