/** Webhook payloads: generic JSON, and Slack-, Discord- and Telegram-compatible bodies. */
import type { Alert } from './alert.ts'
import type { AlertMode } from './rehearsal.ts'

export type WebhookFormat = 'generic' | 'slack' | 'discord' | 'telegram'

const ICON = { info: 'ℹ️', warning: '⚠️', critical: '🚨' } as const
/** Discord's embed colour: a resolve that leaves the episode open at a lower level shows that level. */
const COLOR = { resolved: 0x2ecc71, critical: 0xe74c3c, warning: 0xf1c40f, info: 0x3498db } as const

function headline(a: Alert): string {
  return a.resolved
    ? `✅ RESOLVED: ${a.title}`
    : `${ICON[a.severity]} ${a.severity.toUpperCase()}: ${a.title}`
}

function detailLines(a: Alert): string[] {
  return Object.entries(a.details ?? {}).map(([k, v]) => `${k}: ${String(v)}`)
}

/**
 * The body for one alert. `mode` goes in the generic payload as a field; the chat formats carry it in
 * the title (see `markRehearsal`) and, for a dry run, a last line.
 */
export function webhookPayload(
  a: Alert,
  format: WebhookFormat,
  telegramChatId?: string,
  mode: AlertMode = 'live',
): unknown {
  const lines = [
    a.message,
    ...detailLines(a),
    ...(mode === 'dry-run' ? ['mode: dry-run (a rehearsal: nothing here is real)'] : []),
    ...(mode === 'paper' ? ['mode: paper (fills simulated on the live market: no money is at stake)'] : []),
  ]
  switch (format) {
    case 'slack':
      return { text: `${headline(a)}\n${lines.join('\n')}` }
    case 'discord':
      return {
        content: headline(a),
        embeds: [
          {
            title: a.title,
            description: lines.join('\n').slice(0, 4000),
            color: COLOR[a.resolved ? (a.remaining ?? 'resolved') : a.severity],
            timestamp: new Date(a.at).toISOString(),
          },
        ],
      }
    case 'telegram':
      return { chat_id: telegramChatId, text: `${headline(a)}\n${lines.join('\n')}`.slice(0, 4096) }
    default:
      return {
        source: 'perpbot',
        mode,
        key: a.key,
        severity: a.severity,
        resolved: a.resolved ?? false,
        // On a resolve only: the level the episode goes on at (absent: the episode is over).
        ...(a.resolved === true && a.remaining !== undefined ? { remaining: a.remaining } : {}),
        title: a.title,
        message: a.message,
        details: a.details ?? {},
        at: new Date(a.at).toISOString(),
      }
  }
}
