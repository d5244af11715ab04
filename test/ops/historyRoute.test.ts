/**
 * `GET /history` on the ops server: the journal's long history for the dashboard. The server parses
 * `since` (a span, Unix ms or an ISO date; a bad one is a 400), hands it to the source and serves its
 * answer; without a journal it says so; it is read-only and behind the token like the dashboard.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/logger.ts'
import { coalescedHistory, type HistoryQuery, parseHistoryQuery } from '../../src/ops/dashboard/history.ts'
import type { TimelineSource } from '../../src/ops/dashboard/timelineTypes.ts'
import { createBotMetrics } from '../../src/ops/metrics.ts'
import { type OpsServerOptions, type RunningOpsServer, startOpsServer } from '../../src/ops/opsServer.ts'

const timeline: TimelineSource = {
  snapshot: () => ({
    intervalMs: 2_000,
    capacity: 900,
    samples: [],
    board: { botMode: 'dry-run', fills: [], openAlerts: [], recentAlerts: [] },
  }),
  subscribe: () => () => undefined,
}

describe('ops server: /history', () => {
  const servers: RunningOpsServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })
  async function start(overrides: Partial<OpsServerOptions>) {
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
      logger: createLogger({ destination: { write: () => undefined }, pretty: 'never' }),
      timeline,
      ...overrides,
    })
    servers.push(server)
    return server
  }

  it('parses since as a span, Unix ms or a date; refuses anything else', () => {
    expect(parseHistoryQuery(null)).toEqual({ spanMs: 7 * 86_400_000 })
    expect(parseHistoryQuery('30m')).toEqual({ spanMs: 1_800_000 })
    expect(parseHistoryQuery('1000d')).toEqual({ spanMs: 90 * 86_400_000 })
    expect(parseHistoryQuery('1764000000000')).toEqual({ since: 1_764_000_000_000 })
    expect(parseHistoryQuery('2026-11-20')).toEqual({ since: Date.UTC(2026, 10, 20) })
    expect(parseHistoryQuery('soon')).toMatchObject({ error: expect.stringContaining("got 'soon'") })
    expect(parseHistoryQuery('0h')).toMatchObject({ error: 'since must be above 0' })
  })

  it('serves the source’s answer for the query, 400 for a bad one, journal:false without one', async () => {
    const asked: HistoryQuery[] = []
    const server = await start({
      history: {
        read: async (q) => {
          asked.push(q)
          return { points: [], fills: [] }
        },
      },
    })
    const r = await fetch(`${server.url}/history?since=24h`)
    expect(r.status).toBe(200)
    expect(r.headers.get('cache-control')).toBe('no-store')
    expect(await r.json()).toEqual({ points: [], fills: [] })
    expect(asked).toEqual([{ spanMs: 86_400_000 }])
    const bad = await fetch(`${server.url}/history?since=yesterday-ish`)
    expect(bad.status).toBe(400)
    expect((await fetch(`${server.url}/history`, { method: 'POST' })).status).toBe(405)
    expect(asked).toHaveLength(1)

    const none = await start({})
    expect(await (await fetch(`${none.url}/history`)).json()).toEqual({ journal: false })
  })

  it('needs the token like the dashboard', async () => {
    const server = await start({
      token: 'a-long-ops-token-for-tests',
      history: { read: async () => ({ points: [] }) },
    })
    expect((await fetch(`${server.url}/history`)).status).toBe(401)
    const ok = await fetch(`${server.url}/history`, {
      headers: { authorization: 'Bearer a-long-ops-token-for-tests' },
    })
    expect(ok.status).toBe(200)
  })

  it('forty concurrent asks for one window are one read; a fifth window at once is 503 busy', async () => {
    let reads = 0
    const held: (() => void)[] = []
    const server = await start({
      history: coalescedHistory({
        read: (q) => {
          reads += 1
          return new Promise((resolve) => held.push(() => resolve({ q })))
        },
      }),
    })
    const same = Array.from({ length: 40 }, () => fetch(`${server.url}/history?since=90d`))
    const others = ['1d', '2d', '3d'].map((d) => fetch(`${server.url}/history?since=${d}`))
    // Every ask has reached the source (or joined a read) before the fifth window is asked.
    while (held.length < 4) await new Promise((r) => setImmediate(r))
    const busy = await fetch(`${server.url}/history?since=4d`)
    expect(busy.status).toBe(503)
    expect(busy.headers.get('retry-after')).toBe('1')
    expect(await busy.json()).toMatchObject({ error: 'busy' })
    for (const release of held) release()
    const answers = await Promise.all([...same, ...others])
    expect(answers.every((r) => r.status === 200)).toBe(true)
    expect(reads).toBe(4)
  })
})
