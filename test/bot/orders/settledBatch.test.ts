/** A settled batch's record (metrics, the journal): its fields in their order, `error` only when set. */
import { describe, expect, it } from 'vitest'
import type { Entry } from '../../../src/bot/orders/batching/batchEntries.ts'
import { settledBatch } from '../../../src/bot/orders/batching/settledBatch.ts'

const base = { priority: 'quote', lazy: false, key: undefined, resolve: () => undefined } as const
const modify = (iid: number, oid: number): Entry => ({
  ...base,
  iid,
  type: 'modifyOrders',
  item: { oid, p: '1.5', qty: '2' },
})
const cancel = (iid: number, oid: number): Entry => ({ ...base, iid, type: 'cancelOrders', item: oid })

describe('settledBatch', () => {
  it('lists each item with its answer in request order, fields in a fixed order', () => {
    // One answer for two items: the second item's answer reads as absent.
    const results = [{ status: 'err', error: 'order_not_found', oid: 7 } as const]
    const b = settledBatch('modifyOrders', [modify(1, 7), modify(2, 8)], 'ok', 12, results, undefined)
    expect(Object.keys(b)).toEqual(['type', 'size', 'outcome', 'latencyMs', 'weight', 'items'])
    expect(b).toStrictEqual({
      type: 'modifyOrders',
      size: 2,
      outcome: 'ok',
      latencyMs: 12,
      weight: 1,
      items: [
        { iid: 1, item: { oid: 7, p: '1.5', qty: '2' }, result: results[0] },
        { iid: 2, item: { oid: 8, p: '1.5', qty: '2' }, result: undefined },
      ],
    })
  })

  it('carries the request-level error before the items, and no answers', () => {
    const error = new Error('refused')
    const b = settledBatch('cancelOrders', [cancel(3, 9)], 'error', 5, undefined, error)
    expect(Object.keys(b)).toEqual(['type', 'size', 'outcome', 'latencyMs', 'weight', 'error', 'items'])
    expect(b.error).toBe(error)
    expect(b.items).toStrictEqual([{ iid: 3, item: 9, result: undefined }])
  })
})
