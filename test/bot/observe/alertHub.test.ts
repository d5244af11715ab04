/**
 * The alert hub's open episodes: every alert of the run read once as it is sent, so the dashboard's
 * board is not bounded by the recent list (the 50 alerts behind `/status`).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { Alert } from '../../../src/alerts/alert.ts'
import { AccountWatch } from '../../../src/bot/account/accountWatch.ts'
import { createAlertHub } from '../../../src/bot/observe/alertHub.ts'
import { systemClock } from '../../../src/clock.ts'
import { createLogger, SecretBag } from '../../../src/logging/logger.ts'
import { seededRandom } from '../../../src/random.ts'
import { loadSettings } from '../../../src/settings/load.ts'
import { marginPortfolio as margin, WATCH } from '../../helpers/accountFixtures.ts'

const T0 = 1_767_000_000_000

function hub() {
  const { settings, secrets } = loadSettings({ configDir: 'config', mode: 'dry-run', env: {}, needs: [] })
  const sink = new Writable({ write: (_c, _e, done) => done() })
  return createAlertHub({
    settings,
    secrets,
    clock: systemClock,
    random: seededRandom(1),
    logger: createLogger({ destination: sink, level: 'fatal' }),
    metrics: { recordAlert: () => undefined },
  })
}

const other = (k: number): Alert => ({
  key: `rejections:${k}`,
  severity: 'info',
  title: 'Orders rejected',
  message: `batch ${k}`,
  at: T0 + 10 + k,
})

describe('alert hub: open episodes', () => {
  it('a margin warning stays open past the recent list, at the level the episode is at', () => {
    const h = hub()
    const watch = new AccountWatch(WATCH)
    for (const [k, mm] of ['0.55', '0.85', '0.74'].entries())
      for (const a of watch.observePortfolio(margin(mm), T0 + k)) h.send(a)
    // Sixty one-shot episodes, opened and closed, push the margin's alerts out of the recent list.
    for (let k = 0; k < 60; k++) {
      h.send(other(k))
      h.send({ ...other(k), resolved: true })
    }
    expect(h.recent().some((a) => a.key === 'margin')).toBe(false)
    expect(h.open().map((e) => [e.key, e.level, e.since, e.latest.title])).toEqual([
      ['margin', 'warning', T0, 'Margin ratio below critical'],
    ])
    for (const a of watch.observePortfolio(margin('0.1'), T0 + 200)) h.send(a)
    expect(h.open()).toEqual([])
  })
})

describe('alert hub: episodes restored open after a restart', () => {
  it('into the book only: no log line, metric, recent row, published alert, extra sink or webhook post', async () => {
    const posts: string[] = []
    const hook = createServer((req, res) => {
      posts.push(req.url ?? '')
      req.resume()
      req.on('end', () => res.end('ok'))
    })
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`
      const { settings, secrets } = loadSettings({
        configDir: 'config',
        mode: 'dry-run',
        overrides: { 'alerts.webhook.inDryRun': true },
        env: { ALERT_WEBHOOK_URL: url },
        needs: [],
      })
      const lines: string[] = []
      const counted: string[] = []
      const sunk: Alert[] = []
      const secret = 'hunter2-very-secret'
      const h = createAlertHub({
        settings,
        secrets,
        clock: systemClock,
        random: seededRandom(1),
        logger: createLogger({ destination: { write: (l: string) => void lines.push(l) }, level: 'debug' }),
        metrics: { recordAlert: (a) => void counted.push(a.key) },
        extraSinks: [{ send: (a) => void sunk.push(a) }],
        secretBag: new SecretBag([secret]),
      })
      const published: Alert[] = []
      h.published.subscribe((a) => void published.push(a))
      const watch = new AccountWatch(WATCH)
      watch.importState({ marginLevel: 'warning', rateLimited: true })
      const restored = watch.restoredEpisodes(T0)
      expect(restored.map((a) => a.key)).toEqual(['margin', 'rate-limit'])
      h.restoreOpen([...restored, { ...other(1), severity: 'warning', message: `leaked ${secret}` }])
      await h.flush(2_000)
      expect(h.open().map((e) => [e.key, e.level, e.since, e.latest.title])).toEqual([
        ['rejections:1', 'warning', T0 + 11, 'Orders rejected'],
        ['margin', 'warning', T0, 'Margin ratio warning (open before the restart)'],
        ['rate-limit', 'warning', T0, 'Repeated rate limiting (open before the restart)'],
      ])
      // Scrubbed as every alert is.
      expect(h.open()[0]?.latest.message).toBe('leaked [redacted]')
      expect([lines, counted, sunk, published, posts, h.recent(), h.raised()]).toEqual([
        [],
        [],
        [],
        [],
        [],
        [],
        [],
      ])
      // The same hub sends a live alert everywhere (the test can fail): the next margin alert reads on.
      for (const a of watch.observePortfolio(margin('0.1'), T0 + 1)) h.send(a)
      await h.flush(2_000)
      expect(counted).toEqual(['margin'])
      expect(sunk.map((a) => a.title)).toEqual(['Margin ratio back to normal'])
      expect(published).toHaveLength(1)
      expect(lines.filter((l) => l.includes('Margin ratio back to normal'))).toHaveLength(1)
      expect(posts).toHaveLength(1)
      expect(h.open().map((e) => e.key)).toEqual(['rejections:1', 'rate-limit'])
    } finally {
      await new Promise((r) => hook.close(r))
    }
  })
})
