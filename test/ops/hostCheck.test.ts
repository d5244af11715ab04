/**
 * Issue 34, point 7: the ops server answers only its own host names. A page on another name that
 * DNS rebinds to 127.0.0.1 sends that name in `Host` and gets 421 on every path; loopback names, IP
 * literals (kubelet and Prometheus address a pod by its IP) and the configured names are served.
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/logger.ts'
import { createHostCheck, hostName } from '../../src/ops/hostCheck.ts'
import { createBotMetrics } from '../../src/ops/metrics.ts'
import { type RunningOpsServer, startOpsServer } from '../../src/ops/opsServer.ts'
import type { BotStatus } from '../../src/ops/status.ts'

const status: BotStatus = {
  mode: 'dry-run',
  startedAt: 1,
  uptimeMs: 1,
  instruments: [],
  account: { inLiquidation: false, pendingWithdrawals: 0 },
  limiter: { budgets: {} },
  alerts: [],
  details: { proxy: '0xproxyaddress' },
}

function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => {
        body += c.toString('utf8')
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('the ops server answers only its own host names', () => {
  let server: RunningOpsServer
  beforeAll(async () => {
    server = await startOpsServer({
      port: 0,
      registry: createBotMetrics({ defaultMetrics: false }).registry,
      getStatus: () => status,
      isReady: () => ({ ok: true, reasons: [] }),
      logger: createLogger({ level: 'silent', pretty: 'never' }),
      hostNames: ['perpbot-0.perpbot.svc'],
    })
  })
  afterAll(() => server.close())

  it('a rebinding name gets 421 on every path, with nothing of the status', async () => {
    for (const path of ['/status', '/history', '/readyz', '/metrics', '/livez', '/']) {
      const r = await get(server.port, path, `rebind.attacker.example:${server.port}`)
      expect(r.status, path).toBe(421)
      expect(r.body).not.toContain('0xproxy')
    }
  })

  it('loopback names, IP literals and the configured names are served', async () => {
    for (const host of [
      `localhost:${server.port}`,
      `127.0.0.1:${server.port}`,
      `[::1]:${server.port}`,
      '10.1.2.3:9464',
      'app.localhost',
      'PERPBOT-0.perpbot.svc.',
    ]) {
      const r = await get(server.port, '/status', host)
      expect(r.status, host).toBe(200)
      expect(r.body).toContain('0xproxy')
    }
  })

  it('parses Host headers strictly', () => {
    expect(hostName('Example.COM:80')).toBe('example.com')
    expect(hostName('[::1]:9464')).toBe('::1')
    expect(hostName('a b')).toBeUndefined()
    const check = createHostCheck({ bindHost: '0.0.0.0', names: [] })
    expect(check(undefined)).toBe(true)
    expect(check('evil.example')).toBe(false)
    expect(check('localhost.evil.example')).toBe(false)
    expect(check('')).toBe(false)
  })
})
