/**
 * CPU per venue tick of the bot's socket alone at 1,000 instruments (issue 36, point 4), over real
 * loopback: a child process serves a `ws` server that writes one tick's frames (every ticker, every
 * BBO, the portfolio, in the mock's frame text) corked into one write, as the mock does, when a
 * client asks; this process reads them through each socket factory in turn (one connection each),
 * and counts the CPU from the ask to the tick's last frame handed over (`onMessage`). The socket
 * factories take turns tick by tick (the first one alternates), so the load hits them alike. `undici`
 * is the bot's socket before session 10 (undici's `WebSocket`), kept here as the baseline; `ws` is the
 * bot's (src/perps/stream/socket/socket.ts).
 *
 * With `--client` the frames go on through the bot's stream client and routes (`STREAM_ROUTES`,
 * `botChangeFilter`, the route queue drained at once), as bench/tickRead.bench.ts has them over a
 * fake socket: a tick's whole read over loopback (the portfolio frame is on a channel not subscribed).
 *
 *   node --import tsx bench/socketRead.bench.ts [--instruments 1000] [--ticks 300] [--factory undici|ws]... [--client]
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { WebSocket as UndiciWebSocket } from 'undici'
import { WebSocketServer } from 'ws'
import { createRouteQueue } from '../src/bot/inputs/streams/routeQueue.ts'
import { botChangeFilter, routePush, STREAM_ROUTES } from '../src/bot/inputs/streams/streamRoutes.ts'
import { systemClock } from '../src/clock.ts'
import { type SocketFactory, type StreamSocket, wsSocketFactory } from '../src/perps/stream/socket/socket.ts'
import { StreamClient } from '../src/perps/stream/streamClient.ts'
import { seededRandom } from '../src/random.ts'
import { numberFlag } from './stats.ts'

const argv = process.argv.slice(2)
const instruments = numberFlag('instruments', 1_000)
const ticks = numberFlag('ticks', 300)
const warmTicks = 50
const START_MS = 1_700_000_000_000

function tickFrames(t: number): string[] {
  const ts = START_MS + (t + 1) * 1_000
  const out: string[] = []
  const sq = t + 1
  for (let iid = 1; iid <= instruments; iid++) {
    const idx = (100 + iid + (iid === 1 ? t * 0.01 : 0)).toFixed(2)
    const data = {
      iid,
      idx,
      mark: idx,
      last: idx,
      mid: idx,
      oi: '1250.5',
      fr: '0.0000125',
      nxf: 1_700_003_600_000,
    }
    out.push(`{"ch":"tickers::all","ts":${ts},"sq":${sq * instruments + iid},"data":${JSON.stringify(data)}}`)
  }
  for (let iid = 1; iid <= instruments; iid++) {
    const mid = 100 + iid
    const data = { iid, bp: (mid - 0.01).toFixed(2), bq: '3.5', ap: (mid + 0.01).toFixed(2), aq: '4.25' }
    out.push(`{"ch":"bbo::${iid}","ts":${ts},"sq":${sq},"data":${JSON.stringify(data)}}`)
  }
  out.push(`{"ch":"portfolio","ts":${ts},"sq":${sq},"data":{"positions":[],"withdrawable":"99000"}}`)
  return out
}

/** The bot's socket before session 10 (undici's `WebSocket`, an `EventTarget`): the baseline. */
const undiciSocketFactory: SocketFactory = (url, handlers) => {
  const ws = new UndiciWebSocket(url)
  ws.binaryType = 'arraybuffer'
  const decoder = new TextDecoder()
  ws.addEventListener('open', () => handlers.onOpen())
  ws.addEventListener('message', (ev) => {
    const data: unknown = ev.data
    if (typeof data === 'string') handlers.onMessage(data)
    else if (data instanceof ArrayBuffer) handlers.onMessage(decoder.decode(data))
  })
  ws.addEventListener('error', (ev) => handlers.onError(ev.message || 'websocket error'))
  ws.addEventListener('close', (ev) => handlers.onClose(ev.code, ev.reason))
  return { send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason), bufferedAmount: 0 }
}

if (argv.includes('--serve')) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  wss.on('listening', () => {
    const address = wss.address()
    process.send?.(typeof address === 'object' && address !== null ? address.port : 0)
  })
  wss.on('connection', (ws, req) => {
    const raw = req.socket
    ws.on('message', (m) => {
      const text = m.toString()
      if (text.startsWith('{')) {
        // The stream client's requests (subscriptions): acknowledged, one item per channel.
        const req = JSON.parse(text) as { id: number; chs?: string[] }
        ws.send(JSON.stringify({ id: req.id, data: (req.chs ?? ['']).map(() => ({ status: 'ok' })) }))
        return
      }
      const frames = tickFrames(Number(text))
      raw.cork()
      for (const f of frames) ws.send(f)
      raw.uncork()
    })
  })
  process.on('disconnect', () => process.exit(0))
} else {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', '--instruments', String(instruments)], {
    execArgv: ['--import', 'tsx'],
  })
  const port = await new Promise<number>((resolve) => child.once('message', (p) => resolve(Number(p))))
  const names = argv.flatMap((a, i) => (a === '--factory' ? [argv[i + 1] ?? ''] : []))
  if (names.length === 0) names.push('undici', 'ws')
  const factories = { undici: undiciSocketFactory, ws: wsSocketFactory() }
  const expected = 2 * instruments + 1
  const withClient = argv.includes('--client')
  const ids = Array.from({ length: instruments }, (_, i) => i + 1)
  const traded = new Set(ids)
  interface Conn {
    name: string
    send(t: string): void
    waitTick(): Promise<void>
    cpu: number[]
    bytes: number
  }
  const conns: Conn[] = []
  for (const name of names) {
    const factory = factories[name as keyof typeof factories]
    if (factory === undefined) throw new Error(`unknown factory ${name}`)
    let done: (() => void) | undefined
    let seen = 0
    let opened: () => void = () => {}
    const open = new Promise<void>((r) => {
      opened = r
    })
    const conn: Conn = {
      name,
      cpu: [],
      bytes: 0,
      send: () => {},
      waitTick: () =>
        new Promise<void>((r) => {
          seen = 0
          done = r
        }),
    }
    const counted: SocketFactory = (url, handlers) =>
      factory(url, {
        ...handlers,
        onOpen: () => {
          handlers.onOpen()
          opened()
        },
        onMessage: (text) => {
          conn.bytes += text.length
          handlers.onMessage(text)
          if (text.startsWith('{"ch"') && ++seen === expected) done?.()
        },
      })
    let socket: StreamSocket | undefined
    const capture: SocketFactory = (url, handlers) => {
      socket = counted(url, handlers)
      return socket
    }
    if (withClient) {
      const clock = systemClock
      const later: (() => void)[] = []
      const queue = createRouteQueue({ route: () => {}, schedule: (fn: () => void) => later.push(fn) })
      const targets = {
        now: () => clock.now(),
        traded,
        route: () => {},
        defer: queue.later,
        klinesKept: 0,
        changed: botChangeFilter(() => clock.now(), { staleIndexMs: 15_000, staleMarginMs: 30_000 }),
        touchRenewed: () => {},
        orders: { observe: () => {} },
        account: { observePortfolio: () => {}, observeFill: () => {}, observeWithdrawal: () => {} },
      }
      const c = new StreamClient({
        url: `ws://127.0.0.1:${port}/v1/ws`,
        clock,
        random: seededRandom(1),
        socketFactory: capture,
        limits: { maxSubscriptions: 10_000, maxMessagesPerMinute: 100_000 },
        acceptInstrument: (iid: number) => traded.has(iid),
      })
      c.onPush((push) => {
        routePush(STREAM_ROUTES, push, targets)
        for (let i = 0; i < 100_000 && later.length > 0; i++) later.shift()?.()
      })
      c.subscribe(['tickers::all', ...ids.map((i) => `bbo::${i}`)])
      c.start()
    } else {
      capture(`ws://127.0.0.1:${port}/`, {
        onOpen: () => {},
        onMessage: () => {},
        onClose: () => {},
        onError: (m) => console.error(name, m),
      })
    }
    await open
    // The client's subscriptions acknowledged before the first tick.
    await new Promise((r) => setTimeout(r, 500))
    conn.send = (t) => socket?.send(t)
    conns.push(conn)
  }
  for (let t = 0; t < warmTicks + ticks; t++) {
    for (let k = 0; k < conns.length; k++) {
      const c = conns[(t + k) % conns.length] as Conn
      const wait = c.waitTick()
      const start = process.cpuUsage()
      c.send(String(t))
      await wait
      const used = process.cpuUsage(start)
      if (t >= warmTicks) c.cpu.push((used.user + used.system) / 1_000)
      await new Promise((r) => setTimeout(r, 5))
    }
  }
  for (const c of conns) {
    const s = c.cpu.sort((a, b) => a - b)
    const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN
    const mean = s.reduce((a, b) => a + b, 0) / s.length
    console.log(
      `socketRead ${c.name}${withClient ? ' + stream client and routes' : ''}: ${instruments} instruments, ${ticks} ticks (${expected} frames each): CPU per tick mean ${mean.toFixed(3)} / p50 ${q(0.5).toFixed(3)} / p90 ${q(0.9).toFixed(3)} / max ${q(1).toFixed(3)} ms`,
    )
  }
  child.disconnect()
  process.exit(0)
}
