/**
 * The stream client over a fake socket (every frame it sends is recorded; the test plays the
 * server): frame shapes, ids, invalid input, and the rules that loopback tests cannot force.
 */
import { describe, expect, it, vi } from 'vitest'
import { VirtualClock } from '../../../src/mock/virtualClock.ts'
import type { StreamPush } from '../../../src/perps/stream/schemas.ts'
import type { SocketHandlers, StreamSocket } from '../../../src/perps/stream/socket/socket.ts'
import { StreamClient } from '../../../src/perps/stream/streamClient.ts'
import { StreamProtocolError } from '../../../src/perps/stream/streamErrors.ts'
import { seededRandom } from '../../../src/random.ts'
import { record } from './streamHarness.ts'

class FakeServer {
  sent: unknown[] = []
  handlers: SocketHandlers | undefined
  opened = 0
  factory = (_url: string, handlers: SocketHandlers): StreamSocket => {
    this.handlers = handlers
    this.opened++
    return {
      send: (text) => this.sent.push(JSON.parse(text)),
      close: () => {},
      bufferedAmount: 0,
    }
  }
  reply(v: unknown): void {
    this.handlers?.onMessage(typeof v === 'string' ? v : JSON.stringify(v))
  }
}

const clock = new VirtualClock({ mode: 'stepped', startMs: 1_000_000 })

function setup(creds = false) {
  const server = new FakeServer()
  const client = new StreamClient({
    url: 'ws://127.0.0.1:1/v1/ws',
    clock,
    random: seededRandom(1),
    socketFactory: server.factory,
    credentials: creds
      ? { proxy: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', secret: 's3cret' }
      : undefined,
  })
  return { server, client, events: record(client) }
}

describe('StreamClient frames', () => {
  it('sends auth then one sub, with ids counting from 1, and pings with id 0 every 25 s', () => {
    const { server, client } = setup(true)
    client.subscribe(['orders', 'tickers::all'])
    client.start()
    server.handlers?.onOpen()
    expect(server.sent).toEqual([
      {
        id: 1,
        req: 'post',
        op: { type: 'auth', args: { proxy: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', secret: 's3cret' } },
      },
    ])
    server.reply({ id: 1, data: { status: 'ok' } })
    expect(server.sent[1]).toEqual({ id: 2, req: 'sub', chs: ['orders', 'tickers::all'] })
    server.reply({ id: 2, data: [{ status: 'ok' }, { status: 'ok' }] })
    clock.advance(25_000)
    expect(server.sent[2]).toEqual({ id: 0, req: 'post', op: { type: 'ping' } })
    server.reply({ id: 0, data: { status: 'ok', ts: 1 } })
    client.unsubscribe(['tickers::all'])
    expect(server.sent[3]).toEqual({ id: 3, req: 'unsub', chs: ['tickers::all'] })
    void client.close()
  })

  it('rejects a non-ws URL', () => {
    expect(() => new StreamClient({ url: 'http://127.0.0.1/v1/ws', clock, random: seededRandom(1) })).toThrow(
      /ws:\/\/ or wss:\/\//,
    )
  })
})

describe('StreamClient inbound', () => {
  it('reports junk and invalid pushes, treats an invalid push as a gap, and survives a throwing listener', () => {
    const { server, client, events } = setup()
    client.subscribe(['bbo::1'])
    client.start()
    server.handlers?.onOpen()
    server.reply({ id: 1, data: [{ status: 'ok' }] })
    client.onPush(() => {
      throw new Error('listener bug')
    })
    const bbo = (sq: number, bp: unknown) => ({
      ch: 'bbo::1',
      ts: 5,
      sq,
      data: { iid: 1, bp, bq: '1', ap: '2', aq: '1' },
    })
    server.reply(bbo(1, '1.5'))
    server.reply('not json')
    server.reply({ hello: 'world' })
    server.reply(bbo(2, 1.5))
    server.reply(bbo(3, '1.6'))
    expect(events.push.map((p) => p.sq)).toEqual([1, 3])
    // Malformed frames are reported at most once per log interval (rateLimitedLog.ts): the first one here.
    expect(events.error.map((e) => e instanceof StreamProtocolError)).toEqual([true])
    expect(events.gap).toEqual([{ channel: 'bbo::1', reason: 'invalid_push', sq: 2 }])
    // Pushes on a channel no longer wanted are ignored.
    client.unsubscribe(['bbo::1'])
    server.reply(bbo(4, '1.7'))
    expect(events.push).toHaveLength(2)
    void client.close()
  })

  it('backs off with growing jittered delays while the server stays away, resets after a good subscription, and reports only a real reconnect', () => {
    const { server, client, events } = setup()
    client.subscribe(['bbo::1'])
    client.start()
    const delays: number[] = []
    for (let attempt = 0; attempt < 6; attempt++) {
      const before = server.opened
      server.handlers?.onClose(1006, '')
      let waited = 0
      while (server.opened === before && waited < 60_000) {
        clock.advance(10)
        waited += 10
      }
      delays.push(waited)
    }
    expect(delays.every((d, i) => d <= Math.min(250 * 2 ** i, 30_000) + 10)).toBe(true)
    expect(client.health().reconnects).toBe(6)
    server.handlers?.onOpen()
    server.reply({ id: server.sent.length, data: [{ status: 'ok' }] })
    // Never open before: nothing to resync.
    expect(events.gap).toEqual([])
    // The acked subscription reset the back-off: the next drop waits at most 250 ms again.
    const before = server.opened
    server.handlers?.onClose(1006, '')
    clock.advance(250)
    expect(server.opened).toBe(before + 1)
    server.handlers?.onOpen()
    server.reply({ id: server.sent.length, data: [{ status: 'ok' }] })
    expect(events.gap).toEqual([{ channel: 'bbo::1', reason: 'reconnect' }])
    void client.close()
  })
})

describe('StreamClient per-push work', () => {
  const tick = (idx: string) => ({
    iid: 1,
    idx,
    mark: '100.6',
    last: '100.4',
    mid: '100.5',
    oi: '10',
    fr: '0.0001',
    nxf: 9_000,
  })

  function opened(
    options: { yieldAfter?: (p: StreamPush) => boolean; schedule?: (fn: () => void) => void } = {},
  ) {
    const server = new FakeServer()
    const client = new StreamClient({
      url: 'ws://127.0.0.1:1/v1/ws',
      clock,
      random: seededRandom(1),
      socketFactory: server.factory,
      ...options,
    })
    const events = record(client)
    client.subscribe(['tickers::all'])
    client.start()
    server.handlers?.onOpen()
    server.reply({ id: 1, data: [{ status: 'ok' }] })
    return { server, client, events }
  }

  it('an unchanged entry reuses the value its schema accepted; a changed or invalid one is parsed again', () => {
    const { server, client, events } = opened()
    server.reply({ ch: 'tickers::all', ts: 1, sq: 1, data: tick('100') })
    server.reply({ ch: 'tickers::all', ts: 2, sq: 2, data: tick('100') })
    server.reply({ ch: 'tickers::all', ts: 3, sq: 3, data: tick('101') })
    server.reply({ ch: 'tickers::all', ts: 4, sq: 4, data: { ...tick('101'), idx: 101 } })
    const [a, b, c] = events.push
    expect(events.push).toHaveLength(3)
    expect(b).toMatchObject({ ts: 2, sq: 2 })
    expect(b?.data).toBe(a?.data)
    expect(c?.data).toMatchObject({ idx: '101' })
    expect(events.gap).toEqual([{ channel: 'tickers::all', reason: 'invalid_push', sq: 4 }])
    void client.close()
  })

  it("a frame in the venue's spelling whose data text repeats its key's last is read without parsing, with its own ts and sq", () => {
    const yields: number[] = []
    const { server, client, events } = opened({
      yieldAfter: (p) => {
        yields.push(p.sq)
        return false
      },
    })
    const parse = vi.spyOn(JSON, 'parse')
    try {
      server.reply({ ch: 'tickers::all', ts: 1, sq: 1, data: tick('100') })
      server.reply({ ch: 'tickers::all', ts: 2, sq: 2, data: { ...tick('100'), iid: 2 } })
      const parsedAtFirst = parse.mock.calls.length
      server.reply({ ch: 'tickers::all', ts: 3, sq: 3, data: tick('100') })
      server.reply({ ch: 'tickers::all', ts: 4, sq: 4, data: { ...tick('100'), iid: 2 } })
      expect(parse.mock.calls.length).toBe(parsedAtFirst)
      // A → B → A: the change and the change back are parsed, and each is a change (asked to yield).
      server.reply({ ch: 'tickers::all', ts: 5, sq: 5, data: tick('101') })
      server.reply({ ch: 'tickers::all', ts: 6, sq: 6, data: tick('100') })
      expect(parse.mock.calls.length).toBe(parsedAtFirst + 2)
      // The same data spelled otherwise (sq before ts): parsed, and unchanged.
      server.reply(`{"ch":"tickers::all","sq":7,"ts":7,"data":${JSON.stringify(tick('100'))}}`)
      expect(parse.mock.calls.length).toBe(parsedAtFirst + 3)
      // A gap is still a gap on a repeat.
      server.reply({ ch: 'tickers::all', ts: 9, sq: 9, data: { ...tick('100'), iid: 2 } })
    } finally {
      parse.mockRestore()
    }
    expect(events.push.map((p) => [p.ts, p.sq, p.kind === 'tickers' ? p.data.iid : undefined])).toEqual([
      [1, 1, 1],
      [2, 2, 2],
      [3, 3, 1],
      [4, 4, 2],
      [5, 5, 1],
      [6, 6, 1],
      [7, 7, 1],
      [9, 9, 2],
    ])
    expect(events.push[2]?.data).toBe(events.push[0]?.data)
    expect(events.push[3]?.data).toBe(events.push[1]?.data)
    expect(yields).toEqual([1, 2, 5, 6])
    expect(events.gap).toEqual([{ channel: 'tickers::all', reason: 'sequence_gap', previous: 7, sq: 9 }])
    void client.close()
  })

  it('after a changed push that asks to yield, the frames still to come wait for the next turn', () => {
    const due: (() => void)[] = []
    const { server, client, events } = opened({
      yieldAfter: () => true,
      schedule: (fn) => void due.push(fn),
    })
    server.reply({ ch: 'tickers::all', ts: 1, sq: 1, data: tick('100') })
    server.reply({ ch: 'tickers::all', ts: 2, sq: 2, data: tick('100') })
    expect(events.push.map((p) => p.sq)).toEqual([1])
    for (const fn of due.splice(0)) fn()
    expect(events.push.map((p) => p.sq)).toEqual([1, 2])
    // The repeat changed nothing: no yield, the next frame is handled at once.
    server.reply({ ch: 'tickers::all', ts: 3, sq: 3, data: tick('100') })
    expect(events.push.map((p) => p.sq)).toEqual([1, 2, 3])
    void client.close()
  })
})
