/**
 * Webhook alert delivery. `send` only enqueues: delivery runs behind its own Bottleneck rate limit
 * with a bounded queue (oldest non-critical alerts are dropped first) and retries with jittered
 * backoff, so a slow or failing webhook can never block or crash trading. The URL is a secret
 * (Slack/Discord/Telegram URLs carry tokens) and is never logged.
 */
import Bottleneck from 'bottleneck'
import { request } from 'undici'
import { type Clock, sleep } from '../clock.ts'
import type { Logger } from '../logging/logger.ts'
import type { Random } from '../random.ts'
import type { Alert, AlertSink } from './alert.ts'
import { SEVERITY_RANK, type Severity } from './alert.ts'
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
  /** Queue bound; beyond it the lowest-priority queued alerts are dropped. */
  maxQueued?: number | undefined
}

export interface WebhookSinkStats {
  delivered: number
  failed: number
  dropped: number
}

export function createWebhookAlertSink(o: WebhookSinkOptions): AlertSink & { stats(): WebhookSinkStats } {
  const post = o.post ?? undiciPoster
  const stats: WebhookSinkStats = { delivered: 0, failed: 0, dropped: 0 }
  const limiter = new Bottleneck({
    maxConcurrent: 1,
    minTime: Math.ceil(60_000 / o.maxPerMinute),
    highWater: o.maxQueued ?? 100,
    strategy: Bottleneck.strategy.OVERFLOW_PRIORITY,
  })
  limiter.on('dropped', () => {
    stats.dropped++
    o.logger.warn('alert webhook queue full: dropped an alert')
  })

  const deliver = async (alert: Alert): Promise<void> => {
    const body = webhookPayload(alert, o.format, o.telegramChatId)
    for (let attempt = 0; attempt <= o.retries; attempt++) {
      try {
        const status = await post(o.url, body, o.timeoutMs)
        if (status >= 200 && status < 300) {
          stats.delivered++
          return
        }
        // 4xx other than 429 will not get better by retrying.
        if (status >= 400 && status < 500 && status !== 429) break
      } catch {
        // network failure: retry below
      }
      if (attempt < o.retries) await sleep(o.clock, Math.round(500 * 2 ** attempt * (0.5 + o.random.next())))
    }
    stats.failed++
    o.logger.warn({ alertKey: alert.key }, 'alert webhook delivery failed')
  }

  return {
    send(alert) {
      if (SEVERITY_RANK[alert.severity] < SEVERITY_RANK[o.minSeverity] && !alert.resolved) return
      // Bottleneck priority: lower runs first; critical alerts jump the queue.
      const priority = alert.severity === 'critical' ? 1 : alert.severity === 'warning' ? 4 : 7
      limiter.schedule({ priority }, () => deliver(alert)).catch(() => undefined)
    },
    async flush(timeoutMs) {
      const counts = limiter.counts()
      const busy =
        (counts.RECEIVED ?? 0) + (counts.QUEUED ?? 0) + (counts.RUNNING ?? 0) + (counts.EXECUTING ?? 0) > 0
      const done = busy
        ? new Promise<void>((resolve) => limiter.once('idle', () => resolve()))
        : Promise.resolve()
      await Promise.race([done, sleep(o.clock, timeoutMs)])
    },
    stats: () => ({ ...stats }),
  }
}
