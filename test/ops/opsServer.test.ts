import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { ConfigError } from '../../src/errors.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { createBotMetrics } from '../../src/ops/metrics.ts'
import { type OpsServerOptions, type RunningOpsServer, startOpsServer } from '../../src/ops/opsServer.ts'
import type { BotStatus } from '../../src/ops/status.ts'
import { createWatchdog, type LoopDelayProbe } from '../../src/ops/watchdog.ts'

const SECRET = 'sk_live_abcdefghijklmnop'

function baseStatus(): BotStatus {
  return {
    mode: 'dry-run',
    startedAt: 1_767_000_000_000,
    uptimeMs: 12_345,
    instruments: [
      {
        symbol: 'BTC-USDC',
        id: 1,
        state: 'active.widened.repricing',
        reason: 'index stale 4s',
        mode: 'widened',
        openOrders: 4,
        lastQuoteAt: 1_767_000_012_000,
        quoteAgeMs: 345,
        stats: { plans: 10, submitted: 9, rejected: 1, unknown: 0 },
      },
    ],
    account: { marginRatio: Number.POSITIVE_INFINITY, inLiquidation: true, pendingWithdrawals: 2 },
    limiter: { budgets: { request: { used: 120, capacity: 1000 }, action: { used: 8, capacity: 5000 } } },
    alerts: [{ key: 'margin', severity: 'critical', title: 'Margin', message: 'ratio high', at: 1 }],
  }
}

describe('startOpsServer (loopback)', () => {
  const servers: RunningOpsServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })

  async function start(overrides: Partial<OpsServerOptions> = {}) {
    const lines: string[] = []
    const metrics = createBotMetrics({ defaultMetrics: false })
    const state = {
      live: { ok: true, reason: 'alive' },
      ready: { ok: false, reasons: ['index stale for BTC-USDC', 'orders not reconciled for ETH-USDC'] },
      status: baseStatus() as BotStatus & Record<string, unknown>,
    }
    const server = await startOpsServer({
      port: 0,
      registry: metrics.registry,
      getStatus: () => state.status,
      isLive: () => state.live,
      isReady: () => state.ready,
      logger: createLogger({ destination: { write: (s: string) => lines.push(s) }, pretty: 'never' }),
      ...overrides,
    })
    servers.push(server)
    return { server, metrics, state, lines }
  }

  it('binds to 127.0.0.1 by default on an ephemeral port and logs where', async () => {
    const { server, lines } = await start()
    expect(server.port).toBeGreaterThan(0)
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
    expect(lines.join('')).toContain('ops server listening')
  })

  it('/livez answers 200 while live and 503 with the reason otherwise', async () => {
    const { server, state } = await start()
    let res = await fetch(`${server.url}/livez`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.json()).toEqual({ status: 'ok', reason: 'alive' })

    state.live = { ok: false, reason: 'stopped: operator' }
    res = await fetch(`${server.url}/livez?verbose=1`)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ status: 'fail', reason: 'stopped: operator' })
  })

  it('/livez asks the watchdog too: a stalled event loop or a silent loop fails it, with the reasons', async () => {
    const clock = new SimulatedClock()
    let delay = 0
    const probe: LoopDelayProbe = {
      enable: () => undefined,
      disable: () => undefined,
      maxDelayMs: () => delay,
      reset: () => {
        delay = 0
      },
    }
    const watchdog = createWatchdog({ clock, stallMs: 4_000, probe })
    watchdog.start()
    watchdog.register('index:BTC', 10_000)
    const { server, state } = await start({ watchdog })
    expect(await (await fetch(`${server.url}/livez`)).json()).toEqual({ status: 'ok', reason: 'alive' })

    clock.increment(10_001)
    let res = await fetch(`${server.url}/livez`)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({
      status: 'fail',
      reason: 'loop "index:BTC" made no progress for 10001 ms (limit 10000 ms)',
    })

    watchdog.beat('index:BTC')
    delay = 6_200
    state.live = { ok: false, reason: 'stopping' }
    res = await fetch(`${server.url}/livez`)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({
      status: 'fail',
      reason: 'stopping; event loop stalled for 6200 ms (limit 4000 ms)',
    })
    watchdog.stop()
  })

  it('refuses to bind beyond loopback without a token (before listening)', async () => {
    const err = await start({ host: '0.0.0.0' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).issues.join('\n')).toContain('PERPBOT_OPS_TOKEN')
  })

  it('with a token, every endpoint but /livez wants it as a Bearer header (401 otherwise)', async () => {
    const token = `${'a'.repeat(20)}TOKEN`
    const { server, lines } = await start({ token })
    const get = (path: string, authorization?: string) =>
      fetch(`${server.url}${path}`, authorization ? { headers: { authorization } } : {})
    expect((await get('/livez')).status).toBe(200)
    for (const path of ['/status', '/metrics', '/readyz', '/admin']) {
      const res = await get(path)
      expect(res.status, path).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="perpbot-ops"')
      expect(await res.json()).toEqual({ error: 'unauthorized' })
    }
    for (const wrong of [
      `Bearer ${token}x`,
      `Bearer ${token.slice(1)}`,
      `Basic ${token}`,
      token,
      'Bearer ',
    ]) {
      expect((await get('/status', wrong)).status, wrong).toBe(401)
    }
    expect((await get('/status', `Bearer ${token}`)).status).toBe(200)
    expect((await get('/metrics', `bearer ${token}`)).status).toBe(200)
    expect((await get('/admin', `Bearer ${token}`)).status).toBe(404)
    expect(lines.join('')).not.toContain(token)
    expect(lines.join('')).toContain('"auth":"bearer"')
  })

  it('/readyz answers 503 with every reason until ready, then 200', async () => {
    const { server, state } = await start()
    let res = await fetch(`${server.url}/readyz`)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({
      status: 'not_ready',
      reasons: ['index stale for BTC-USDC', 'orders not reconciled for ETH-USDC'],
    })
    state.ready = { ok: true, reasons: [] }
    res = await fetch(`${server.url}/readyz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ready', reasons: [] })
  })

  it('a throwing check is a failed check (503), not a 500', async () => {
    const { server } = await start({
      isLive: () => {
        throw new Error('loop wedged')
      },
      isReady: async () => Promise.reject(new Error('no snapshot')),
    })
    const live = await fetch(`${server.url}/livez`)
    expect(live.status).toBe(503)
    expect(await live.json()).toEqual({ status: 'fail', reason: 'liveness check failed: Error: loop wedged' })
    const ready = await fetch(`${server.url}/readyz`)
    expect(ready.status).toBe(503)
    expect(((await ready.json()) as { reasons: string[] }).reasons).toEqual([
      'readiness check failed: Error: no snapshot',
    ])
  })

  it('/metrics serves the bot registry as Prometheus text with its content type', async () => {
    const { server, metrics } = await start()
    metrics.setInstrumentState('BTC-USDC', 'active.normal.quoting')
    const res = await fetch(`${server.url}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe(metrics.registry.contentType)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    expect(text).toContain('# TYPE perpbot_instrument_state gauge')
    expect(text).toContain('perpbot_instrument_state{instrument="BTC-USDC",state="active.normal.quoting"} 1')
  })

  it('/status serves the bot status as JSON, with non-finite numbers kept as strings', async () => {
    const { server } = await start()
    const res = await fetch(`${server.url}/status`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = (await res.json()) as Record<string, unknown>
    const expected = JSON.parse(JSON.stringify(baseStatus())) as Record<string, unknown>
    expect(body).toEqual({
      ...expected,
      account: { ...(expected.account as object), marginRatio: 'Infinity' },
    })
  })

  it('/status drops secret-named keys at any depth and scrubs known secret values', async () => {
    const { server, state } = await start({ secrets: [SECRET, undefined] })
    state.status = {
      ...baseStatus(),
      apiSecret: 'top-level-secret-value',
      details: {
        signer: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', privateKey: `0x${'ab'.repeat(32)}` },
        PERPS_PROXY_SECRET: 'env-style-name',
        alerting: { webhookUrl: 'https://hooks.example/123', webhook_url: 'https://hooks.example/456' },
        headers: { 'polymarket-secret': 'header-secret', Authorization: 'Bearer xyz' },
        note: `last error mentioned ${SECRET} in passing`,
      },
    }
    const text = await (await fetch(`${server.url}/status`)).text()
    for (const leaked of [
      'top-level-secret-value',
      'ab'.repeat(32),
      'env-style-name',
      'hooks.example',
      'header-secret',
      'Bearer xyz',
      SECRET,
    ]) {
      expect(text).not.toContain(leaked)
    }
    const body = JSON.parse(text) as { details: { signer: { address: string }; note: string } }
    expect(body.details.signer.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
    expect(body.details.note).toBe('last error mentioned [redacted] in passing')
  })

  it('answers unknown paths with a 404 JSON body', async () => {
    const { server } = await start()
    const res = await fetch(`${server.url}/admin`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.json()).toEqual({ error: 'not_found', path: '/admin' })
  })

  it('allows only GET and HEAD', async () => {
    const { server } = await start()
    const res = await fetch(`${server.url}/status`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD')
    expect(await res.json()).toEqual({ error: 'method_not_allowed' })
  })

  it('HEAD returns the status and headers without a body', async () => {
    const { server } = await start()
    const res = await new Promise<{ status: number; length: string | undefined; body: string }>(
      (resolve, reject) => {
        const req = request(`${server.url}/readyz`, { method: 'HEAD' }, (r) => {
          let body = ''
          r.on('data', (c: Buffer) => {
            body += c.toString()
          })
          r.on('end', () => resolve({ status: r.statusCode ?? 0, length: r.headers['content-length'], body }))
        })
        req.on('error', reject)
        req.end()
      },
    )
    expect(res.status).toBe(503)
    expect(Number(res.length)).toBeGreaterThan(0)
    expect(res.body).toBe('')
  })

  it('a failing status builder gives a 500 JSON body and a warning log, and the server keeps serving', async () => {
    const { server, lines } = await start({
      getStatus: () => {
        throw new Error('snapshot failed')
      },
    })
    const res = await fetch(`${server.url}/status`)
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: 'internal_error' })
    expect(lines.join('')).toContain('ops request failed')
    expect((await fetch(`${server.url}/livez`)).status).toBe(200)
  })

  it('close() stops listening and is idempotent', async () => {
    const { server } = await start()
    await fetch(`${server.url}/livez`)
    await Promise.all([server.close(), server.close()])
    await expect(fetch(`${server.url}/livez`)).rejects.toThrow()
  })

  it('fails to start on a port already in use', async () => {
    const { server } = await start()
    await expect(start({ port: server.port })).rejects.toMatchObject({ code: 'EADDRINUSE' })
  })
})
