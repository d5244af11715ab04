/**
 * What a settled batch tells its observers (metrics, the journal): values only, built once per batch,
 * as one literal with its items pushed in a loop (issue 36: a spread of the common fields and a
 * `flatMap` array per item were most of its cost in the simulated day).
 */
import { PERPS_WEIGHTS } from '../../../perps/weights.ts'
import type { AnyResult, Entry } from './batchEntries.ts'
import type { BatchSettled, BatchSettledOf, BatchType, SettledItem } from './batchTypes.ts'

export function settledBatch(
  type: BatchType,
  batch: readonly Entry[],
  outcome: BatchSettled['outcome'],
  latencyMs: number,
  results: readonly AnyResult[] | undefined,
  error: unknown,
): BatchSettled {
  const size = batch.length
  const weight = PERPS_WEIGHTS[type].request({ n: size })
  switch (type) {
    case 'modifyOrders': {
      const items: SettledItem<'modifyOrders'>[] = []
      for (let i = 0; i < size; i += 1) {
        const e = batch[i]
        if (e?.type === 'modifyOrders') items.push({ iid: e.iid, item: e.item, result: results?.[i] })
      }
      return settled(type, size, outcome, latencyMs, weight, error, items)
    }
    case 'createOrders': {
      const items: SettledItem<'createOrders'>[] = []
      for (let i = 0; i < size; i += 1) {
        const e = batch[i]
        if (e?.type === 'createOrders') items.push({ iid: e.iid, item: e.item, result: results?.[i] })
      }
      return settled(type, size, outcome, latencyMs, weight, error, items)
    }
    case 'cancelOrders': {
      const items: SettledItem<'cancelOrders'>[] = []
      for (let i = 0; i < size; i += 1) {
        const e = batch[i]
        if (e?.type === 'cancelOrders') items.push({ iid: e.iid, item: e.item, result: results?.[i] })
      }
      return settled(type, size, outcome, latencyMs, weight, error, items)
    }
  }
}

/** The fields in the order they always had; `error` only when there is one. */
function settled<T extends BatchType>(
  type: T,
  size: number,
  outcome: BatchSettled['outcome'],
  latencyMs: number,
  weight: number,
  error: unknown,
  items: readonly SettledItem<T>[],
): BatchSettledOf<T> {
  return error === undefined
    ? { type, size, outcome, latencyMs, weight, items }
    : { type, size, outcome, latencyMs, weight, error, items }
}
