/** Keeps the last N alerts for `/status` (an `AlertSink` to fan out beside the real sinks). */
import type { Alert, AlertSink } from '../alerts/alert.ts'

export interface RecentAlerts extends AlertSink {
  /** Oldest first, at most `capacity`. */
  list(): Alert[]
}

export function createRecentAlerts(capacity = 20): RecentAlerts {
  const buffer: Alert[] = []
  return {
    send(alert) {
      buffer.push(alert)
      if (buffer.length > capacity) buffer.splice(0, buffer.length - capacity)
    },
    list: () => [...buffer],
  }
}
