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
 *   node --import tsx bench/socketRead.bench.ts [--instruments 1000] [--ticks 300] [--factory undici|ws]...
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { WebSocket as UndiciWebSocket } from 'undici'
import { WebSocketServer } from 'ws'
import { type SocketFactory, wsSocketFactory } from '../src/perps/stream/socket/socket.ts'
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
      const frames = tickFrames(Number(m.toString()))
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
    const s = factory(`ws://127.0.0.1:${port}/`, {
      onOpen: () => opened(),
      onMessage: (text) => {
        conn.bytes += text.length
        if (++seen === expected) done?.()
      },
      onClose: () => {},
      onError: (m) => console.error(name, m),
    })
    conn.send = (t) => s.send(t)
    await open
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
      `socketRead ${c.name}: ${instruments} instruments, ${ticks} ticks (${expected} frames each): CPU per tick mean ${mean.toFixed(3)} / p50 ${q(0.5).toFixed(3)} / p90 ${q(0.9).toFixed(3)} / max ${q(1).toFixed(3)} ms`,
    )
  }
  child.disconnect()
  process.exit(0)
}
