/**
 * Work over many instruments a chunk at a time, with a turn of the event loop between chunks
 * (`setImmediate`: socket reads ready by then run first). Items that fit in one chunk run without a turn.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'

/**
 * The route's chunk: the commands of the first chunk are batched and signed while later ones are still
 * being planned. Nine instruments of up to two quotes each fill one 19-order batch (request weight 1).
 */
export const ROUTE_CHUNK = 9

/**
 * The longest a turn of deferred actor work runs (ms) before the socket reads come again: the route
 * queue's chunk and the paced timers end a turn once past it (at least one step a turn).
 */
export const TURN_BUDGET_MS = 0.5

/** `each` over `items` in order, `size` at a time with a turn between. */
export async function eachInChunks<T>(
  items: readonly T[],
  size: number,
  each: (item: T) => void,
): Promise<void> {
  for (let k = 0; k < items.length; k++) {
    if (k > 0 && k % size === 0) await nextTurn()
    const item = items[k]
    if (item !== undefined) each(item)
  }
}

/** Fans a route's work out in chunks of `ROUTE_CHUNK`. */
export const inChunks = <T>(items: readonly T[], each: (item: T) => void): Promise<void> =>
  eachInChunks(items, ROUTE_CHUNK, each)
