import type { Logger } from '../logging/logger.ts'
import type { Alert, AlertSink } from './alert.ts'

/** Writes every alert to the log: critical → error, warning → warn, info and resolutions → info. */
export function createLogAlertSink(logger: Logger): AlertSink {
  return {
    send(alert: Alert) {
      const fields = {
        alert: {
          key: alert.key,
          severity: alert.severity,
          resolved: alert.resolved ?? false,
          ...(alert.resolved === true && alert.remaining !== undefined ? { remaining: alert.remaining } : {}),
          ...alert.details,
        },
      }
      const text = `${alert.resolved ? 'RESOLVED' : alert.severity.toUpperCase()}: ${alert.title} — ${alert.message}`
      if (alert.resolved || alert.severity === 'info') logger.info(fields, text)
      else if (alert.severity === 'warning') logger.warn(fields, text)
      else logger.error(fields, text)
    },
  }
}
