/**
 * The dashboard's controls in headless Chromium against a bare ops server (no bot): with commands on,
 * the bar appears; with `ops.readOnly`, the page shows no bar once its session read has come back,
 * and a command POSTed anyway is refused (403).
 */
import { type Browser, chromium } from 'playwright-core'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/logger.ts'
import { createControlRoutes } from '../../src/ops/control/controlRoutes.ts'
import type { TimelineSource } from '../../src/ops/dashboard/timelineTypes.ts'
import { type RunningOpsServer, startOpsServer } from '../../src/ops/opsServer.ts'
import type { BotStatus } from '../../src/ops/status.ts'
import { CHROMIUM_ARGS, chromiumPath, waitInPage } from '../helpers/chromium.ts'

let browser: Browser | undefined
const servers: RunningOpsServer[] = []

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_ARGS],
  })
}, 30_000)
afterAll(async () => {
  for (const s of servers) await s.close()
  await browser?.close()
})

const timeline: TimelineSource = {
  snapshot: () => ({
    intervalMs: 2_000,
    capacity: 10,
    samples: [],
    board: { botMode: 'dry-run', fills: [], openAlerts: [], recentAlerts: [] },
  }),
  subscribe: () => () => undefined,
}
const status: BotStatus = {
  mode: 'dry-run',
  startedAt: 0,
  uptimeMs: 0,
  instruments: [],
  account: { inLiquidation: false, pendingWithdrawals: 0 },
  limiter: { budgets: {} },
  alerts: [],
}

async function serve(readOnly: boolean): Promise<string> {
  const s = await startOpsServer({
    port: 0,
    registry: new Registry(),
    getStatus: () => status,
    isReady: () => ({ ok: true, reasons: [] }),
    logger: createLogger({ destination: { write: () => undefined }, pretty: 'never' }),
    timeline,
    control: createControlRoutes({
      target: { run: async (r) => ({ ok: true, command: r.command, changed: true, message: 'done' }) },
      token: undefined,
      readOnly,
      instruments: () => ['BTC-USDC'],
    }),
  })
  servers.push(s)
  return s.url
}

/** True once the page's session read has come back and its handlers had their turn. */
const SESSION_READ = `new Promise((done) => {
  const seen = () => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/control/session') && e.responseEnd > 0)
  const wait = () => (seen() ? setTimeout(() => done(true), 200) : setTimeout(wait, 20))
  wait()
})`

describe('dashboard controls and ops.readOnly', () => {
  it('shows the bar when commands are on, none with ops.readOnly', { timeout: 40_000 }, async () => {
    if (!browser) throw new Error('setup failed')
    const page = await browser.newPage()
    await page.goto(`${await serve(false)}/`)
    await page.locator('#controls button[data-command="stop"]').waitFor({ timeout: 10_000 })
    expect(await page.locator('#controls button').count()).toBe(6)

    const url = await serve(true)
    const ro = await browser.newPage()
    await ro.goto(`${url}/`)
    await waitInPage(ro, SESSION_READ)
    expect(await ro.locator('#controls').count()).toBe(0)
    const session = (await (await fetch(`${url}/control/session`)).json()) as { csrf: string }
    const r = await fetch(`${url}/control/stop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-perpbot-csrf': session.csrf },
      body: '{}',
    })
    expect(r.status).toBe(403)
  })
})
