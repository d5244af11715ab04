/**
 * A dry run is a rehearsal: its alerts (a scripted liquidation, say) must never page the on-call
 * person as if they were real. The webhook stays silent in a dry run unless `alerts.webhook.inDryRun`
 * asks for it, and then every message says it is a rehearsal in its title and in its payload (`mode`).
 */
import type { Alert } from './alert.ts'

/** The bot's mode, as `Settings['mode']`. */
export type AlertMode = 'dry-run' | 'live'

export const REHEARSAL_PREFIX = 'REHEARSAL (dry run, nothing real): '

/** Whether the webhook may post at all in this mode. */
export const webhookAllowed = (mode: AlertMode, inDryRun: boolean): boolean => mode === 'live' || inDryRun

/** The alert as the webhook shows it: a dry run's title says it is a rehearsal. */
export function markRehearsal(a: Alert, mode: AlertMode): Alert {
  if (mode === 'live' || a.title.startsWith(REHEARSAL_PREFIX)) return a
  return { ...a, title: `${REHEARSAL_PREFIX}${a.title}` }
}
