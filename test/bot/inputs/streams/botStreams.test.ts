import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../../src/alerts/alert.ts'
import { createInputGates, STREAM_INPUTS, type StreamInput } from '../../../../src/bot/inputs/inputGates.ts'
import { startStreams } from '../../../../src/bot/inputs/streams/botStreams.ts'
import type { StreamRouteTargets } from '../../../../src/bot/inputs/streams/streamRoutes.ts'
import { createLogger } from '../../../../src/logging/logger.ts'
import type { SocketFactory, SocketHandlers } from '../../../../src/perps/stream/socket/socket.ts'
import { seededRandom } from '../../../../src/random.ts'
import { StreamSettings } from '../../../../src/settings/schema.ts'

/** A venue in memory: acks every auth and subscription; the test pushes by hand. */
function fakeVenue() {
  const sockets: {
    handlers: SocketHandlers
    channels: Set<string>
    closed: boolean
    sq: Map<string, number>
  }[] = []
  const factory: SocketFactory = (_url, handlers) => {
    const s = { handlers, channels: new Set<string>(), closed: false, sq: new Map<string, number>() }
    sockets.push(s)
    queueMicrotask(() => handlers.onOpen())
    return {
      send(text) {
        const frame = JSON.parse(text) as { id: number; req: string; chs?: string[] }
        if (frame.id === 0) return
        if (frame.req === 'sub') for (const ch of frame.chs ?? []) s.channels.add(ch)
        const data = frame.chs ? frame.chs.map(() => ({ status: 'ok' })) : { status: 'ok' }
        queueMicrotask(() => handlers.onMessage(JSON.stringify({ id: frame.id, data })))
      },
      close(code = 1000, reason = '') {
        if (s.closed) return
        s.closed = true
        queueMicrotask(() => handlers.onClose(code, reason))
      },
      bufferedAmount: 0,
    }
  }
  const push = (ch: string, data: unknown, opts: { skip?: number } = {}): void => {
    for (const s of sockets) {
      if (s.closed || !s.channels.has(ch)) continue
      const sq = (s.sq.get(ch) ?? 0) + 1 + (opts.skip ?? 0)
      s.sq.set(ch, sq)
      s.handlers.onMessage(JSON.stringify({ ch, ts: 1, sq, data }))
    }
  }
  const drop = (): void => {
    for (const s of sockets)
      if (!s.closed) {
        s.closed = true
        s.handlers.onClose(1012, 'restart')
      }
  }
  return { factory, sockets, push, drop }
}

const ticker = { iid: 1, idx: '100', mark: '100.1', last: '100', mid: '100', oi: '1', fr: '0', nxf: 1 }
const portfolio = {
  positions: [],
  margin: {
    total_account_value: '1000',
    total_initial_margin: '0',
    total_maintenance_margin: '0',
    total_position_value: '0',
  },
  withdrawable: '1000',
  in_liquidation: false,
  timestamp: 1,
}

async function setup(o: { inputs?: readonly StreamInput[]; settings?: Record<string, unknown> } = {}) {
  const alerts: Alert[] = []
  const clock = new SimulatedClock()
  const lines: string[] = []
  const venue = fakeVenue()
  const sources = createInputGates({ clock, enabled: true, inputs: o.inputs })
  const routed: string[] = []
  const traded = new Set([1])
  const targets: StreamRouteTargets = {
    now: () => clock.now(),
    traded,
    route: (ids, event) => void routed.push(`${event.type}:${ids.join(',')}`),
    klinesKept: 0,
    orders: { observe: () => {} },
    account: { observePortfolio: () => {}, observeFill: () => {}, observeWithdrawal: () => {} },
  }
  const streams = startStreams({
    url: 'ws://127.0.0.1:1/v1/ws',
    credentials: {
      proxy: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      secret: 'not-a-real-secret-0123456789',
    },
    settings: StreamSettings.parse({ silenceMs: 5_000, ...o.settings }),
    clock,
    random: seededRandom(1),
    logger: createLogger({ pretty: 'never', destination: { write: (l: string) => void lines.push(l) } }),
    inputGates: sources,
    targets,
    socketFactory: venue.factory,
    alerts: { send: (a) => void alerts.push(a) },
  })
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await Promise.resolve()
  }
  const advance = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 500) {
      clock.increment(500)
      await settle()
    }
  }
  /** A completed REST read of `input` (what its poller does behind the gate). */
  const read = (input: Parameters<typeof sources.gate>[0]): void => sources.gate(input).begin()()
  await settle()
  return { clock, venue, sources, streams, routed, settle, advance, read, lines, alerts, traded }
}

describe('stream inputs', () => {
  it('opens a public and a private socket and subscribes every input channel', async () => {
    const t = await setup()
    const channels = t.venue.sockets.map((s) => [...s.channels].sort())
    expect(channels).toEqual(
      expect.arrayContaining([
        ['bbo::1', 'statistics::all', 'tickers::all'],
        ['fills', 'notifications', 'orders', 'portfolio', 'withdrawals'],
      ]),
    )
    expect(t.streams.health().state).toBe('open')
    await t.streams.stop()
  })

  it("routes the venue's notifications (one item or several) to the alerts with their severity", async () => {
    const t = await setup()
    t.venue.push('notifications', { id: 1, level: 'critical', message: 'liquidation engine paused' })
    t.venue.push('notifications', [{ id: 2, type: 'info', text: 'funding rate changed' }])
    expect(t.alerts.map((a) => [a.key, a.severity, a.message])).toEqual([
      ['venue-notification:1', 'critical', 'liquidation engine paused'],
      ['venue-notification:2', 'info', 'funding rate changed'],
    ])
    await t.streams.stop()
  })

  it('logs a fall back to polling when a stream drops, but not for the sockets it closes itself at stop', async () => {
    const t = await setup()
    const polling = () => t.lines.filter((l) => l.includes('polling (the stream is down')).length
    t.venue.push('tickers::all', ticker)
    t.read('index')
    expect(t.sources.snapshot().index?.source).toBe('stream')
    t.venue.drop()
    await t.settle()
    const afterDrop = polling()
    expect(afterDrop).toBeGreaterThan(0)
    // Reconnected and fresh again: the stop closes a live stream.
    await t.advance(5_000)
    t.venue.push('tickers::all', ticker)
    t.read('index')
    expect(t.sources.snapshot().index?.source).toBe('stream')
    await t.streams.stop()
    await t.settle()
    expect(polling()).toBe(afterDrop)
  })

  it('subscribes only the inputs in use: no statistics channel when no strategy reads statistics', async () => {
    const t = await setup({ inputs: STREAM_INPUTS.filter((i) => i !== 'statistics') })
    const channels = t.venue.sockets.map((s) => [...s.channels].sort())
    expect(channels).toEqual(
      expect.arrayContaining([
        ['bbo::1', 'tickers::all'],
        ['fills', 'notifications', 'orders', 'portfolio', 'withdrawals'],
      ]),
    )
    expect(Object.keys(t.sources.snapshot()).sort()).toEqual([
      'fills',
      'index',
      'orders',
      'portfolio',
      'withdrawals',
    ])
    await t.streams.stop()
  })

  it('routes pushes, stands inputs down once fresh and resynced, and resumes polling on silence', async () => {
    const t = await setup()
    t.venue.push('tickers::all', ticker)
    expect(t.routed).toEqual(['INDEX:1'])
    expect(t.sources.snapshot().index).toMatchObject({ streamHealthy: true, source: 'poll' })
    t.read('index')
    expect(t.sources.snapshot().index?.source).toBe('stream')
    // Event channels alone are not enough: the private socket's portfolio proves it alive.
    expect(t.sources.snapshot().orders?.streamHealthy).toBe(false)
    t.venue.push('portfolio', portfolio)
    for (const input of ['portfolio', 'orders', 'fills', 'withdrawals'] as const) t.read(input)
    expect(t.sources.snapshot().orders?.source).toBe('stream')
    // Portfolio keeps coming, tickers fall silent: only the index goes back to polling.
    for (let i = 0; i < 7; i++) {
      await t.advance(1_000)
      t.venue.push('portfolio', portfolio)
    }
    expect(t.sources.snapshot().index).toMatchObject({ source: 'poll', streamHealthy: false, resumes: 1 })
    expect(t.sources.snapshot().orders?.source).toBe('stream')
    await t.streams.stop()
  })

  it('a sequence gap resyncs only its input; a dropped socket sends every input back to polling', async () => {
    const t = await setup()
    t.venue.push('tickers::all', ticker)
    t.venue.push('portfolio', portfolio)
    for (const input of ['index', 'portfolio', 'orders', 'fills', 'withdrawals'] as const) t.read(input)
    const before = t.sources.snapshot()
    t.venue.push('portfolio', portfolio, { skip: 2 })
    const after = t.sources.snapshot()
    // One resync read, the source unchanged (issue 24: no stream/poll flip per gap).
    expect(after.portfolio).toMatchObject({
      source: 'stream',
      synced: false,
      resyncs: (before.portfolio?.resyncs ?? 0) + 1,
    })
    expect(after.orders).toMatchObject({ source: 'stream', resyncs: before.orders?.resyncs })
    t.read('portfolio')
    expect(t.sources.snapshot().portfolio).toMatchObject({ source: 'stream', synced: true })
    t.venue.drop()
    await t.settle()
    for (const view of Object.values(t.sources.snapshot())) expect(view.source).toBe('poll')
    // Reconnected (jittered back-off), resubscribed: every input resyncs once before standing down.
    await t.advance(2_000)
    expect(t.venue.sockets.filter((s) => !s.closed)).toHaveLength(2)
    t.venue.push('tickers::all', ticker)
    expect(t.sources.snapshot().index).toMatchObject({ streamHealthy: true, synced: false, source: 'poll' })
    t.read('index')
    expect(t.sources.snapshot().index?.source).toBe('stream')
    await t.streams.stop()
  })

  it('serves an instrument a reload adds: statistics opened for the first that reads them, its bbo where a socket has room', async () => {
    // One public socket of 5 channels: tickers::all and bbo::1 leave room for three more.
    const t = await setup({
      inputs: STREAM_INPUTS.filter((i) => i !== 'statistics'),
      settings: { maxConnections: 2, maxSubscriptionsPerConnection: 5 },
    })
    const publicChannels = () =>
      t.venue.sockets
        .flatMap((s) => [...s.channels])
        .filter((c) => c.includes('::'))
        .sort()
    expect(publicChannels()).toEqual(['bbo::1', 'tickers::all'])
    for (const id of [2, 3, 4]) t.traded.add(id)
    t.sources.use('statistics')
    t.streams.serve({ id: 2, readsStatistics: true })
    t.streams.serve({ id: 3, readsStatistics: true })
    t.streams.serve({ id: 4, readsStatistics: false })
    await t.settle()
    expect(publicChannels()).toEqual(['bbo::1', 'bbo::2', 'bbo::3', 'statistics::all', 'tickers::all'])
    expect(t.lines.filter((l) => l.includes('no room on the public sockets for bbo::4'))).toHaveLength(1)
    // Its pushes reach the statistics gate: fresh, and the stream serves them once a read synced.
    t.venue.push('statistics::all', { iid: 2, vol: '1', open: '1', klines: [] })
    t.read('statistics')
    expect(t.sources.snapshot().statistics).toMatchObject({ streamHealthy: true, source: 'stream' })
    // Served twice: nothing more subscribed.
    t.streams.serve({ id: 2, readsStatistics: true })
    await t.settle()
    expect(publicChannels()).toHaveLength(5)
    await t.streams.stop()
  })
})
