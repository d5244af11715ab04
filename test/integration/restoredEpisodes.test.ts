/**
 * A restarted bot's open-alerts board shows the episodes its account watch restored from the state
 * journal, and nothing hears them again: the real bot (startBot, live-style credentials, so the watch
 * keeps its episodes across restarts) starts over loopback against the mock with a previous run's state
 * file (`account-watch-<proxy>.json` in `ops.stateDir`) holding a margin warning and a pending withdrawal
 * already warned about. The portfolio reads fail (the mock answers 500), so nothing observed closes the
 * margin episode while the test looks: the dashboard's board (`/events`) lists both, `/status` says
 * warning, and no sink, log line, metric or webhook post carries them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import { startBot } from '../../src/bot/startBot.ts'
import { resolveStrategies } from '../../src/bot/startup/resolveConfig.ts'
import { systemClock } from '../../src/clock.ts'
import { createLogger, SecretBag } from '../../src/logging/logger.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import type { TimelineSnapshot } from '../../src/ops/dashboard/timelineTypes.ts'
import { seededRandom } from '../../src/random.ts'
import { loadSettings } from '../../src/settings/load.ts'
import { registerMockProxy } from '../helpers/mockAccount.ts'

let mock: RunningMock
let dir: string

beforeAll(async () => {
  mock = await startMockServer({
    port: 0,
    seed: 5,
    faults: { rules: [{ match: { endpoint: 'getPortfolio' }, error500: 1 }] },
  })
  dir = mkdtempSync(join(tmpdir(), 'perpbot-restored-'))
})
afterAll(async () => {
  await mock.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The dashboard's first `/events` message: everything the timeline holds, the board included. */
function firstEvent(url: string): Promise<{ event: string; data: TimelineSnapshot }> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/events`, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
        const end = text.indexOf('\n\n')
        if (end < 0) return
        const fields = Object.fromEntries(
          text
            .slice(0, end)
            .split('\n')
            .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
        )
        req.destroy()
        resolve({ event: fields.event ?? '', data: JSON.parse(fields.data ?? 'null') })
      })
    })
    req.on('error', reject)
  })
}

describe('episodes restored at a restart', () => {
  it("the board shows the previous run's margin warning and pending withdrawal; no sink hears them", {
    timeout: 60_000,
  }, async () => {
    const account = await registerMockProxy(mock.url, 'restart')
    const proxy = privateKeyToAccount(account.key).address.toLowerCase()
    const createdAt = Date.now() - 3 * 3_600_000
    writeFileSync(
      join(dir, `account-watch-${proxy}.json`),
      JSON.stringify({
        marginLevel: 'warning',
        withdrawals: [[77, { status: 'pending', createdAt, pendingAlerted: true, terminalAlerted: false }]],
      }),
    )
    const posts: string[] = []
    const hook = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => {
        body += c.toString()
      })
      req.on('end', () => {
        posts.push(body)
        res.end('ok')
      })
    })
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r))
    const { settings, secrets } = loadSettings({
      configDir: 'config',
      mode: 'dry-run',
      overrides: {
        'ops.port': 0,
        'ops.stateDir': dir,
        'streams.enabled': false,
        'alerts.webhook.inDryRun': true,
        'alerts.webhook.minSeverity': 'info',
        'logging.level': 'info',
        instruments: [
          { symbol: 'BTC-USDC', strategy: 'index-peg', params: { size: '0.01', positionCap: '0.2' } },
        ],
      },
      env: { ALERT_WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook` },
    })
    const lines: string[] = []
    const sunk: Alert[] = []
    const bot = await startBot({
      settings,
      secrets: {
        ...secrets,
        PERPS_PROXY_PRIVATE_KEY: account.key,
        PERPS_PROXY_SECRET: account.credentials.secret,
      },
      logger: createLogger({ destination: { write: (l: string) => void lines.push(l) }, pretty: 'never' }),
      secretBag: new SecretBag([account.key, account.credentials.secret]),
      strategies: await resolveStrategies(settings),
      clock: systemClock,
      random: seededRandom(7),
      perpsUrl: mock.url,
      catalogueUrl: mock.url,
      selfProvision: false,
      alertSinks: [{ send: (a) => void sunk.push(a) }],
    })
    let stopped = false
    try {
      if (bot.opsUrl === undefined) throw new Error('the bot serves no ops surface')
      const { event, data } = await firstEvent(bot.opsUrl)
      expect(event).toBe('snapshot')
      expect(
        data.board.openAlerts
          .map((a) => [a.key, a.severity, a.title])
          .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      ).toEqual([
        ['margin', 'warning', 'Margin ratio warning (open before the restart)'],
        ['withdrawal:77', 'warning', 'Withdrawal pending too long (open before the restart)'],
      ])
      const status = (await (await fetch(`${bot.opsUrl}/status`)).json()) as {
        account?: { marginLevel?: string; pendingWithdrawals?: number }
      }
      // The mock's account has a pending withdrawal of its own beside the restored one.
      expect(status.account?.marginLevel).toBe('warning')
      expect(status.account?.pendingWithdrawals).toBeGreaterThanOrEqual(1)
      expect(lines.some((l) => l.includes('restored alert episodes from the state journal: 2 open'))).toBe(
        true,
      )
      // Not counted as raised: the alerts counter has no sample at all.
      const metrics = await (await fetch(`${bot.opsUrl}/metrics`)).text()
      expect(metrics).toContain('alerts_total')
      expect(metrics).not.toMatch(/^\w*alerts_total\{/m)
      const report = await bot.stop('test over')
      stopped = true
      expect(report).toBeDefined()
      // Heard by nobody: the sinks, the run's alerts, the log, the webhook (flushed at stop). Nothing
      // else was raised in this short run either.
      expect(sunk).toEqual([])
      expect(bot.alerts()).toEqual([])
      expect(posts).toEqual([])
      expect(lines.filter((l) => l.includes('open before the restart'))).toEqual([])
    } finally {
      if (!stopped) await bot.stop('test failed')
      await new Promise((r) => hook.close(r))
    }
  })
})
