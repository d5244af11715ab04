/**
 * Work over every instrument on a timer, a slice at a time: between slices the bot's thread turns
 * (`setImmediate`: the socket reads ready by then run first), so a price move never waits out the
 * whole pass. At 1,000 instruments the gauges' pass (every second) and the timeline's sample (every
 * 2 s) held the thread 5-40 ms each under load, in the CPU profiles of `perpbot run --live`.
 */

/** Instruments per slice: ~0.1-0.3 ms of gauges or sampling on this project's 2-core machine. */
export const SLICE = 100

/** One turn of the event loop. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * `each` over `items` in order, `SLICE` at a time with a turn between; items that fit in one slice run
 * without a turn (what a small bot and the tests see is unchanged).
 */
export async function inSlices<T>(items: readonly T[], each: (item: T) => void): Promise<void> {
  for (let k = 0; k < items.length; k++) {
    if (k > 0 && k % SLICE === 0) await nextTurn()
    const item = items[k]
    if (item !== undefined) each(item)
  }
}
