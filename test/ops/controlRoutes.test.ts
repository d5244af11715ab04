/**
 * The control routes over real loopback HTTP (the ops server without a bot): no side effect on GET,
 * a command needs the ops token or the session's CSRF token, a browser's must come from the page's
 * own origin, only JSON is taken, `ops.readOnly` refuses everything, and the ops token beyond
 * loopback guards the session too.
 */
import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/logger.ts'
import { type ControlTarget, createControlRoutes } from '../../src/ops/control/controlRoutes.ts'
import { type RunningOpsServer, startOpsServer } from '../../src/ops/opsServer.ts'

const TOKEN = 'a-token-of-at-least-16-chars'
let server: RunningOpsServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serve(o: { token?: string; readOnly?: boolean } = {}) {
  const runs: Parameters<ControlTarget['run']>[0][] = []
  const target: ControlTarget = {
    run: async (r) => {
      runs.push(r)
      return { ok: true, command: r.command, changed: true, message: `did ${r.command}` }
    },
  }
  server = await startOpsServer({
    port: 0,
    registry: new Registry(),
    getStatus: () => ({ mode: 'dry-run' }) as never,
    isReady: () => ({ ok: true, reasons: [] }),
    logger: createLogger({ destination: { write: () => undefined }, pretty: 'never' }),
    token: o.token,
    control: createControlRoutes({
      target,
      token: o.token,
      readOnly: o.readOnly ?? false,
      instruments: () => ['BTC-USDC'],
    }),
  })
  return { url: server.url, runs }
}

const post = (url: string, path: string, headers: Record<string, string>, body = '{}') =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })

describe('control routes', () => {
  it('takes a command only with the session CSRF token, from the same origin, as JSON; never on GET', async () => {
    const { url, runs } = await serve()
    expect((await fetch(`${url}/control/pause`)).status).toBe(405)
    expect((await post(url, '/control/pause', {})).status).toBe(401)
    expect((await post(url, '/control/pause', { 'x-perpbot-csrf': 'guess' })).status).toBe(401)
    const session = (await (await fetch(`${url}/control/session`)).json()) as {
      csrf: string
      readOnly: boolean
    }
    expect(session).toMatchObject({ readOnly: false, instruments: ['BTC-USDC'] })
    const csrf = { 'x-perpbot-csrf': session.csrf }
    expect((await post(url, '/control/pause', { ...csrf, origin: 'http://evil.example' })).status).toBe(403)
    expect((await post(url, '/control/pause', { ...csrf, 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await post(url, '/control/pause', { ...csrf, origin: 'null' })).status).toBe(403)
    const plain = await fetch(`${url}/control/pause`, {
      method: 'POST',
      headers: { ...csrf, 'content-type': 'text/plain' },
      body: '{}',
    })
    expect(plain.status).toBe(415)
    expect(runs).toEqual([])
    const host = new URL(url).host
    const ok = await post(
      url,
      '/control/pause',
      { ...csrf, origin: `http://${host}`, 'x-perpbot-client': 'dashboard' },
      '{"instrument":"BTC-USDC"}',
    )
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ ok: true, message: 'did pause' })
    expect(runs).toEqual([{ command: 'pause', instrument: 'BTC-USDC', from: 'dashboard 127.0.0.1' }])
    expect((await post(url, '/control/explode', csrf)).status).toBe(404)
  })

  it('with ops.readOnly refuses every command and says so in the session', async () => {
    const { url, runs } = await serve({ readOnly: true })
    const session = (await (await fetch(`${url}/control/session`)).json()) as {
      csrf: string
      readOnly: boolean
    }
    expect(session.readOnly).toBe(true)
    const r = await post(url, '/control/stop', { 'x-perpbot-csrf': session.csrf })
    expect(r.status).toBe(403)
    expect(await r.json()).toMatchObject({ error: 'read_only' })
    expect(runs).toEqual([])
  })

  it('with the ops token: a Bearer command goes; the session and a cookie-less command do not', async () => {
    const { url, runs } = await serve({ token: TOKEN })
    expect((await fetch(`${url}/control/session`)).status).toBe(401)
    expect((await post(url, '/control/resume', { 'x-perpbot-csrf': 'x' })).status).toBe(401)
    const r = await post(url, '/control/resume', {
      authorization: `Bearer ${TOKEN}`,
      'x-perpbot-client': 'cli',
    })
    expect(r.status).toBe(200)
    expect(runs.map((x) => x.from)).toEqual(['cli 127.0.0.1'])
    // The dashboard's cookie reads the session, and with its CSRF token commands.
    const cookie = { cookie: `perpbot_ops_token=${TOKEN}` }
    const session = (await (await fetch(`${url}/control/session`, { headers: cookie })).json()) as {
      csrf: string
    }
    expect((await post(url, '/control/reload', { ...cookie, 'x-perpbot-csrf': session.csrf })).status).toBe(
      200,
    )
  })
})
