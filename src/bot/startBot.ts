/**
 * The composition root: `startBot` constructs the bot's parts in order, each taking only parts built
 * before it (see docs/architecture.md), and returns a handle whose `stop` applies the exit policy.
 */
import type { Alert, AlertSink } from '../alerts/alert.ts'
import { droppedRowsObserver } from '../alerts/venueAlerts.ts'
import { createCatalogueClient } from '../catalogue/client/createCatalogueClient.ts'
import type { Clock } from '../clock.ts'
import type { FleetPart } from '../fleet/fleetPart.ts'
import type { Journal } from '../journal/journal.ts'
import type { Logger, SecretBag } from '../logging/logger.ts'
import { createBotMetrics } from '../ops/metrics.ts'
import { registerPnlMetrics } from '../ops/pnlMetrics.ts'
import type { BotStatus } from '../ops/status.ts'
import { createWatchdog } from '../ops/watchdog.ts'
import type { Random } from '../random.ts'
import type { Secrets, Settings } from '../settings/schema.ts'
import { createAccountSupervision } from './account/supervision/accountSupervision.ts'
import { createInstrumentActors } from './actors/instrumentActors.ts'
import { createBotInputGates } from './inputs/inputGates.ts'
import { createPollerHealth } from './inputs/pollerHealth.ts'
import { pollerSettings, startPollers } from './inputs/pollers.ts'
import { startBotStreams } from './inputs/streams/botStreams.ts'
import { createBotLimiter } from './limiter/botLimiter.ts'
import { createAlertHub } from './observe/alertHub.ts'
import { createBotViews } from './observe/botViews.ts'
import { startOpsSurface } from './observe/opsSurface.ts'
import { createRepeatedLog } from './observe/repeatedLog.ts'
import type { InstrumentState } from './observe/statusView.ts'
import { armDeadManSwitch } from './orders/deadManSwitch.ts'
import { createOpenOrderBook } from './orders/openOrderBook.ts'
import { createOrderDesk } from './orders/orderDesk.ts'
import { createOrderOwnership } from './orders/orderOwnership.ts'
import { createBotJournal } from './startup/botJournalPart.ts'
import { botResponseObserver } from './startup/botPerpsClient.ts'
import type { ConnectOptions, VenueLink } from './startup/connect.ts'
import { applyInstrumentLeverage } from './startup/instrumentLeverage.ts'
import type { ResolvedInstrumentConfig } from './startup/resolveConfig.ts'
import { botStop, type StopReport } from './startup/stopSequence.ts'
import { connectWatched } from './startup/watchedConnect.ts'

export interface BotOptions {
  settings: Settings
  secrets: Secrets
  logger: Logger
  secretBag: SecretBag
  /** Strategies already resolved (so a bad config fails before anything is started). */
  strategies: readonly ResolvedInstrumentConfig[]
  /** Wall time, or the embedded mock's virtual clock. */
  clock: Clock
  random: Random
  perpsUrl: string
  /** The venue's WebSocket (PERPS_WS_URL, or the embedded mock's); without it every input polls. */
  streamUrl?: string | undefined
  catalogueUrl: string
  /** Dry run: generate keys and register a proxy on the venue (the mock). */
  selfProvision: boolean
  /** Extra alert sinks (tests). */
  alertSinks?: readonly AlertSink[] | undefined
  /** Start the ops HTTP server (default true); without it the gauges and the dashboard history are not kept either. */
  ops?: boolean | undefined
  /** Ready transports instead of HTTP to the URLs (`perpbot simulate`'s in-process mock). */
  transports?: ConnectOptions['transports']
  /**
   * The journal (opened by the caller, which also closes it after `stop`): alerts, fills, funding,
   * restart state and a PnL snapshot per minute go to it; at start it is reconciled with the venue.
   */
  journal?: Journal | undefined
  /**
   * Fleet mode (`perpbot run --fleet`), with the account's lease already held: requests also pass
   * the shared IP budget and the lease fence; creates carry the epoch in their client order ids; an
   * older epoch's orders are cancelled at start; the dead-man switch stays within the lease TTL.
   */
  fleet?: FleetPart | undefined
  /** The venue already linked (a fleet's warm standby, `linkVenue`): the start does only the account's part. */
  venue?: VenueLink | undefined
}

export interface RunningBot {
  status(): BotStatus
  /** Each instrument's state and reason only: the cheap part of `status()` (the simulator samples it). */
  instrumentStates(): readonly InstrumentState[]
  ready(): { ok: boolean; reasons: string[] }
  readonly opsUrl: string | undefined
  readonly proxyAddress: string
  /** Alerts raised so far (most recent last, bounded). */
  alerts(): readonly Alert[]
  /** Stops everything; applies the exit policy. Idempotent. */
  stop(reason: string): Promise<StopReport>
}

export async function startBot(o: BotOptions): Promise<RunningBot> {
  const { settings, logger, clock, fleet } = o
  const startedAt = clock.now()
  const log = logger.child({ component: 'bot' })

  const metrics = createBotMetrics({ clock })
  const watchdog = createWatchdog({ clock, stallMs: settings.ops.watchdog.eventLoopStallMs })
  watchdog.start()
  const journal = createBotJournal({ journal: o.journal, clock, logger: log })
  const alerts = createAlertHub({
    ...o,
    logger,
    metrics,
    extraSinks: [...(o.alertSinks ?? []), ...journal.alertSinks],
  })
  journal.watchHealth(alerts)
  const bl = createBotLimiter({ settings, clock, random: o.random, logger: log, alerts, metrics })
  const { limiter } = bl
  metrics.watchLimiter(limiter)
  fleet?.registerMetrics(metrics.registry)
  // Our orders carry our tag (and a fleet's lease epoch); others on the account are left alone.
  const ownership = createOrderOwnership({ orders: settings.orders, clock, fleet })
  // Lines a hostile venue can make repeat: one per kind per interval (observe/repeatedLog.ts).
  const repeated = createRepeatedLog({ logger, clock })
  const { startup, conn } = await connectWatched({
    ...o,
    logger: log,
    metrics,
    serve: o.ops !== false,
    gate: fleet?.gate(limiter) ?? limiter,
    // The venue's own count of our weight corrects the limiter; unreadable rows raise a warning.
    observer: botResponseObserver({
      limiter,
      droppedItems: droppedRowsObserver({ alerts, now: () => clock.now() }).droppedItems,
    }),
  })
  const { perps, venueClock } = conn
  await fleet?.cancelOlderEpochs(perps, ownership.tag, log)
  startup.step('leverage and margin mode')
  await applyInstrumentLeverage({ perps, settings, listed: conn.instruments, logger: log }).catch(
    async (e: unknown) => {
      await startup.close()
      throw e
    },
  )
  const instrumentIds = o.strategies.flatMap((r) => conn.instruments.get(r.symbol)?.instrument_id ?? [])
  await journal.reconcileAtStart(perps, venueClock)
  const openOrders = createOpenOrderBook({
    perps,
    clock,
    instrumentIds,
    isOurs: ownership.isOurs,
    cancelForeign: ownership.cancelForeign(perps),
    logger: log,
    record: journal.orderStates,
  })
  const orders = createOrderDesk({
    perps,
    openOrders,
    orderIds: ownership.clientOrderIds(),
    isOurs: ownership.isOurs,
    settings,
    clock,
    logger: log,
    metrics: journal.batchRecorder(metrics),
    alerts,
  })
  startup.step('the dead-man switch')
  const deadMan = await armDeadManSwitch({
    settings: fleet?.deadManSettings(settings) ?? settings,
    perps,
    clock,
    venueClock,
    logger: log,
    alerts,
    pauses: bl.pauses,
    openOrders,
  })
  const actors = createInstrumentActors({
    settings,
    strategies: o.strategies,
    listed: conn.instruments,
    gateway: orders.gateway,
    openOrders,
    breaker: bl.breaker,
    alerts,
    clock,
    venueClock,
    logger,
    repeated,
  })
  const health = createPollerHealth({ watchdog, graceMs: settings.ops.watchdog.loopGraceMs, alerts, clock })
  // Which inputs come from the streams right now; the pollers stand down behind these gates.
  const { gates, streamUrl } = createBotInputGates({
    clock,
    streams: settings.streams,
    streamUrl: o.streamUrl,
    readsStatistics: actors.instruments.some((i) => i.readsStatistics),
    logger: log,
  })
  const account = createAccountSupervision({
    settings,
    perps,
    clock,
    logger,
    alerts,
    health,
    proxy: conn,
    limits: bl,
    journal: !o.selfProvision,
    ...(await journal.account(conn.proxyAddress, o.selfProvision)),
    instruments: actors.instruments,
    inputGates: gates,
  })
  registerPnlMetrics(metrics.registry, account, actors.instruments)
  journal.registerMetrics(metrics.registry)
  const feeds = startPollers({
    perps,
    catalogue: createCatalogueClient({ transport: conn.catalogueTransport, clock, random: o.random }),
    clock,
    venueClock,
    logger: logger.child({ component: 'pollers' }),
    actors,
    openOrders,
    account,
    health,
    ...pollerSettings(settings),
    inputGates: gates,
  })
  const streams = startBotStreams({
    url: streamUrl,
    credentials: conn.credentials,
    settings,
    clock,
    random: o.random,
    logger,
    repeated,
    gates,
    actors,
    orders: openOrders,
    account,
    alerts,
  })
  const views = createBotViews({
    mode: settings.mode,
    startedAt,
    proxyAddress: conn.proxyAddress,
    clock,
    venueClock,
    actors,
    account,
    openOrders,
    deadMan,
    limiter,
    orders,
    pollerHealth: health,
    gates,
    streams,
    alerts,
  })
  await startup.close()
  const ops = await startOpsSurface({
    enabled: o.ops !== false,
    settings,
    token: o.secrets.PERPBOT_OPS_TOKEN,
    secrets: o.secretBag.needles,
    clock,
    logger,
    metrics,
    watchdog,
    views,
    actors,
    account,
    fleet,
  })
  journal.startSnapshots({
    instruments: actors.instruments,
    pnl: account.pnl,
    states: views.instrumentStates,
  })
  log.info(
    { instruments: actors.instruments.map((i) => i.symbol), proxy: conn.proxyAddress, ops: ops.url },
    `perpbot ${settings.mode} running with ${actors.instruments.length} instrument(s)`,
  )

  return {
    status: views.status,
    instrumentStates: views.instrumentStates,
    ready: views.ready,
    opsUrl: ops.url,
    proxyAddress: conn.proxyAddress,
    alerts: alerts.raised,
    stop: botStop({
      views,
      watchdog,
      exitPolicy: settings.ops.exitPolicy,
      clock,
      logger: log,
      bot: {
        inputs: [streams, feeds, account, ...ops.loops],
        actors,
        orders,
        openOrders,
        deadMan,
        limiter,
        alerts,
        venueClock,
        exitOnly: ownership.exitOnly,
        close: [
          () => ops.close(),
          () => conn.close(),
          () => actors.stop(),
          () => repeated.stop(),
          () => journal.stop(),
        ],
      },
    }),
  }
}
