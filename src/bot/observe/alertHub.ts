/**
 * The bot's alert hub: one `send` that every part raises alerts through, scrubbed of every known
 * secret once and then fanned out to the log, the metrics, the recent-alerts list behind `/status`,
 * the webhook (when configured), the journal and any extra sinks (tests). It also keeps a bounded
 * list of everything raised, for the run handle, and the episodes open now (sent this run, or restored
 * open from a previous run's state without being sent again).
 */
import { type Alert, type AlertSink, fanOut, scrubAlert } from '../../alerts/alert.ts'
import { EpisodeBook, type EpisodeRestore, type OpenEpisode } from '../../alerts/episodes.ts'
import { createLogAlertSink } from '../../alerts/logSink.ts'
import { createWebhookAlertSink } from '../../alerts/webhookSink.ts'
import type { Clock } from '../../clock.ts'
import { componentLogger, type Logger, type Scrubber } from '../../logging/logger.ts'
import { type BotMetrics, metricsAlertSink } from '../../ops/metrics.ts'
import { createRecentAlerts } from '../../ops/recentAlerts.ts'
import type { Random } from '../../random.ts'
import type { Secrets, Settings } from '../../settings/schema.ts'
import { createSignal, type Signal } from '../shared/signal.ts'

export interface AlertHub extends EpisodeRestore {
  /** Delivers to every sink; never throws, never blocks. */
  send(alert: Alert): void
  /** The most recent alerts (for `/status`), oldest first. */
  recent(): Alert[]
  /**
   * The episodes open now, most recently touched first: every alert of the run read once as it is
   * sent (alerts/episodes.ts), so an episode held for hours stays open however many alerts pass after it.
   * After a restart it starts with the episodes the parts restored open (`restoreOpen`).
   */
  open(): OpenEpisode[]
  /**
   * Episodes a part's restored state holds open (the account watch after a restart): into the book
   * only, scrubbed as every alert is; no sink, no `published`, not in `raised` (not raised this run).
   */
  restoreOpen(alerts: readonly Alert[]): void
  /** Each alert as it is sent: parts built later (the phone) subscribe. */
  readonly published: Pick<Signal<Alert>, 'subscribe'>
  /** Everything raised in this run (bounded), oldest first. */
  raised(): readonly Alert[]
  /** Waits (bounded) for queued deliveries; used at shutdown. */
  flush(timeoutMs: number): Promise<void>
}

const RECENT_ALERTS = 50
const RAISED_KEPT = 500

export function createAlertHub(o: {
  settings: Settings
  secrets: Secrets
  clock: Clock
  random: Random
  logger: Logger
  metrics: Pick<BotMetrics, 'recordAlert'>
  extraSinks?: readonly AlertSink[] | undefined
  /** The process's one scrubber: every alert is scrubbed once, before any sink (log, webhook, journal, `/status`). */
  secretBag?: Scrubber | undefined
}): AlertHub {
  const recent = createRecentAlerts(RECENT_ALERTS)
  const raised: Alert[] = []
  const episodes = new EpisodeBook()
  const sinks: AlertSink[] = [
    createLogAlertSink(componentLogger(o.logger, 'alerts')),
    metricsAlertSink(o.metrics),
    recent,
  ]
  if (o.secrets.ALERT_WEBHOOK_URL) {
    const w = o.settings.alerts.webhook
    sinks.push(
      createWebhookAlertSink({
        url: o.secrets.ALERT_WEBHOOK_URL,
        ...webhookSinkSettings(w),
        mode: o.settings.mode,
        clock: o.clock,
        random: o.random,
        logger: componentLogger(o.logger, 'webhook'),
      }),
    )
  }
  sinks.push(...(o.extraSinks ?? []))
  const all = fanOut(sinks)
  const published = createSignal<Alert>()
  const scrubbed = (a: Alert): Alert =>
    o.secretBag === undefined ? a : scrubAlert(a, (t) => o.secretBag?.scrub(t) ?? t)
  return {
    published,
    send(raw) {
      const alert = scrubbed(raw)
      all.send(alert)
      episodes.observe(alert)
      published.emit(alert)
      raised.push(alert)
      if (raised.length > RAISED_KEPT) raised.shift()
    },
    restoreOpen(alerts) {
      for (const a of alerts) episodes.observe(scrubbed(a))
    },
    recent: () => recent.list(),
    open: () => episodes.open(),
    raised: () => raised,
    flush: async (timeoutMs) => {
      await all.flush?.(timeoutMs)
    },
  }
}

/** The webhook sink's options that come from `alerts.webhook` (the URL is a secret, not a setting). */
export function webhookSinkSettings(w: Settings['alerts']['webhook']) {
  return {
    format: w.format,
    inDryRun: w.inDryRun,
    telegramChatId: w.telegramChatId,
    minSeverity: w.minSeverity,
    maxPerMinute: w.maxPerMinute,
    retries: w.retries,
    timeoutMs: w.timeoutMs,
  }
}

/**
 * The bot's alert hub, from the parts before it: the extra sinks (tests) and the journal's beside the
 * log, metrics and webhook; the journal's own health is then watched through the hub.
 */
export function createBotAlertHub(
  o: Omit<Parameters<typeof createAlertHub>[0], 'extraSinks'> & {
    alertSinks?: readonly AlertSink[] | undefined
    journal: { readonly alertSinks: readonly AlertSink[]; watchHealth(alerts: AlertSink): void }
  },
): AlertHub {
  const alerts = createAlertHub({ ...o, extraSinks: [...(o.alertSinks ?? []), ...o.journal.alertSinks] })
  o.journal.watchHealth(alerts)
  return alerts
}
