/**
 * The stream client against a hostile venue (a fake socket; the test plays the server, on a stepped
 * clock): a flood of fresh instrument ids cannot grow the heap, a gap on every push and a rotation of
 * malformed frames cannot flood the log or the resync path, and the frames the venue's own docs show
 * (one fill as an object, notifications) are read.
 */
import v8 from 'node:v8'
import vm from 'node:vm'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../../src/logging/logger.ts'
import { VirtualClock } from '../../../src/mock/virtualClock.ts'
import type { SocketHandlers, StreamSocket } from '../../../src/perps/stream/socket/socket.ts'
import { StreamClient, type StreamClientOptions } from '../../../src/perps/stream/streamClient.ts'
import { seededRandom } from '../../../src/random.ts'
import { record } from './streamHarness.ts'

class FakeServer {
  handlers: SocketHandlers | undefined
  factory = (_url: string, handlers: SocketHandlers): StreamSocket => {
    this.handlers = handlers
    return { send: () => {}, close: () => {}, bufferedAmount: 0 }
  }
  reply(v: unknown): void {
    this.handlers?.onMessage(typeof v === 'string' ? v : JSON.stringify(v))
  }
}

/** The project's logger writing into an array (one parsed JSON object per line). */
function lineLogger() {
  const lines: Record<string, unknown>[] = []
  const logger = createLogger({
    level: 'info',
    pretty: 'never',
    destination: {
      write(line: string) {
        lines.push(JSON.parse(line) as Record<string, unknown>)
      },
    },
  })
  return { lines, logger }
}

function setup(extra: Partial<StreamClientOptions> = {}, creds = false, keepEvents = true) {
  const clock = new VirtualClock({ mode: 'stepped', startMs: 1_000_000 })
  const server = new FakeServer()
  const { lines, logger } = lineLogger()
  const client = new StreamClient({
    url: 'ws://127.0.0.1:1/v1/ws',
    clock,
    random: seededRandom(1),
    socketFactory: server.factory,
    logger,
    credentials: creds
      ? { proxy: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', secret: 's3cret' }
      : undefined,
    ...extra,
  })
  // The flood test counts pushes instead of keeping them: the recorder itself would grow the heap.
  return { clock, server, client, lines, events: keepEvents ? record(client) : undefined }
}

function gc(): () => void {
  v8.setFlagsFromString('--expose-gc')
  return vm.runInNewContext('gc') as () => void
}

const ticker = (iid: number, sq: number) => ({
  ch: 'tickers::all',
  ts: 5,
  sq,
  data: { iid, idx: '100', mark: '100.1', last: '100', mid: '100.05', oi: '3', fr: '0.0001', nxf: 99 },
})

describe('bounded stream memory', () => {
  it('200,000 pushes of fresh instrument ids leave the heap within a few MB of its baseline', () => {
    const collect = gc()
    const run = (accept: ((iid: number) => boolean) | undefined, n: number) => {
      const { server, client } = setup({ acceptInstrument: accept }, false, false)
      let pushes = 0
      client.onPush(() => {
        pushes++
      })
      client.subscribe(['tickers::all'])
      client.start()
      server.handlers?.onOpen()
      server.reply({ id: 1, data: [{ status: 'ok' }] })
      collect()
      const before = process.memoryUsage().heapUsed
      for (let i = 1; i <= n; i++) server.handlers?.onMessage(JSON.stringify(ticker(1_000 + i, i)))
      collect()
      const grownMb = (process.memoryUsage().heapUsed - before) / 1e6
      const h = client.health()
      void client.close()
      return { grownMb, pushes, foreign: h.foreignDropped }
    }
    // With the caller's allow-list (the bot trades ids 1..3): every fresh id is dropped at the door.
    const guarded = run((iid) => iid <= 3, 200_000)
    // Without one, the per-key cache is capped (2,048 per channel, pushDataCache.ts) and cleared when full.
    const capped = run(undefined, 50_000)
    console.log(
      `stream flood: 200,000 fresh-id pushes with the allow-list → heap after GC +${guarded.grownMb.toFixed(1)} MB; 50,000 without it (cache capped) → +${capped.grownMb.toFixed(1)} MB`,
    )
    expect(guarded.pushes).toBe(0)
    expect(guarded.foreign).toBe(200_000)
    expect(guarded.grownMb).toBeLessThan(5)
    expect(capped.pushes).toBe(50_000)
    expect(capped.grownMb).toBeLessThan(5)
  }, 60_000)
})

describe('a log the venue cannot flood', () => {
  it('a gap on every push for 10 s and a rotation of nine malformed frames give a few dozen lines and one resync per hold', () => {
    const { clock, server, client, lines, events: ev } = setup({ gapHoldMs: 5_000, logIntervalMs: 10_000 })
    if (ev === undefined) expect.unreachable()
    const events = ev
    client.subscribe(['bbo::1'])
    client.start()
    server.handlers?.onOpen()
    server.reply({ id: 1, data: [{ status: 'ok' }] })
    const malformed: unknown[] = [
      'not json',
      '{"half":',
      { hello: 'world' },
      { ch: 'bbo::1', ts: 5, sq: 'x', data: {} },
      { ch: 'bbo::1', ts: 5, data: {} },
      { ch: 'nope::1', ts: 5, sq: 1, data: {} },
      42,
      [],
      { status: 'err', error: 'slow_consumer' },
    ]
    const linesBefore = lines.length
    let sq = 0
    // 10 s of bot time at 20 pushes per 10 ms (2,000 a second): every push skips a sequence number.
    for (let t = 0; t < 10_000; t += 10) {
      for (let k = 0; k < 20; k++) {
        sq += 2
        server.reply({ ch: 'bbo::1', ts: 5, sq, data: { iid: 1, bp: '1', bq: '1', ap: '2', aq: '1' } })
        server.reply(malformed[(t + k) % malformed.length])
      }
      clock.advance(10)
    }
    const written = lines.length - linesBefore
    console.log(
      `hostile stream: 20,000 gapped pushes + 20,000 malformed frames in 10 s → ${written} log lines, ${events.gap.length} gap signals, ${events.error.length} error events`,
    )
    expect(written).toBeLessThanOrEqual(36)
    // One gap signal per 5 s hold (the first at once, then a trailing one per hold): never one per push.
    expect(events.gap.length).toBeLessThanOrEqual(3)
    expect(events.gap.length).toBeGreaterThanOrEqual(2)
    // The pushes themselves still arrive: the bot keeps its inputs.
    expect(events.push.length).toBe(20_000)
    // Every kind's summary says how much it held back.
    expect(lines.some((l) => typeof l.suppressed === 'number' && l.suppressed > 0)).toBe(true)
    void client.close()
  }, 30_000)

  it('alternating kinds each keep their own window: one line per kind per interval', () => {
    const { clock, server, client, lines } = setup({ logIntervalMs: 1_000 })
    client.start()
    server.handlers?.onOpen()
    const before = lines.length
    for (let i = 0; i < 1_000; i++) {
      server.reply(i % 2 === 0 ? 'not json' : { status: 'err', error: 'x' })
      if (i % 100 === 99) clock.advance(100)
    }
    clock.advance(1_000)
    // 1 s of alternation: 2 kinds × (first line + summary at the interval's end), then their last summaries.
    expect(lines.length - before).toBeLessThanOrEqual(8)
    void client.close()
  })
})

describe('frames the venue documents', () => {
  it('the notifications resync frame (bindings 0.10.0) is a gap to resync from, not a malformed push', () => {
    const { server, client, lines, events: ev } = setup({}, true)
    if (ev === undefined) expect.unreachable()
    client.subscribe(['notifications'])
    client.start()
    server.handlers?.onOpen()
    server.reply({ id: 1, data: { status: 'ok' } })
    server.reply({ id: 2, data: { status: 'ok' } })
    const note = (sq: number) => ({
      ch: 'notifications',
      ts: 8,
      sq,
      data: {
        id: '7b1c3f0e-3a5e-4c1e-9a43-0d6c1c1f2a11',
        type: 'limit_order_canceled',
        instrument_id: 3,
        side: 'long',
        size: '2',
        price: '149.5',
      },
    })
    server.reply(note(1))
    server.reply({ ch: 'notifications', ts: 9, sq: 5, type: 'resync' })
    server.reply(note(6))
    // One gap, the venue's own resync, then the channel goes on at the new baseline (no second gap).
    expect(ev.gap.map((g) => [g.reason, g.previous, g.sq])).toEqual([['resync', 1, 5]])
    expect(ev.push.filter((p) => p.kind === 'notifications')).toHaveLength(2)
    expect(
      lines.some((l) => String(l.msg).includes('malformed') || String(l.msg).includes('invalid push')),
    ).toBe(false)
    void client.close()
  })

  it('reads a fills frame whose data is one object, and typed notifications', () => {
    const { server, client, events: ev } = setup({}, true)
    if (ev === undefined) expect.unreachable()
    const events = ev
    client.subscribe(['fills', 'notifications'])
    client.start()
    server.handlers?.onOpen()
    server.reply({ id: 1, data: { status: 'ok' } })
    server.reply({ id: 2, data: [{ status: 'ok' }, { status: 'ok' }] })
    const fill = {
      tid: 9,
      oid: 3,
      iid: 1,
      side: 'short',
      p: '.5',
      qty: '1e-3',
      taker: false,
      fee: '-0.0001',
      fea: 'pUSD',
      psz: '+1',
      pep: '1.',
      pnl: '0',
      liq: false,
      ts: 7,
      adl: false,
    }
    server.reply({ ch: 'fills', ts: 7, sq: 1, data: fill })
    server.reply({
      ch: 'notifications',
      ts: 8,
      sq: 1,
      data: { type: 'margin_call', level: 'warning', message: 'margin ratio above 80%' },
    })
    expect(events.gap).toEqual([])
    const fills = events.push.find((p) => p.kind === 'fills')
    if (fills?.kind !== 'fills') expect.unreachable()
    expect(fills.data).toEqual([
      expect.objectContaining({ tid: 9, p: '0.5', qty: '0.001', psz: '1', pep: '1' }),
    ])
    const note = events.push.find((p) => p.kind === 'notifications')
    if (note?.kind !== 'notifications') expect.unreachable()
    expect(note.data).toEqual([
      {
        id: undefined,
        kind: 'margin_call',
        severity: 'warning',
        text: 'margin ratio above 80%',
        ts: undefined,
        alert: true,
        details: {},
      },
    ])
    void client.close()
  })
})
