/**
 * The in-process stream source (engine/inProcessStream.ts) keeps the socket client's semantics on
 * pushes handed over as values: channels checked at subscribe, a sequence that skips is a gap (one
 * per episode), pushes for instruments not traded dropped at the door, data read by the push schemas
 * (an invalid push is a gap, not an event), freshness on the injected clock, and event channels fresh
 * once subscribed.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { InProcessStreamSource } from '../../src/engine/inProcessStream.ts'
import { InputValidationError } from '../../src/errors.ts'
import type { InProcessStreamHub } from '../../src/mock/stream/inProcessStreamHub.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'
import type { PushEnvelope, StreamPush } from '../../src/perps/stream/schemas.ts'
import { isVenueEvent } from '../../src/perps/stream/streamSource.ts'
import type { StreamGap } from '../../src/perps/stream/streamTypes.ts'
import { seededRandom } from '../../src/random.ts'

/** A hub that hands the pushes the test gives it straight to the one session. */
function fakeHub(turns?: (() => void)[]) {
  let deliver: ((push: PushEnvelope) => void) | undefined
  const subscribed = new Set<string>()
  let credentials: unknown
  const hub: InProcessStreamHub = {
    connect(c) {
      deliver = c.onPush
      credentials = c.credentials
      return {
        owner: c.credentials === undefined ? undefined : '0xowner',
        subscribe: (chs) => {
          for (const ch of chs) subscribed.add(ch)
        },
        unsubscribe: (chs) => {
          for (const ch of chs) subscribed.delete(ch)
        },
        close: () => {
          deliver = undefined
        },
      }
    },
    serve: () => () => undefined,
    enqueue: (h) => (turns === undefined ? h() : void turns.push(h)),
    changed: () => undefined,
    publishNow: () => undefined,
    sessions: 1,
    close: () => undefined,
  }
  const push = (ch: string, sq: number, data: unknown, ts = 0): void => deliver?.({ ch, sq, ts, data })
  return { hub, push, subscribed, credentials: () => credentials }
}

const ticker = (iid: number, idx: string) => ({ iid, idx, mark: idx, nxf: 0 })

let clock: VirtualClock
afterEach(() => clock?.dispose())

function source(traded = new Set([1]), turns?: (() => void)[]) {
  clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
  const f = fakeHub(turns)
  const s = new InProcessStreamSource(f.hub, {
    url: 'in-process:test',
    clock,
    random: seededRandom(1),
    credentials: { proxy: '0xproxy', secret: 'secret' },
    staleAfterMs: (ch) => (ch === 'orders' ? Number.POSITIVE_INFINITY : 3_000),
    acceptInstrument: (iid) => traded.has(iid),
  })
  const pushes: StreamPush[] = []
  const gaps: StreamGap[] = []
  const edges: string[] = []
  s.on('push', (p) => pushes.push(p))
  s.on('gap', (g) => gaps.push(g))
  s.on('fresh', (ch) => edges.push(`fresh ${ch}`))
  s.on('stale', (ch) => edges.push(`stale ${ch}`))
  return { s, f, pushes, gaps, edges }
}

describe('InProcessStreamSource', () => {
  it('refuses unknown channels as the pool does', () => {
    const { s } = source()
    expect(() => s.subscribe(['nonsense::1'])).toThrow(InputValidationError)
  })

  it('delivers typed pushes, drops foreign instruments, reports a skipped sq as one gap', () => {
    const { s, f, pushes, gaps } = source()
    s.subscribe(['tickers::all', 'orders'])
    s.start()
    expect(s.state).toBe('open')
    expect([...f.subscribed].sort()).toEqual(['orders', 'tickers::all'])
    expect(f.credentials()).toEqual({ proxy: '0xproxy', secret: 'secret' })
    f.push('tickers::all', 1, ticker(1, '0.5'))
    f.push('tickers::all', 2, ticker(2, '0.6')) // not traded: dropped at the door
    f.push('tickers::all', 4, ticker(1, '0.7')) // sq 3 skipped
    expect(pushes.map((p) => (p.kind === 'tickers' ? p.data.idx : p.kind))).toEqual(['0.5', '0.7'])
    expect(pushes.every(isVenueEvent)).toBe(true)
    expect(gaps).toEqual([{ channel: 'tickers::all', reason: 'sequence_gap', previous: 2, sq: 4 }])
    expect(s.health().connections[0]?.foreignDropped).toBe(1)
  })

  it('an invalid push is a gap, not an event', () => {
    const { s, f, pushes, gaps } = source()
    s.subscribe(['tickers::all'])
    s.start()
    f.push('tickers::all', 1, { iid: 1 })
    expect(pushes).toEqual([])
    expect(gaps.map((g) => g.reason)).toEqual(['invalid_push'])
  })

  it('is fresh from the first push until silent past its bound; event channels once subscribed', () => {
    const { s, f, edges } = source()
    s.subscribe(['tickers::all', 'orders'])
    s.start()
    expect(s.isFresh('orders')).toBe(true)
    expect(s.isFresh('tickers::all')).toBe(false)
    f.push('tickers::all', 1, ticker(1, '0.5'))
    expect(s.isFresh('tickers::all')).toBe(true)
    clock.set(5_000)
    expect(s.isFresh('tickers::all')).toBe(false)
    expect(edges).toEqual(['fresh orders', 'fresh tickers::all', 'stale tickers::all'])
  })

  it('pays the socket handshake in queue turns: open, auth asked and answered, subscribe asked and answered', () => {
    const turns: (() => void)[] = []
    const { s, f } = source(new Set([1]), turns)
    s.subscribe(['tickers::all', 'orders'])
    s.start()
    const seen: string[] = []
    for (let turn = 1; turns.length > 0; turn++) {
      const now = turns.splice(0, turns.length)
      for (const h of now) h()
      seen.push(
        `${turn}: ${[...f.subscribed].sort().join(',')} ${s.state}${s.isFresh('orders') ? ' orders fresh' : ''}`,
      )
    }
    expect(seen).toEqual([
      '1:  connecting',
      '2: tickers::all connecting',
      '3: tickers::all open',
      '4: orders,tickers::all open',
      '5: orders,tickers::all open orders fresh',
    ])
  })

  it('turns every channel stale and closed at close', async () => {
    const { s, edges } = source()
    s.subscribe(['orders'])
    s.start()
    await s.close()
    expect(s.state).toBe('closed')
    expect(edges).toEqual(['fresh orders', 'stale orders'])
  })
})
