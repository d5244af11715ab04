/**
 * The frame tap: the channel peeked from a frame's text without parsing it, and a client over real
 * loopback (the mock's WebSocket, stepped clock) that hands every frame to its tap with the receive
 * time, delivers its own channels as usual and drops the tap's channels before parsing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../../src/mock/server.ts'
import { type FrameTap, peekChannel, tapFrame } from '../../../src/perps/stream/frameTap.ts'
import { StreamPool } from '../../../src/perps/stream/streamPool.ts'
import { seededRandom } from '../../../src/random.ts'
import { advance, PROXY, SECRET, startStreamMock, streamClient, until } from './streamHarness.ts'

describe('peekChannel', () => {
  it('reads the envelope’s channel near the start, and nothing from other frames', () => {
    expect(peekChannel('{"ch":"book::12","ts":1,"sq":3,"data":{"b":[],"a":[]}}')).toBe('book::12')
    expect(peekChannel('{ "ts":1,"ch":"tickers::all","sq":1,"data":{}}')).toBe('tickers::all')
    expect(peekChannel('{"id":4,"data":[{"status":"ok"}]}')).toBeUndefined()
    expect(peekChannel('{"status":"err","error":"slow_consumer"}')).toBeUndefined()
    // A channel key far into the frame (inside a large payload) is not the envelope's.
    expect(peekChannel(`{"data":"${'x'.repeat(300)}","ch":"book::1"}`)).toBeUndefined()
    expect(peekChannel('{"ch":"bo\\"ok::1","ts":1}')).toBeUndefined()
    expect(peekChannel('')).toBeUndefined()
  })

  it('tapFrame hands the frame over and says whether only the tap wanted it', () => {
    const seen: [string, number, string | undefined][] = []
    const tap: FrameTap = {
      frame: (t, at, ch) => void seen.push([t, at, ch]),
      owns: (ch) => ch === 'book::1',
    }
    expect(tapFrame(tap, '{"ch":"book::1","ts":1,"sq":1,"data":{}}', 5)).toBe(true)
    expect(tapFrame(tap, '{"ch":"bbo::1","ts":1,"sq":1,"data":{}}', 6)).toBe(false)
    expect(tapFrame(tap, '{"id":1,"data":[]}', 7)).toBe(false)
    expect(seen.map(([, at, ch]) => [at, ch])).toEqual([
      [5, 'book::1'],
      [6, 'bbo::1'],
      [7, undefined],
    ])
  })
})

describe('a client with a tap, over loopback', () => {
  let mock: RunningMock
  beforeEach(async () => {
    mock = await startStreamMock()
  })
  afterEach(async () => {
    await mock.close()
  })

  it('taps every frame with its receive time; the tap’s own channels skip the client', async () => {
    const iid = mock.exchange.instrumentSpecs()[0]?.id ?? 0
    const frames: { ch: string | undefined; at: number }[] = []
    const owned = new Set([`book::${iid}`])
    const { client, events } = streamClient(mock, {
      tap: { frame: (_text, at, ch) => void frames.push({ ch, at }), owns: (ch) => owned.has(ch) },
    })
    try {
      client.subscribe([`bbo::${iid}`, `book::${iid}`])
      client.start()
      await until(() => client.health().channels.every((c) => c.subscribed), 'acks')
      const from = mock.clock.now()
      await advance(mock, 3_000)
      await until(() => frames.filter((f) => f.ch === `book::${iid}`).length >= 3, 'book frames')
      await until(() => events.push.filter((p) => p.kind === 'bbo').length >= 3, 'bbo pushes')
      // The tap saw both channels (and the acks, which name none), stamped on the client's clock.
      expect(frames.some((f) => f.ch === `bbo::${iid}`)).toBe(true)
      expect(frames.some((f) => f.ch === undefined)).toBe(true)
      expect(frames.filter((f) => f.ch !== undefined).every((f) => f.at >= from)).toBe(true)
      // The client parsed and emitted only its own channel.
      expect(events.push.some((p) => p.kind === 'book')).toBe(false)
      expect(client.health().pushes).toBe(events.push.length)
    } finally {
      await client.close()
    }
  })

  it('a pool hands the tap its public sockets only, never the private one', async () => {
    const iid = mock.exchange.instrumentSpecs()[0]?.id ?? 0
    const channels: (string | undefined)[] = []
    const pool = new StreamPool({
      url: mock.wsUrl,
      clock: mock.clock,
      random: seededRandom(3),
      credentials: { proxy: PROXY, secret: SECRET },
      tap: { frame: (_t, _at, ch) => void channels.push(ch), owns: () => false },
    })
    const pushes: string[] = []
    pool.on('push', (p) => void pushes.push(p.ch))
    try {
      pool.subscribe(['portfolio', `bbo::${iid}`])
      pool.start()
      await until(() => pool.state === 'open', 'open')
      await until(
        () => pool.health().connections.every((c) => c.channels.every((ch) => ch.subscribed)),
        'acks',
      )
      await advance(mock, 3_000)
      await until(() => pushes.includes('portfolio') && pushes.includes(`bbo::${iid}`), 'pushes')
      expect(channels).toContain(`bbo::${iid}`)
      expect(channels).not.toContain('portfolio')
    } finally {
      await pool.close()
    }
  })
})
