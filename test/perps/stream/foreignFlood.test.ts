/**
 * The mock's `foreignOrders` stream fault on a stepped clock, counted (issue 34 point 2): 5,000 pushes
 * a second of the mock's clock on the account's `orders` channel, no more and no fewer, each another
 * client's order (a coid not ours, ids of their own) and every third one cancelled again, in sequence
 * (no gap), parsed by the stream client as the venue's orders; off again when the fault is cleared.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../../src/mock/server.ts'
import { FOREIGN_FLOOD_FIRST_OID } from '../../../src/mock/stream/streamFaults.ts'
import { DEFAULT_ORDER_TAG_NAME, isOwnOrder, orderTagFor } from '../../../src/perps/orderTag.ts'
import type { StreamClient } from '../../../src/perps/stream/streamClient.ts'
import { advance, PROXY, SECRET, startStreamMock, streamClient, until } from './streamHarness.ts'

let mock: RunningMock
let client: StreamClient | undefined
beforeEach(async () => {
  mock = await startStreamMock()
})
afterEach(async () => {
  await client?.close()
  client = undefined
  await mock.close()
})

describe('the foreignOrders stream fault', () => {
  it('pushes exactly the rate per second of the mock clock, foreign and in sequence, until cleared', async () => {
    const made = streamClient(mock, { credentials: { proxy: PROXY, secret: SECRET } })
    client = made.client
    const { events } = made
    client.subscribe(['orders'])
    client.start()
    await until(() => made.client.health().channels.every((ch) => ch.subscribed), 'acks')
    mock.setFaults({ rules: [], stream: { foreignOrders: { perSecond: 5_000 } } })
    const counts = mock.stream?.counts
    if (counts === undefined) throw new Error('no stream')
    // The flood starts on the next push tick (within a second), then bursts every 10 ms of the mock's clock.
    await advance(mock, 1_100, 10)
    const orders = () => events.push.filter((p) => p.kind === 'orders')
    await until(
      () => counts.foreignOrders > 0 && orders().length === counts.foreignOrders,
      'the first bursts',
      30_000,
    )
    // One second of the mock's clock: exactly 5,000 more, all received.
    const before = counts.foreignOrders
    await advance(mock, 1_000, 10)
    expect(counts.foreignOrders - before).toBe(5_000)
    await until(() => orders().length === counts.foreignOrders, 'every push', 30_000)
    const pushed = orders()
    const tag = orderTagFor(DEFAULT_ORDER_TAG_NAME)
    let cancelled = 0
    for (const p of pushed) {
      if (p.kind !== 'orders') continue
      expect(p.data.oid).toBeGreaterThan(FOREIGN_FLOOD_FIRST_OID)
      expect(isOwnOrder(p.data.coid, tag)).toBe(false)
      if (p.data.status === 'cancelled') cancelled += 1
    }
    expect(cancelled).toBe(Math.floor(pushed.length / 3))
    expect(events.gap).toEqual([])
    // Cleared: no more.
    mock.setFaults('none')
    await advance(mock, 1_000, 10)
    const after = counts.foreignOrders
    await advance(mock, 1_000, 10)
    expect(counts.foreignOrders).toBe(after)
  })
})
