/**
 * The account watch's episodes as alerts, pure: the on/off episodes' keys, levels and fixed texts, and
 * the episodes a restored state holds open, told as open before the restart (for the alert hub's book
 * after a restart, never for a sink: the trader heard them before).
 */
import type { Alert, Severity } from '../../alerts/alert.ts'
import { percent } from '../../format/units.ts'
import type { MarginLevel, TrackedWithdrawal } from './accountJournal.ts'

export type Flag =
  | 'inLiquidation'
  | 'marginExhausted'
  | 'proxyExpiring'
  | 'rateLimited'
  | 'openOrderCapped'
  | 'clockSkewed'
export const FLAGS: readonly Flag[] = [
  'inLiquidation',
  'marginExhausted',
  'proxyExpiring',
  'rateLimited',
  'openOrderCapped',
  'clockSkewed',
]

/** The text of the alert that opens an on/off episode, from what was observed (its title is fixed). */
export interface StartedText {
  message: string
  details?: Record<string, string | number | boolean> | undefined
}

/**
 * The on/off episodes: the alert key and severity, the title of the alert that opens one, and the
 * text of the resolved alert that ends one.
 */
export const FLAG_EPISODES: Readonly<
  Record<Flag, { key: string; severity: Severity; title: string; ended: { title: string; message: string } }>
> = {
  inLiquidation: {
    key: 'liquidation',
    severity: 'critical',
    title: 'Account in liquidation',
    ended: {
      title: 'Account no longer in liquidation',
      message: 'The venue no longer reports the account in liquidation.',
    },
  },
  marginExhausted: {
    key: 'margin-exhausted',
    severity: 'critical',
    title: 'Margin exhausted',
    ended: {
      title: 'Margin available again',
      message: 'The account has equity again: the bot may quote.',
    },
  },
  proxyExpiring: {
    key: 'proxy-expiry',
    severity: 'warning',
    title: 'Proxy key expiring',
    ended: { title: 'Proxy key renewed', message: 'The proxy key is no longer close to expiry.' },
  },
  rateLimited: {
    key: 'rate-limit',
    severity: 'warning',
    title: 'Repeated rate limiting',
    ended: { title: 'Rate limiting stopped', message: 'No repeated rate limiting any more.' },
  },
  openOrderCapped: {
    key: 'open-order-cap',
    severity: 'warning',
    title: "At the venue's open-order cap",
    ended: {
      title: 'Below the open-order cap again',
      message: 'No request refused at the open-order cap in the recent window.',
    },
  },
  clockSkewed: {
    key: 'clock-skew',
    severity: 'warning',
    title: 'Clock skew',
    ended: { title: 'Clock skew resolved', message: 'Local clock agrees with the server again.' },
  },
}

/** What the watch holds after `importState`: the episodes' levels and the withdrawals it follows. */
export interface WatchEpisodeState {
  marginLevel: MarginLevel
  flags: Readonly<Record<Flag, boolean>>
  withdrawals: Iterable<readonly [number, TrackedWithdrawal]>
}

const BEFORE_RESTART = ' (open before the restart)'
const QUIETLY = 'restored from the state journal, not alerted again.'

/**
 * The episodes a restored state holds open, as the alerts that open them at `at` (the restore), with
 * the keys and levels the live alerts use, so the next live alert of each (a resolve, an escalation)
 * reads on from them: the margin at its level, each on/off flag, each pending withdrawal already
 * alerted (`withdrawal:<id>`). A failed or removed withdrawal is not an ongoing state (told once, not
 * counted by `/status`): not restored.
 */
export function restoredEpisodes(
  s: WatchEpisodeState,
  cfg: { marginWarningRatio: number; marginCriticalRatio: number },
  at: number,
): Alert[] {
  const out: Alert[] = []
  const level = s.marginLevel
  if (level !== 'ok') {
    const critical = level === 'critical'
    const threshold = critical ? cfg.marginCriticalRatio : cfg.marginWarningRatio
    out.push({
      key: 'margin',
      severity: level,
      title: `Margin ratio ${level}${BEFORE_RESTART}`,
      message: `The margin ratio was at ${level} (threshold ${percent(threshold)}) before the restart: ${QUIETLY} It stays open until a portfolio reads the ratio back below the ${critical ? 'critical' : 'warning'} threshold.`,
      details: { threshold, restored: true },
      at,
    })
  }
  for (const flag of FLAGS) {
    if (!s.flags[flag]) continue
    const e = FLAG_EPISODES[flag]
    out.push({
      key: e.key,
      severity: e.severity,
      title: `${e.title}${BEFORE_RESTART}`,
      message: `Open before the restart: ${QUIETLY} It closes with "${e.ended.title}".`,
      details: { restored: true },
      at,
    })
  }
  for (const [id, t] of s.withdrawals) {
    if (t.status !== 'pending' || !t.pendingAlerted) continue
    out.push({
      key: `withdrawal:${id}`,
      severity: 'warning',
      title: `Withdrawal pending too long${BEFORE_RESTART}`,
      message: `Withdrawal ${id} (created ${new Date(t.createdAt).toISOString()}) was pending too long before the restart: ${QUIETLY} It stays open until the venue confirms it.`,
      details: { withdrawId: id, restored: true },
      at,
    })
  }
  return out
}
