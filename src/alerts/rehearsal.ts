/**
 * A dry run is a rehearsal: its alerts (a scripted liquidation, say) must never page the on-call
 * person as if they were real. The webhook stays silent in a dry run unless `alerts.webhook.inDryRun`
 * asks for it, and then every message says it is a rehearsal in its title and in its payload (`mode`).
 */
import type { Alert } from './alert.ts'

/** The bot's mode, as `Settings['mode']`. */
export type AlertMode = 'dry-run' | 'live' | 'paper'

export const REHEARSAL_PREFIX = 'REHEARSAL (dry run, nothing real): '
/** Paper trading posts (it is the unattended run rehearsed on the live market), every title marked. */
export const PAPER_PREFIX = 'PAPER (simulated fills, no money): '

/** Whether the webhook may post at all in this mode. */
export const webhookAllowed = (mode: AlertMode, inDryRun: boolean): boolean =>
  mode === 'live' || mode === 'paper' || inDryRun

/** The alert as the webhook shows it: a dry run's title says it is a rehearsal, a paper run's PAPER. */
export function markRehearsal(a: Alert, mode: AlertMode): Alert {
  const prefix = mode === 'paper' ? PAPER_PREFIX : REHEARSAL_PREFIX
  if (mode === 'live' || a.title.startsWith(prefix)) return a
  return { ...a, title: `${prefix}${a.title}` }
}
