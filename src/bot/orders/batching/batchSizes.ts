/**
 * Splits a queue of `n` same-type order commands into batch sizes that buy the most actions for the
 * request weight `1 + floor(size / 20)`: least total request weight first, then fewest requests.
 *
 * Why it is not "always 19s": a batch's weight grows by one every 20 items, so one batch of 45 (weight 3)
 * costs the same as 39 + 6 or 19 + 19 + 7, and splitting never beats one batch that fits
 * (`floor(a/20) + floor(b/20) >= floor((a+b)/20) − 1`). Only queues above `maxBatchSize` need several
 * requests; with a cap of the form 20k + 19 (19, 39, …, 99) full batches plus the remainder are optimal
 * (e.g. 100 → 99 + 1, weight 6; 79 + 21 ties but is no better).
 * Other caps make the last weight step of a batch buy fewer than 20 items, so the plan searches the
 * request count `k` and, for each, the least extra weight that makes room for `n` items.
 */

import { batchRequestWeight, maxBatchForWeight } from '../../../perps/weights.ts'
import { itemAt } from '../../shared/itemAt.ts'

/** Request weight of one batch of `size` commands (the weight table's `1 + floor(n / 20)`). */
export const batchWeight = batchRequestWeight

/** Items a weight-1 batch holds (19), and items each further weight unit buys (20): from the table. */
const BASE = maxBatchForWeight(1)
const STEP = maxBatchForWeight(2) - BASE

/** Total request weight of a plan. */
export function batchesWeight(sizes: readonly number[]): number {
  return sizes.reduce((w, s) => w + batchWeight(s), 0)
}

/**
 * Batch sizes for `n` queued commands with at most `maxBatchSize` per request, largest first.
 * @throws {RangeError} `n` negative or `maxBatchSize` < 1 (programming errors).
 */
export function splitBatchSizes(n: number, maxBatchSize: number): number[] {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`queue length must be a non-negative integer, got ${n}`)
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
    throw new RangeError(`maxBatchSize must be a positive integer, got ${maxBatchSize}`)
  }
  if (n === 0) return []
  const m = maxBatchSize
  const q = Math.floor(m / STEP)
  if (q === 0)
    return fill(
      n,
      Array.from({ length: Math.ceil(n / m) }, () => m),
    )

  // A batch with q_i extra weight units (weight 1 + q_i) holds up to 20·q_i + 19 items, except that its
  // q-th unit only reaches m: it buys `last` items instead of 20. When `last` is 20 (m = 20k + 19) every
  // unit is alike and batches simply fill up one after another.
  const last = m - (STEP * (q - 1) + BASE)
  const fullPerBatch = last === STEP ? q : q - 1
  const extraUnits = (k: number): number | undefined => {
    let need = n - BASE * k
    if (need <= 0) return 0
    const full = k * fullPerBatch
    const fullUnits = Math.ceil(need / STEP)
    if (fullUnits <= full) return fullUnits
    if (fullPerBatch === q) return undefined
    need -= STEP * full
    const lastUnits = Math.ceil(need / last)
    return lastUnits <= k ? full + lastUnits : undefined
  }

  let best: { k: number; units: number } | undefined
  for (let k = Math.ceil(n / m); k <= n; k++) {
    // Weight is at least k: once k reaches the best weight, more requests cannot win or tie.
    if (best !== undefined && k >= best.k + best.units) break
    const units = extraUnits(k)
    if (units === undefined) continue
    if (best === undefined || k + units < best.k + best.units) best = { k, units }
  }
  if (best === undefined) throw new RangeError(`no plan for ${n} items of at most ${m}`)

  // Give out the 20-item units first (filling batches in turn), then the short last units, then trim
  // the spare room from the last batches.
  let full = Math.min(best.units, best.k * fullPerBatch)
  let short = best.units - full
  const caps: number[] = []
  for (let i = 0; i < best.k; i++) {
    let qi = Math.min(fullPerBatch, full)
    full -= qi
    if (qi === q - 1 && short > 0) {
      qi = q
      short -= 1
    }
    caps.push(qi === q ? m : STEP * qi + BASE)
  }
  return fill(n, caps)
}

/** Trims `caps` (largest first) to sum to `n`, taking from the last batches and keeping each >= 1. */
function fill(n: number, caps: number[]): number[] {
  const sizes = [...caps].sort((a, b) => b - a)
  let spare = sizes.reduce((a, b) => a + b, 0) - n
  for (let i = sizes.length - 1; i >= 0 && spare > 0; i--) {
    const size = itemAt(sizes, i)
    const take = Math.min(spare, size - 1)
    sizes[i] = size - take
    spare -= take
  }
  return sizes.sort((a, b) => b - a)
}
