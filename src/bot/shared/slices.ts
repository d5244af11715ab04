/**
 * Work over every instrument on a timer, a slice at a time (`eachInChunks`): a price move never waits
 * out the whole pass. At 1,000 instruments the gauges' pass (every second) and the timeline's sample
 * (every 2 s) held the thread 5-40 ms each under load, in the CPU profiles of `perpbot run --live`.
 */
import { eachInChunks } from './chunks.ts'

/** Instruments per slice: ~0.1-0.3 ms of gauges or sampling on this project's 2-core machine. */
export const SLICE = 100

/** `each` over `items` in order, `SLICE` at a time; a small bot's pass (and the tests') runs in one turn. */
export const inSlices = <T>(items: readonly T[], each: (item: T) => void): Promise<void> =>
  eachInChunks(items, SLICE, each)
