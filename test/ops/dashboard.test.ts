/**
 * The dashboard's routes on the ops server over real loopback HTTP: the page (with its CSP), uPlot
 * served from the installed package, the event stream (snapshot first, then one message per sample,
 * secrets scrubbed, bounded clients, ended on close), and the token beyond loopback: Bearer, or the
 * cookie set by opening the page once with `?token=` (never logged).
 */
import { createHash } from 'node:crypto'
import { type IncomingMessage, request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { createGunzip } from 'node:zlib'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../src/logging/logger.ts'
import { DASHBOARD_SCRIPT } from '../../src/ops/dashboard/page.ts'
import type {
  TimelineSample,
  TimelineSnapshot,
  TimelineSource,
  TimelineUpdate,
} from '../../src/ops/dashboard/timelineTypes.ts'
import { createBotMetrics } from '../../src/ops/metrics.ts'
import { type OpsServerOptions, type RunningOpsServer, startOpsServer } from '../../src/ops/opsServer.ts'

const SECRET = 'sk_live_abcdefghijklmnop'
const TOKEN = 'ops-token-0123456789abcdef'

const sample = (at: number, reason = 'ok'): TimelineSample => ({
  at,
  instruments: [
    {
      id: 1,
      symbol: 'BTC-USDC',
      state: 'active.normal.quoting',
      reason,
      mode: 'normal',
      index: 70000,
      mark: null,
      bid: 69990,
      ask: 70010,
      position: 0.01,
      openOrders: 2,
    },
  ],
  account: { realizedPnl: 1, unrealizedPnl: 0, fees: 0.1, funding: 0, netPnl: 0.9, marginRatio: 0.1 },
  limiter: { request: { used: 10, capacity: 900 }, action: { used: 2, capacity: 4500 } },
})

/** A timeline the test drives by hand. */
function fakeTimeline(): TimelineSource & { push(u: TimelineUpdate): void; listeners: number } {
  const listeners = new Set<(u: TimelineUpdate) => void>()
  const samples = [sample(1_000), sample(3_000)]
  const snapshot: TimelineSnapshot = {
    intervalMs: 2_000,
    capacity: 900,
    samples,
    board: { botMode: 'dry-run', fills: [], openAlerts: [], recentAlerts: [] },
  }
  return {
    snapshot: () => snapshot,
    subscribe(l) {
      listeners.add(l)
      return () => void listeners.delete(l)
    },
    push(u) {
      for (const l of listeners) l(u)
    },
    get listeners() {
      return listeners.size
    },
  }
}

interface Sse {
  res: IncomingMessage
  events: { event: string; data: unknown }[]
  ended: boolean
  close(): void
}

/** Opens `/events` and parses the stream as it arrives. */
function openEvents(url: string, headers: Record<string, string> = {}): Promise<Sse> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/events`, { headers }, (res) => {
      const sse: Sse = { res, events: [], ended: false, close: () => req.destroy() }
      let buffer = ''
      const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res
      body.setEncoding('utf8')
      body.on('data', (chunk: string) => {
        buffer += chunk
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (event !== undefined && data !== undefined) sse.events.push({ event, data: JSON.parse(data) })
        }
      })
      body.on('end', () => {
        sse.ended = true
      })
      body.on('error', () => {
        sse.ended = true
      })
      resolve(sse)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('ops server: dashboard', () => {
  const servers: RunningOpsServer[] = []
  const streams: Sse[] = []
  const idle: Socket[] = []
  afterEach(async () => {
    for (const s of idle.splice(0)) s.destroy()
    for (const s of streams.splice(0)) s.close()
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })

  async function start(overrides: Partial<OpsServerOptions> = {}) {
    const lines: string[] = []
    const timeline = fakeTimeline()
    const server = await startOpsServer({
      port: 0,
      registry: createBotMetrics({ defaultMetrics: false }).registry,
      getStatus: () => ({
        mode: 'dry-run',
        startedAt: 0,
        uptimeMs: 0,
        instruments: [],
        account: { inLiquidation: false, pendingWithdrawals: 0 },
        limiter: { budgets: { request: { used: 0, capacity: 1 }, action: { used: 0, capacity: 1 } } },
        alerts: [],
      }),
      isReady: () => ({ ok: true, reasons: [] }),
      logger: createLogger({ destination: { write: (s: string) => lines.push(s) }, pretty: 'never' }),
      secrets: [SECRET],
      timeline,
      ...overrides,
    })
    servers.push(server)
    return { server, timeline, lines }
  }
  const events = async (url: string, headers?: Record<string, string>): Promise<Sse> => {
    const s = await openEvents(url, headers)
    streams.push(s)
    return s
  }

  it('serves one self-contained page whose only inline script is allowed by its hash', async () => {
    const { server } = await start()
    const res = await fetch(`${server.url}/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await res.text()
    expect(html).toContain('<script src="assets/uplot.js"></script>')
    expect(html).toContain('<link rel="stylesheet" href="assets/uplot.css">')
    // No address of another host: nothing from a CDN.
    expect(html).not.toMatch(/https?:\/\//)
    const hash = createHash('sha256').update(DASHBOARD_SCRIPT, 'utf8').digest('base64')
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`)
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("connect-src 'self'")
  })

  it('serves uPlot from the installed package', async () => {
    const { server } = await start()
    const js = await fetch(`${server.url}/assets/uplot.js`)
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await js.text()).toContain('uPlot')
    const css = await fetch(`${server.url}/assets/uplot.css`)
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(await css.text()).toContain('.uplot')
    expect((await fetch(`${server.url}/assets/other.js`)).status).toBe(404)
  })

  it('without a timeline there is no dashboard', async () => {
    const { server } = await start({ timeline: undefined })
    expect((await fetch(`${server.url}/`)).status).toBe(404)
    expect((await fetch(`${server.url}/events`)).status).toBe(404)
    expect((await fetch(`${server.url}/assets/uplot.js`)).status).toBe(404)
  })

  it('/events: a snapshot first, then one message per sample (board only when sent), secrets scrubbed', async () => {
    const { server, timeline } = await start()
    const sse = await events(server.url)
    expect(sse.res.statusCode).toBe(200)
    expect(sse.res.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    await vi.waitFor(() => expect(sse.events).toHaveLength(1), { timeout: 2_000, interval: 10 })
    expect(sse.events[0]?.event).toBe('snapshot')
    const snapshot = sse.events[0]?.data as TimelineSnapshot
    expect(snapshot).toMatchObject({ intervalMs: 2_000, capacity: 900 })
    expect(snapshot.samples.map((s) => s.at)).toEqual([1_000, 3_000])

    expect(timeline.listeners).toBe(1)
    timeline.push({ sample: sample(5_000, `leaked ${SECRET}`) })
    timeline.push({
      sample: sample(7_000),
      board: { botMode: 'dry-run', fills: [], openAlerts: [], recentAlerts: [] },
    })
    await vi.waitFor(() => expect(sse.events).toHaveLength(3), { timeout: 2_000, interval: 10 })
    expect(sse.events.map((e) => e.event)).toEqual(['snapshot', 'sample', 'sample'])
    const a = sse.events[1]?.data as TimelineUpdate
    const b = sse.events[2]?.data as TimelineUpdate
    expect(a.sample.at).toBe(5_000)
    expect(a.board).toBeUndefined()
    expect(JSON.stringify(a)).not.toContain(SECRET)
    expect(a.sample.instruments[0]?.reason).toBe('leaked [redacted]')
    expect(b.board?.botMode).toBe('dry-run')

    // The last client gone, the stream stops listening to the timeline.
    sse.close()
    await vi.waitFor(() => expect(timeline.listeners).toBe(0), { timeout: 2_000, interval: 10 })
  })

  it('/events gzipped for a client that accepts it, each message flushed at once', async () => {
    const { server, timeline } = await start()
    const sse = await events(server.url, { 'accept-encoding': 'gzip, deflate, br' })
    expect(sse.res.headers['content-encoding']).toBe('gzip')
    await vi.waitFor(() => expect(sse.events.map((e) => e.event)).toEqual(['snapshot']), {
      timeout: 2_000,
      interval: 10,
    })
    timeline.push({ sample: sample(5_000) })
    await vi.waitFor(() => expect(sse.events.map((e) => e.event)).toEqual(['snapshot', 'sample']), {
      timeout: 2_000,
      interval: 10,
    })
    const update = sse.events[1]?.data as TimelineUpdate
    expect(update.sample).toEqual(sample(5_000))
    await server.close()
    await vi.waitFor(() => expect(sse.ended).toBe(true), { timeout: 2_000, interval: 10 })
  })

  it('bounds the clients: beyond the limit a 503, a freed slot serves again', async () => {
    const { server } = await start({ maxDashboardClients: 2 })
    const a = await events(server.url)
    await events(server.url)
    const refused = await fetch(`${server.url}/events`)
    expect(refused.status).toBe(503)
    expect(await refused.json()).toEqual({ error: 'too_many_clients', limit: 2 })
    a.close()
    await vi.waitFor(
      async () => {
        const c = await events(server.url)
        expect(c.res.statusCode).toBe(200)
      },
      { timeout: 2_000, interval: 20 },
    )
    expect((await fetch(`${server.url}/events`, { method: 'POST' })).status).toBe(405)
  })

  /** A client that asks for the stream and never reads a byte of it. */
  async function idleClient(url: string): Promise<Socket> {
    const { port } = new URL(url)
    const socket = connect(Number(port), '127.0.0.1')
    idle.push(socket)
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.pause()
    socket.write('GET /events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n')
    return socket
  }

  it('eight clients that never read cannot lock the page out: a new one takes the oldest slot', async () => {
    let now = 0
    const { server, timeline } = await start({ dashboardNow: () => now })
    for (let i = 0; i < 8; i++) await idleClient(server.url)
    await vi.waitFor(() => expect(timeline.listeners).toBe(1), { timeout: 2_000, interval: 10 })
    // Served for less than the minimum: a 503 (viewers that just arrived are not bumped).
    await vi.waitFor(async () => expect((await fetch(`${server.url}/events`)).status).toBe(503), {
      timeout: 2_000,
      interval: 20,
    })
    now += 10_000
    const viewer = await events(server.url)
    expect(viewer.res.statusCode).toBe(200)
    await vi.waitFor(() => expect(viewer.events[0]?.event).toBe('snapshot'), { timeout: 2_000, interval: 10 })
  })

  it('drops a client whose backlog has not drained within the bound', async () => {
    let now = 0
    const { server, timeline } = await start({ dashboardNow: () => now, maxDashboardBacklogBytes: 64 << 20 })
    await idleClient(server.url)
    await vi.waitFor(() => expect(timeline.listeners).toBe(1), { timeout: 2_000, interval: 10 })
    // Well under the backlog bound, but more than the socket buffers hold.
    const big = (at: number): TimelineUpdate => ({ sample: sample(at, 'x'.repeat(400_000)) })
    for (let i = 0; i < 16; i++) timeline.push(big(10_000 + i))
    now += 29_000
    timeline.push(big(20_000))
    expect(timeline.listeners).toBe(1)
    now += 1_000
    timeline.push(big(30_000))
    expect(timeline.listeners).toBe(0)
  })

  it('close ends every stream at once', async () => {
    const { server } = await start()
    const streamsOpen = [await events(server.url), await events(server.url)]
    await vi.waitFor(() => expect(streamsOpen.every((s) => s.events.length === 1)).toBe(true), {
      timeout: 2_000,
      interval: 10,
    })
    const t0 = Date.now()
    await server.close()
    // Not held open by the streams' clients (which never hang up): bounded with room for load.
    expect(Date.now() - t0).toBeLessThan(5_000)
    await vi.waitFor(() => expect(streamsOpen.every((s) => s.ended)).toBe(true), {
      timeout: 2_000,
      interval: 10,
    })
  })

  it('with a token: Bearer, or the cookie set by opening `/?token=`; the cookie opens only the dashboard', async () => {
    const { server, lines } = await start({ token: TOKEN })
    expect((await fetch(`${server.url}/`)).status).toBe(401)
    expect((await fetch(`${server.url}/events`)).status).toBe(401)
    expect((await fetch(`${server.url}/assets/uplot.js`)).status).toBe(401)
    expect((await fetch(`${server.url}/?token=wrong-token-0123456789`, { redirect: 'manual' })).status).toBe(
      401,
    )

    const opened = await fetch(`${server.url}/?token=${TOKEN}`, { redirect: 'manual' })
    expect(opened.status).toBe(303)
    expect(opened.headers.get('location')).toBe('/')
    const setCookie = opened.headers.get('set-cookie') ?? ''
    expect(setCookie).toBe(`perpbot_ops_token=${TOKEN}; Path=/; HttpOnly; SameSite=Strict`)
    const cookie = setCookie.split(';')[0] ?? ''

    expect((await fetch(`${server.url}/`, { headers: { cookie } })).status).toBe(200)
    // A token in the address bar is always moved to the cookie, even for a page already allowed.
    expect(
      (await fetch(`${server.url}/?token=${TOKEN}`, { headers: { cookie }, redirect: 'manual' })).status,
    ).toBe(303)
    expect((await fetch(`${server.url}/assets/uplot.css`, { headers: { cookie } })).status).toBe(200)
    const viaCookie = await events(server.url, { cookie })
    expect(viaCookie.res.statusCode).toBe(200)
    const viaBearer = await events(server.url, { authorization: `Bearer ${TOKEN}` })
    expect(viaBearer.res.statusCode).toBe(200)
    expect((await fetch(`${server.url}/`, { headers: { cookie: 'perpbot_ops_token=nope' } })).status).toBe(
      401,
    )
    // The cookie is for the page; /status and /metrics still want the header.
    expect((await fetch(`${server.url}/status`, { headers: { cookie } })).status).toBe(401)
    expect((await fetch(`${server.url}/metrics?token=${TOKEN}`)).status).toBe(401)
    expect(lines.join('\n')).not.toContain(TOKEN)
  })
})
