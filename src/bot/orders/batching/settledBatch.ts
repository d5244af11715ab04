/** What a settled batch tells its observers (metrics, the journal): values only, built once per batch. */
import { PERPS_WEIGHTS } from '../../../perps/weights.ts'
import type { AnyResult, Entry } from './batchEntries.ts'
import type { BatchSettled, BatchType } from './batchTypes.ts'

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
  const base = { size, outcome, latencyMs, weight, ...(error === undefined ? {} : { error }) }
  switch (type) {
    case 'modifyOrders':
      return {
        type,
        ...base,
        items: batch.flatMap((e, i) =>
          e.type === 'modifyOrders' ? [{ iid: e.iid, item: e.item, result: results?.[i] }] : [],
        ),
      }
    case 'createOrders':
      return {
        type,
        ...base,
        items: batch.flatMap((e, i) =>
          e.type === 'createOrders' ? [{ iid: e.iid, item: e.item, result: results?.[i] }] : [],
        ),
      }
    case 'cancelOrders':
      return {
        type,
        ...base,
        items: batch.flatMap((e, i) =>
          e.type === 'cancelOrders' ? [{ iid: e.iid, item: e.item, result: results?.[i] }] : [],
        ),
      }
  }
}
