/**
 * The alert hub's open episodes: every alert of the run read once as it is sent, so the dashboard's
 * board is not bounded by the recent list (the 50 alerts behind `/status`).
 */
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { Alert } from '../../../src/alerts/alert.ts'
import { AccountWatch } from '../../../src/bot/account/accountWatch.ts'
import { createAlertHub } from '../../../src/bot/observe/alertHub.ts'
import { systemClock } from '../../../src/clock.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import { seededRandom } from '../../../src/random.ts'
import { loadSettings } from '../../../src/settings/load.ts'
import { marginPortfolio as margin, WATCH } from '../../helpers/marginWatch.ts'

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
