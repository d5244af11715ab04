/** Alerts: what the account monitor and the bot raise, and the sinks that deliver them. */

export type Severity = 'info' | 'warning' | 'critical'

export interface Alert {
  /** Episode key: one alert per episode (e.g. `margin`, `withdrawal:42`). */
  key: string
  severity: Severity
  title: string
  message: string
  /** Public facts only (never secrets). */
  details?: Readonly<Record<string, string | number | boolean>> | undefined
  /** True for the message that closes an episode (or, with `remaining`, lowers it). */
  resolved?: boolean | undefined
  /**
   * On a resolved alert only: the level its episode goes on at (critical → warning: the critical is
   * over, the warning goes on). Absent: the whole episode is over. Read by `episodes.ts`.
   */
  remaining?: Severity | undefined
  /**
   * On a raise only: a fact told once, not a state that goes on (a failed or removed withdrawal). It is
   * heard at its severity and leaves nothing open: its key's episode (a pending-too-long warning) is
   * over with it. Read by `episodes.ts`.
   */
  final?: boolean | undefined
  /** Unix ms. */
  at: number
}

/** Delivers alerts. `send` never throws and never blocks the caller. */
export interface AlertSink {
  send(alert: Alert): void
  /** Waits (bounded) for queued deliveries; used at shutdown. */
  flush?(timeoutMs: number): Promise<void>
}

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, critical: 2 }

/**
 * Whether a subscriber listening from `min` up hears this alert. A resolve is always heard: the
 * subscriber that heard the episode open (perhaps at a higher level) must hear it end.
 */
export const heardAt = (alert: Alert, min: Severity): boolean =>
  alert.resolved === true || SEVERITY_RANK[alert.severity] >= SEVERITY_RANK[min]

/**
 * Takes known secrets out of an alert's text (title, message, key, details) before any sink sees it:
 * an alert built from an error may carry one (issue 34). `scrub` is the process's one scrubber.
 */
export function scrubAlert(alert: Alert, scrub: (text: string) => string): Alert {
  const details =
    alert.details === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(alert.details).map(([k, v]) => [k, typeof v === 'string' ? scrub(v) : v]),
        )
  return {
    ...alert,
    key: scrub(alert.key),
    title: scrub(alert.title),
    message: scrub(alert.message),
    ...(details === undefined ? {} : { details }),
  }
}

/** Fans one alert out to several sinks; a failing sink cannot affect the others. */
export function fanOut(sinks: readonly AlertSink[]): AlertSink {
  return {
    send(alert) {
      for (const s of sinks) {
        try {
          s.send(alert)
        } catch {
          // A sink must not throw; if one does, the others still get the alert.
        }
      }
    },
    async flush(timeoutMs) {
      await Promise.all(sinks.map((s) => s.flush?.(timeoutMs)))
    },
  }
}
