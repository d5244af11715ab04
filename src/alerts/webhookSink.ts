/**
 * Webhook alert delivery. `send` only enqueues, so a slow or failing webhook can never block or crash
 * trading. Alerts are never dropped silently: at most one message goes out per `60 s / maxPerMinute`,
 * and everything that arrived meanwhile is coalesced into that one message (critical first); a failed
 * post is retried with jittered back-off; `flush` (shutdown) sends what is queued at once within its
 * budget; whatever could not be delivered is logged at error level with the alerts themselves. The URL
 * is a secret (Slack/Discord/Telegram URLs carry tokens) and is never logged.
 */
import { request } from 'undici'
import { type Clock, sleep, type TimerId } from '../clock.ts'
import type { Logger } from '../logging/logger.ts'
import type { Random } from '../random.ts'
import type { Alert, AlertSink } from './alert.ts'
import { heardAt, SEVERITY_RANK, type Severity } from './alert.ts'
import { type AlertMode, markRehearsal, webhookAllowed } from './rehearsal.ts'
import { type WebhookFormat, webhookPayload } from './webhookPayload.ts'

/** Posts a JSON body; resolves with the HTTP status. Injected so tests and dry-run swap it. */
export type WebhookPoster = (url: string, body: unknown, timeoutMs: number) => Promise<number>

export const undiciPoster: WebhookPoster = async (url, body, timeoutMs) => {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  })
  await res.body.dump()
  return res.statusCode
}

export interface WebhookSinkOptions {
  url: string
  /** The bot's mode: a dry run posts nothing unless `inDryRun`, and then marks every message. */
  mode: AlertMode
  /** `alerts.webhook.inDryRun`: a dry run posts too (each message a marked rehearsal). */
  inDryRun?: boolean | undefined
  format: WebhookFormat
  telegramChatId?: string | undefined
  minSeverity: Severity
  maxPerMinute: number
  retries: number
  timeoutMs: number
  clock: Clock
  random: Random
  logger: Logger
  post?: WebhookPoster | undefined
  /** Alerts listed one by one in a coalesced message; beyond it they are counted ("and N more"). */
  maxListed?: number | undefined
}

export interface WebhookSinkStats {
  /** Alerts delivered (a coalesced message counts each alert it carries). */
  delivered: number
  /** Alerts whose delivery failed after every retry (each logged at error level). */
  failed: number
  /** Messages posted successfully. */
  messages: number
  /** Alerts sent as part of a coalesced message. */
  coalesced: number
}

/** One line of an alert, for a coalesced message and for the error log of an undelivered one. */
function summary(a: Alert): string {
  const what = a.resolved ? 'RESOLVED' : a.severity.toUpperCase()
  return `${what}: ${a.title} — ${a.message}`.slice(0, 300)
}

/** Many alerts as one: the highest severity, critical first, each on a line. */
export function coalesceAlerts(alerts: readonly Alert[], maxListed: number): Alert {
  const sorted = [...alerts].sort(
    (a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || a.at - b.at,
  )
  const listed = sorted.slice(0, maxListed).map((a) => `- ${summary(a)}`)
  const more = sorted.length - listed.length
  const top = sorted[0]
  return {
    key: 'coalesced',
    severity: top?.severity ?? 'info',
    title: `${alerts.length} alerts`,
    message: [...listed, ...(more > 0 ? [`and ${more} more (see the bot's log)`] : [])].join('\n'),
    at: Math.max(...alerts.map((a) => a.at)),
    ...(alerts.every((a) => a.resolved) ? { resolved: true } : {}),
  }
}

export function createWebhookAlertSink(o: WebhookSinkOptions): AlertSink & { stats(): WebhookSinkStats } {
  const post = o.post ?? undiciPoster
  const allowed = webhookAllowed(o.mode, o.inDryRun ?? false)
  if (!allowed)
    o.logger.info(
      'alert webhook: silent in a dry run (set alerts.webhook.inDryRun to rehearse delivery; messages then say REHEARSAL)',
    )
  const minGapMs = Math.ceil(60_000 / o.maxPerMinute)
  const maxListed = o.maxListed ?? 20
  const stats: WebhookSinkStats = { delivered: 0, failed: 0, messages: 0, coalesced: 0 }
  let pending: Alert[] = []
  let inFlight: { alerts: Alert[]; done: Promise<void> } | undefined
  let timer: TimerId | undefined
  let lastPostAt = Number.NEGATIVE_INFINITY
  /** Set by `flush`: no more back-off waits; whatever fails now is reported. */
  let draining = false
  /** Aborted by `flush`: a back-off wait under way ends at once (its timer cleared, none left behind). */
  const drained = new AbortController()

  const undelivered = (alerts: readonly Alert[], why: string): void => {
    stats.failed += alerts.length
    o.logger.error(
      { alerts: alerts.map((a) => ({ key: a.key, severity: a.severity, at: a.at, text: summary(a) })), why },
      `alert webhook: could not deliver ${alerts.length} alert(s): ${why}`,
    )
  }

  const postOnce = async (alerts: Alert[]): Promise<void> => {
    const one = alerts.length === 1 ? alerts[0] : undefined
    const shown = markRehearsal(one ?? coalesceAlerts(alerts, maxListed), o.mode)
    const body = webhookPayload(shown, o.format, o.telegramChatId, o.mode)
    let why = 'no attempt'
    for (let attempt = 0; attempt <= o.retries; attempt++) {
      lastPostAt = o.clock.now()
      try {
        const status = await post(o.url, body, o.timeoutMs)
        if (status >= 200 && status < 300) {
          stats.messages += 1
          stats.delivered += alerts.length
          if (alerts.length > 1) stats.coalesced += alerts.length
          return
        }
        why = `HTTP ${status}`
        // 4xx other than 429 will not get better by retrying.
        if (status >= 400 && status < 500 && status !== 429) break
      } catch (e) {
        why = e instanceof Error ? e.message : String(e)
      }
      if (attempt < o.retries && !draining)
        await sleep(o.clock, Math.round(500 * 2 ** attempt * (0.5 + o.random.next())), drained.signal).catch(
          () => undefined,
        )
      if (draining) break
    }
    undelivered(alerts, why)
  }

  const pump = (): void => {
    timer = undefined
    if (inFlight || pending.length === 0) return
    const alerts = pending
    pending = []
    const done = postOnce(alerts).finally(() => {
      inFlight = undefined
      schedule()
    })
    inFlight = { alerts, done }
  }

  const schedule = (): void => {
    if (inFlight || timer !== undefined || pending.length === 0) return
    const wait = draining ? 0 : Math.max(0, lastPostAt + minGapMs - o.clock.now())
    timer = o.clock.setTimeout(pump, wait)
  }

  return {
    send(alert) {
      if (!allowed) return
      if (!heardAt(alert, o.minSeverity)) return
      pending.push(alert)
      schedule()
    },
    async flush(timeoutMs) {
      draining = true
      drained.abort()
      if (timer !== undefined) {
        o.clock.clearTimeout(timer)
        timer = undefined
      }
      const deadline = o.clock.now() + timeoutMs
      const idle = async (): Promise<void> => {
        while (inFlight || pending.length > 0) {
          if (!inFlight) pump()
          await inFlight?.done
        }
      }
      let timedOut = false
      // The budget's timer is cleared when the flush ends first: a stop leaves no timer behind.
      const budget = new AbortController()
      await Promise.race([
        idle().finally(() => budget.abort()),
        sleep(o.clock, Math.max(0, deadline - o.clock.now()), budget.signal).then(
          () => {
            timedOut = true
          },
          () => undefined,
        ),
      ])
      if (timedOut) {
        const left = [...(inFlight?.alerts ?? []), ...pending]
        pending = []
        if (left.length > 0) undelivered(left, `not delivered within the ${timeoutMs} ms shutdown budget`)
      }
    },
    stats: () => ({ ...stats }),
  }
}
