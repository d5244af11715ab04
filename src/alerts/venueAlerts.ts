/**
 * What the venue tells us that a trader should hear: a refused stream `auth` (credentials the private
 * socket will not take, while REST keeps working), the venue's own `notifications`, and rows of a read
 * the client could not parse ("unreadable rows"). Pure translation into alerts; the hub delivers them.
 */

import type { PerpsResponseObserver } from '../perps/client/context.ts'
import type { VenueNotification } from '../perps/stream/pushSchemas.ts'
import type { StreamAuthStatus } from '../perps/stream/streamTypes.ts'
import type { Alert } from './alert.ts'

export interface VenueAlertSink {
  send(alert: Alert): void
}

export const STREAM_AUTH_ALERT_KEY = 'stream-auth'

/**
 * The private stream's `auth` outcome as one alert episode: critical when the venue definitely refused
 * our credentials (a transient refusal, a restart, is only retried), resolved once `auth` succeeds again.
 */
export function createStreamAuthAlerts(o: { alerts: VenueAlertSink; now: () => number }) {
  let open = false
  return (s: StreamAuthStatus): void => {
    if (!s.ok && s.definite && !open) {
      open = true
      o.alerts.send({
        key: STREAM_AUTH_ALERT_KEY,
        severity: 'critical',
        title: 'stream credentials refused',
        message:
          'venue refused our credentials on the private stream; REST keeps working (orders, fills and the portfolio are polled)',
        details: { code: s.code ?? 'unknown', refusals: s.refusals },
        at: o.now(),
      })
    } else if (s.ok && open) {
      open = false
      o.alerts.send({
        key: STREAM_AUTH_ALERT_KEY,
        severity: 'info',
        title: 'stream credentials accepted',
        message: 'the private stream authenticated again',
        resolved: true,
        at: o.now(),
      })
    }
  }
}

/** One venue notification as an alert (its own severity); keyed by its id so a repeat is one episode. */
export function notificationAlert(n: VenueNotification, at: number): Alert {
  return {
    key: `venue-notification:${n.id ?? n.kind}`,
    severity: n.severity,
    title: `venue notification (${n.kind})`,
    message: n.text === '' ? `the venue sent a ${n.kind} notification` : n.text,
    details: { ...n.details, kind: n.kind, ...(n.ts === undefined ? {} : { venueTs: n.ts }) },
    at,
  }
}

/** Default spacing of "unreadable rows" warnings: a read repeats every few seconds. */
export const DROPPED_ROWS_ALERT_INTERVAL_MS = 10 * 60_000

/**
 * The client's `droppedItems` hook as a rate-limited warning: at most one per endpoint per interval,
 * with how many rows were dropped since the last one and the first reasons.
 */
export function droppedRowsObserver(o: {
  alerts: VenueAlertSink
  now: () => number
  intervalMs?: number | undefined
}): Required<Pick<PerpsResponseObserver, 'droppedItems'>> {
  const every = o.intervalMs ?? DROPPED_ROWS_ALERT_INTERVAL_MS
  const last = new Map<string, number>()
  const pending = new Map<string, number>()
  return {
    droppedItems(endpoint, lines) {
      const count = (pending.get(endpoint) ?? 0) + lines.length
      const at = o.now()
      const prev = last.get(endpoint)
      if (prev !== undefined && at - prev < every) {
        pending.set(endpoint, count)
        return
      }
      last.set(endpoint, at)
      pending.set(endpoint, 0)
      o.alerts.send({
        key: `unreadable-rows:${endpoint}`,
        severity: 'warning',
        title: 'unreadable rows',
        message: `${count} row(s) of ${endpoint} could not be read and were skipped: ${lines.slice(0, 3).join('; ')}`,
        details: { endpoint, rows: count },
        at,
      })
    },
  }
}
