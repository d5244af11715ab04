/** Hands one same-type batch to its typed admission (the perps client's endpoint), items unchanged. */
import type { AnyResult, Entry } from './batchEntries.ts'
import type { AdmittedBatch, BatchSend, BatchType, SendOptions } from './batchTypes.ts'

export function sendBatch(
  send: BatchSend,
  type: BatchType,
  batch: readonly Entry[],
  o: SendOptions,
): Promise<AdmittedBatch<AnyResult>> {
  switch (type) {
    case 'modifyOrders':
      return send.modifyOrders(
        batch.flatMap((e) => (e.type === 'modifyOrders' ? [e.item] : [])),
        o,
      )
    case 'createOrders':
      return send.createOrders(
        batch.flatMap((e) => (e.type === 'createOrders' ? [e.item] : [])),
        o,
      )
    case 'cancelOrders':
      return send.cancelOrders(
        batch.flatMap((e) => (e.type === 'cancelOrders' ? [e.item] : [])),
        o,
      )
  }
}
