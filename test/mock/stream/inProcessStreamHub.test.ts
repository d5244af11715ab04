/**
 * The in-process stream hub's `publishNow` (the paper book, when the venue's price moved): the moved
 * instruments' tickers go out at once, as one delivery item, on the session's own sequence (the tick
 * that follows numbers on from them); nothing after the hub closed.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { generateInstruments } from '../../../src/mock/perps/instruments.ts'
import { createMockServerHandler, type MockServer } from '../../../src/mock/server.ts'
import { createInProcessStreamHub } from '../../../src/mock/stream/inProcessStreamHub.ts'
import { VirtualClock } from '../../../src/mock/virtualClock.ts'
import type { PushEnvelope } from '../../../src/perps/stream/schemas.ts'

let mock: MockServer | undefined
afterEach(() => mock?.dispose())

function hubOnMock() {
  const clock = new VirtualClock({ mode: 'stepped', startMs: Date.UTC(2026, 10, 2, 12) })
  mock = createMockServerHandler({ clock, exchange: { instruments: generateInstruments(2) } })
  const items: (() => void)[] = []
  const hub = createInProcessStreamHub({
    exchange: mock.exchange,
    clock,
    pushIntervalMs: 250,
    deliver: (handOver) => void items.push(handOver),
  })
  const pushes: PushEnvelope[] = []
  const session = hub.connect({ onPush: (p) => void pushes.push(p) })
  session.subscribe(['tickers::1', 'tickers::2'])
  const ids = mock.exchange.instrumentSpecs().map((s) => s.id)
  return { clock, hub, items, pushes, ids }
}

describe('in-process stream hub: publishNow', () => {
  it('pushes the moved instruments’ tickers at once, as one item, on the session’s sequence', () => {
    const { clock, hub, items, pushes, ids } = hubOnMock()
    const [first] = ids
    if (first === undefined) throw new Error('no instrument')
    hub.publishNow([first])
    expect(items).toHaveLength(1)
    for (const h of items.splice(0)) h()
    expect(pushes.map((p) => [p.ch, p.sq])).toEqual([[`tickers::${first}`, 1]])
    // The next tick numbers on from it.
    clock.set(clock.now() + 250)
    for (const h of items.splice(0)) h()
    expect(pushes.filter((p) => p.ch === `tickers::${first}`).map((p) => p.sq)).toEqual([1, 2])
    expect(pushes.some((p) => p.ch !== `tickers::${first}` && p.sq === 1)).toBe(true)
  })

  it('does nothing once closed', () => {
    const { hub, items, ids } = hubOnMock()
    hub.close()
    hub.publishNow(ids)
    expect(items).toEqual([])
  })
})
