/**
 * The episodes the account watch's restored state holds open: each as the alert that opens it (the
 * key and level the live alerts use, told as open before the restart, at the restore time), so a book
 * fed with them holds what the previous run's book held, and the restarted watch's next live alert
 * (a resolve, a lowering, an escalation) reads on from them.
 */
import { describe, expect, it } from 'vitest'
import type { Alert } from '../../../src/alerts/alert.ts'
import { EpisodeBook } from '../../../src/alerts/episodes.ts'
import { AccountWatch } from '../../../src/bot/account/accountWatch.ts'
import { marginPortfolio as margin, WATCH, withdrawalRow } from '../../helpers/accountFixtures.ts'

const T0 = 1_767_000_000_000
const RESTART = T0 + 600_000

/** A watch restored from `before`'s journal (through JSON, as the state file and the journal keep it). */
function restarted(before: AccountWatch): AccountWatch {
  const w = new AccountWatch(WATCH)
  w.importState(JSON.parse(JSON.stringify(before.exportState())))
  return w
}

function book(alerts: readonly Alert[]): EpisodeBook {
  const b = new EpisodeBook()
  for (const a of alerts) b.observe(a)
  return b
}

const levels = (b: EpisodeBook) => b.open().map((e) => [e.key, e.level])

describe('account watch: episodes restored open after a restart', () => {
  it('a margin warning: open at warning, told as open before the restart, closed by the next "back to normal"', () => {
    const before = new AccountWatch(WATCH)
    before.observePortfolio(margin('0.55'), T0)
    const after = restarted(before)
    const restored = after.restoredEpisodes(RESTART)
    expect(restored).toEqual([
      {
        key: 'margin',
        severity: 'warning',
        title: 'Margin ratio warning (open before the restart)',
        message:
          'The margin ratio was at warning (threshold 50%) before the restart: restored from the state journal, not alerted again. It stays open until a portfolio reads the ratio back below the warning threshold.',
        details: { threshold: 0.5, restored: true },
        at: RESTART,
      },
    ])
    const b = book(restored)
    expect(b.open().map((e) => [e.key, e.level, e.since])).toEqual([['margin', 'warning', RESTART]])
    // Still at warning: the restarted watch says nothing, the board keeps it.
    expect(after.observePortfolio(margin('0.52'), RESTART + 1)).toEqual([])
    for (const a of after.observePortfolio(margin('0.1'), RESTART + 2)) b.observe(a)
    expect(b.open()).toEqual([])
  })

  it('a margin critical: open at critical; the next "below critical" leaves the warning open', () => {
    const before = new AccountWatch(WATCH)
    before.observePortfolio(margin('0.55'), T0)
    before.observePortfolio(margin('0.9'), T0 + 1)
    const after = restarted(before)
    const restored = after.restoredEpisodes(RESTART)
    expect(restored.map((a) => [a.key, a.severity, a.title, a.details])).toEqual([
      [
        'margin',
        'critical',
        'Margin ratio critical (open before the restart)',
        { threshold: 0.8, restored: true },
      ],
    ])
    expect(restored[0]?.message).toContain('back below the critical threshold')
    const b = book(restored)
    const lowered = after.observePortfolio(margin('0.6'), RESTART + 1)
    expect(lowered.map((a) => [a.key, a.resolved, a.remaining])).toEqual([['margin', true, 'warning']])
    for (const a of lowered) b.observe(a)
    expect(levels(b)).toEqual([['margin', 'warning']])
  })

  it('every on/off flag: the keys and levels the previous run left open, each closed by its live resolve', () => {
    const before = new AccountWatch(WATCH)
    const live: Alert[] = [
      // Closed out while in liquidation: both critical; the margin level stays as it was (ok).
      ...before.observePortfolio(margin('0', '0', true), T0),
      ...before.observeProxyExpiry(T0 + 3_600_000, T0),
      ...before.observeRateLimits(3, T0 + 1),
      ...before.observeOpenOrderCap(1, T0 + 2),
      ...before.observeClockSkew(-5_000, T0 + 3),
    ]
    const wasOpen = book(live)
    const after = restarted(before)
    const restored = after.restoredEpisodes(RESTART)
    const b = book(restored)
    const sorted = (xs: unknown[][]) => [...xs].sort((x, y) => String(x[0]).localeCompare(String(y[0])))
    expect(sorted(levels(b))).toEqual(sorted(levels(wasOpen)))
    expect(sorted(levels(b))).toEqual([
      ['clock-skew', 'warning'],
      ['liquidation', 'critical'],
      ['margin-exhausted', 'critical'],
      ['open-order-cap', 'warning'],
      ['proxy-expiry', 'warning'],
      ['rate-limit', 'warning'],
    ])
    const liquidation = restored.find((a) => a.key === 'liquidation')
    expect(liquidation).toEqual({
      key: 'liquidation',
      severity: 'critical',
      title: 'Account in liquidation (open before the restart)',
      message:
        'Open before the restart: restored from the state journal, not alerted again. It closes with "Account no longer in liquidation".',
      details: { restored: true },
      at: RESTART,
    })
    // Each title is the live alert's, told as open before the restart.
    for (const a of restored) {
      const opened = live.find((l) => l.key === a.key)
      expect(a.title).toBe(`${opened?.title} (open before the restart)`)
    }
    // The restarted watch's live resolves close them.
    const resolves = [
      ...after.observePortfolio(margin('0', '100'), RESTART + 1),
      ...after.observeProxyExpiry(RESTART + 10 * 86_400_000, RESTART + 1),
      ...after.observeRateLimits(0, RESTART + 1),
      ...after.observeOpenOrderCap(0, RESTART + 1),
      ...after.observeClockSkew(0, RESTART + 1),
    ]
    expect(resolves.every((a) => a.resolved === true)).toBe(true)
    for (const a of resolves) b.observe(a)
    expect(b.open()).toEqual([])
  })

  it('a pending withdrawal already warned about: open as `withdrawal:<id>`; not yet warned, failed or confirmed: not', () => {
    const before = new AccountWatch(WATCH)
    const hour = WATCH.withdrawalPendingWarnMs
    const live = [
      ...before.observeWithdrawals(
        [withdrawalRow(7, 'pending', T0), withdrawalRow(9, 'pending', T0), withdrawalRow(11, 'pending', T0)],
        T0 + hour + 1,
      ),
      // 9 confirmed after its warning; 8 pending but young; 10 failed (told once, critical).
      ...before.observeWithdrawals(
        [
          withdrawalRow(9, 'confirmed', T0),
          withdrawalRow(8, 'pending', T0 + hour),
          withdrawalRow(10, 'failed', T0),
          withdrawalRow(11, 'pending', T0),
        ],
        T0 + hour + 2,
      ),
    ]
    expect(live.map((a) => [a.key, a.resolved === true])).toEqual([
      ['withdrawal:7', false],
      ['withdrawal:9', false],
      ['withdrawal:11', false],
      ['withdrawal:9', true],
      ['withdrawal:10', false],
    ])
    const after = restarted(before)
    const restored = after.restoredEpisodes(RESTART)
    expect(restored.map((a) => [a.key, a.severity, a.title])).toEqual([
      ['withdrawal:7', 'warning', 'Withdrawal pending too long (open before the restart)'],
      ['withdrawal:11', 'warning', 'Withdrawal pending too long (open before the restart)'],
    ])
    expect(restored[0]?.message).toBe(
      `Withdrawal 7 (created ${new Date(T0).toISOString()}) was pending too long before the restart: restored from the state journal, not alerted again. It stays open until the venue confirms it.`,
    )
    expect(restored[0]?.details).toEqual({ withdrawId: 7, restored: true })
    // The live alerts of the same withdrawals read on: 7 confirmed closes; 11 failed is told once and
    // ends its restored warning (a failure is a fact, not a state that goes on).
    const b = book(restored)
    for (const a of after.observeWithdrawals(
      [withdrawalRow(7, 'confirmed', T0), withdrawalRow(11, 'failed', T0)],
      RESTART + 1,
    ))
      b.observe(a)
    expect(levels(b)).toEqual([])
  })

  it('a fresh state, or one with every episode over, restores nothing', () => {
    expect(new AccountWatch(WATCH).restoredEpisodes(RESTART)).toEqual([])
    const before = new AccountWatch(WATCH)
    before.observePortfolio(margin('0.9', '1', true), T0)
    before.observePortfolio(margin('0.1'), T0 + 1)
    expect(restarted(before).restoredEpisodes(RESTART)).toEqual([])
  })
})
