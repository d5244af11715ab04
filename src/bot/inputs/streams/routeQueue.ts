/**
 * Inputs that can wait, routed after the ones that cannot. A venue tick brings every ticker and BBO
 * of every instrument, the portfolio (one ACCOUNT event per instrument) and, once a minute, the
 * statistics, all in the same socket reads as the one price that moved; the socket's frames are
 * handled back to back, so without this the moved instrument's order waits behind hundreds of actor
 * events that change nothing urgent. `now` routes at once; `later` queues, and the queue drains
 * `chunk` events per turn of the event loop (`schedule`, setImmediate by default), so the orders
 * planned meanwhile are signed and sent between chunks.
 *
 * Per instrument and event type only the newest queued event is kept (bounded by instruments ×
 * types), and routing one at once drops the queued older one, so an input never goes back in time.
 */

import { performance } from 'node:perf_hooks'
import { ROUTE_CHUNK, TURN_BUDGET_MS } from '../../shared/chunks.ts'

export interface RouteQueue<E extends { type: string }> {
  /** Routes at once (a queued event of the same instrument and type is dropped: it is older). */
  now(ids: readonly number[], event: E): void
  /** Routes after the events in hand, replacing a queued one of the same instrument and type. */
  later(ids: readonly number[], event: E): void
  /** Events queued. */
  readonly pending: number
  /** Drops everything queued (stop). */
  clear(): void
}

export interface RouteQueueOptions<E> {
  route(ids: readonly number[], event: E): void
  /** Runs `fn` on a later turn of the event loop. Default setImmediate. */
  schedule?: ((fn: () => void) => void) | undefined
  /** Events routed per turn. Default `ROUTE_CHUNK` (9 instruments: one 19-order batch, weight 1). */
  chunk?: number | undefined
  /**
   * A turn also ends once it has run this long (ms of `elapsed`; at least one event a turn). Default
   * `TURN_BUDGET_MS`: an actor step that plans takes ~0.4 ms at 1,000 instruments, so nine of them held
   * a price that moved meanwhile for ~3.6 ms.
   */
  budgetMs?: number | undefined
  /** Monotonic ms (default `performance.now`). */
  elapsed?: (() => number) | undefined
}

export function createRouteQueue<E extends { type: string }>(o: RouteQueueOptions<E>): RouteQueue<E> {
  const schedule = o.schedule ?? ((fn: () => void) => void setImmediate(fn))
  const chunk = Math.max(1, o.chunk ?? ROUTE_CHUNK)
  const budgetMs = o.budgetMs ?? TURN_BUDGET_MS
  const elapsed = o.elapsed ?? (() => performance.now())
  // Insertion order is drain order; a replaced event keeps its place.
  const queued = new Map<string, { id: number; event: E }>()
  let scheduled = false
  let cleared = 0

  const drain = (generation: number): void => {
    scheduled = false
    if (generation !== cleared) return
    let n = 0
    const until = elapsed() + budgetMs
    for (const [key, item] of queued) {
      if (n > 0 && (n >= chunk || elapsed() >= until)) break
      n++
      queued.delete(key)
      o.route([item.id], item.event)
    }
    wake()
  }
  const wake = (): void => {
    if (scheduled || queued.size === 0) return
    scheduled = true
    const generation = cleared
    schedule(() => drain(generation))
  }

  return {
    now(ids, event) {
      if (queued.size > 0) for (const id of ids) queued.delete(`${id}:${event.type}`)
      o.route(ids, event)
    },
    later(ids, event) {
      for (const id of ids) queued.set(`${id}:${event.type}`, { id, event })
      wake()
    },
    get pending() {
      return queued.size
    },
    clear() {
      queued.clear()
      cleared++
      scheduled = false
    },
  }
}
