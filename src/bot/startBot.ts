/**
 * The composition root: `startBot` constructs the bot's parts in order, each taking only parts built
 * before it (see docs/architecture.md), and returns a handle whose `stop` applies the exit policy.
 */
import type { Alert, AlertSink } from '../alerts/alert.ts'
import type { Clock } from '../clock.ts'
import type { FleetPart } from '../fleet/fleetPart.ts'
import type { Journal } from '../journal/journal.ts'
import { componentLogger, type Logger, type SecretBag } from '../logging/logger.ts'
import { createBotMetrics } from '../ops/metrics.ts'
import { registerPnlMetrics } from '../ops/pnlMetrics.ts'
import type { BotStatus, LimiterStatus } from '../ops/status.ts'
import { createWatchdog } from '../ops/watchdog.ts'
import type { StreamTap } from '../perps/stream/frameTap.ts'
import type { OpenStreamSource } from '../perps/stream/streamSource.ts'
import type { Random } from '../random.ts'
import type { Secrets, Settings } from '../settings/schema.ts'
import { createBotAccountSupervision } from './account/supervision/accountSupervision.ts'
import { createBotInstrumentActors } from './actors/instrumentActors.ts'
import { type BotControl, type ConfigSource, createBotControl } from './control/botControl.ts'
import { controlStatus, withControlStatus } from './control/controlStatus.ts'
import { createHolds } from './control/holds.ts'
import { createBotProtections, type Protections } from './control/protections.ts'
import { startBotTelegram } from './control/telegram.ts'
import { createBotInputGates } from './inputs/inputGates.ts'
import { createPollerHealth } from './inputs/pollerHealth.ts'
import { startBotPollers } from './inputs/pollers.ts'
import { startBotStreams } from './inputs/streams/botStreams.ts'
import { botChangeFilter } from './inputs/streams/streamRoutes.ts'
import { createBotLimiter } from './limiter/botLimiter.ts'
import { createBotAlertHub } from './observe/alertHub.ts'
import { type BotSummary, createBotViews } from './observe/botViews.ts'
import { startOpsSurface } from './observe/opsSurface.ts'
import { createRepeatedLog } from './observe/repeatedLog.ts'
import type { InstrumentState } from './observe/statusView.ts'
import { armBotDeadManSwitch } from './orders/deadManSwitch.ts'
import { createBotOpenOrderBook } from './orders/openOrderBook.ts'
import { createBotOrderDesk } from './orders/orderDesk.ts'
import { createOrderOwnership } from './orders/orderOwnership.ts'
import { createBotJournal } from './startup/botJournalPart.ts'
import type { ConnectOptions, VenueLink } from './startup/connect.ts'
import { createInstrumentAdmission } from './startup/instrumentAdmission.ts'
import { createKeyRotation, type KeyRotator } from './startup/keyRotation.ts'
import type { ResolvedInstrumentConfig } from './startup/resolveConfig.ts'
import { botStopFor, type StopReport } from './startup/stopSequence.ts'
import { connectBot } from './startup/watchedConnect.ts'

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
  /** The stream's pushes from a source in this process, not sockets (streamSource.ts); `streamUrl` is its label. */
  streamSource?: OpenStreamSource | undefined
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
  /**
   * Reads the public stream's frames as they arrive, before the bot parses them (`run --record`): the
   * pushes the bot receives, plus the channels the tap names (trades, books) on extra public sockets.
   */
  streamTap?: StreamTap | undefined
  /** Reads the configuration again for `perpbot reload` (the CLI's loader); absent: reload says it cannot. */
  configSource?: ConfigSource | undefined
}

export interface RunningBot {
  status(): BotStatus
  /** Each instrument's state, the open orders and the account's margin and PnL: the status line's (botViews.ts). */
  summary(): BotSummary
  /** Each instrument's state and reason only: the cheap part of `status()` (the simulator samples it). */
  instrumentStates(): readonly InstrumentState[]
  /** The limiter's budgets only, as `status().limiter.budgets` (the simulator charts them). */
  limiterBudgets(): LimiterStatus['budgets']
  ready(): { ok: boolean; reasons: string[] }
  readonly opsUrl: string | undefined
  readonly proxyAddress: string
  /** Switches the proxy key while running (`POST /control/rotate-key`, src/ops/rotateKeyEndpoint.ts). */
  readonly keyRotation: KeyRotator
  /** Alerts raised so far (most recent last, bounded). */
  alerts(): readonly Alert[]
  /** Commands to the running bot (pause, resume, cancel-all, flatten, reload, stop). */
  readonly control: BotControl
  /** The loss limits, cooldown and notional caps; `history()` lists every breach of the run. */
  readonly protections: Pick<Protections, 'view' | 'history'>
  /** Stops everything; applies the exit policy. Idempotent. */
  stop(reason: string): Promise<StopReport>
}

export async function startBot(o: BotOptions): Promise<RunningBot> {
  const { settings, clock } = o
  const startedAt = clock.now()
  const log = componentLogger(o.logger, 'bot')

  const metrics = createBotMetrics({ clock })
  const watchdog = createWatchdog({ clock, stallMs: settings.ops.watchdog.eventLoopStallMs })
  watchdog.start()
  const journal = createBotJournal({ journal: o.journal, clock, logger: log })
  const alerts = createBotAlertHub({ ...o, metrics, journal })
  const limits = createBotLimiter({ ...o, logger: log, alerts, metrics })
  metrics.watchLimiter(limits.limiter)
  o.fleet?.registerMetrics(metrics.registry)
  o.fleet?.watchHealth(alerts, clock)
  // Our orders carry our tag (and a fleet's lease epoch); others on the account are left alone.
  const ownership = createOrderOwnership({ orders: settings.orders, clock, fleet: o.fleet })
  // Lines a hostile venue can make repeat: one per kind per interval (observe/repeatedLog.ts).
  const repeated = createRepeatedLog({ logger: o.logger, clock })
  const base = { ...o, log, metrics, watchdog, journal, alerts, limits, ownership, repeated }
  const { startup, conn } = await connectBot(base)
  const { perps, venueClock } = conn
  const instrumentIds = o.strategies.flatMap((r) => conn.instruments.get(r.symbol)?.instrument_id ?? [])
  await journal.bindAccount(conn)
  await journal.reconcileAtStart(perps, venueClock)
  const venue = { ...base, conn, perps, venueClock, instrumentIds }
  const openOrders = createBotOpenOrderBook(venue)
  const keyRotation = createKeyRotation({
    ...conn,
    perps,
    clock: venueClock,
    logger: log,
    secretBag: o.secretBag,
  })
  const orders = createBotOrderDesk({ ...venue, openOrders })
  startup.step('the dead-man switch')
  const deadMan = await armBotDeadManSwitch({ ...venue, openOrders, orders })
  // Which stream pushes become actor events; the ages of the unchanged ones, which the actors read.
  const changes = botChangeFilter(() => clock.now(), settings.quoting)
  const actors = createBotInstrumentActors({ ...venue, orders, openOrders, ages: changes })
  const health = createPollerHealth({ watchdog, graceMs: settings.ops.watchdog.loopGraceMs, alerts, clock })
  // Which inputs come from the streams right now; the pollers stand down behind these gates.
  const { gates, streamUrl } = createBotInputGates({
    clock,
    streams: settings.streams,
    streamUrl: o.streamUrl,
    readsStatistics: actors.instruments.some((i) => i.readsStatistics),
    joined: actors.joined,
    logger: log,
  })
  // Mids at and after each of our fills (markouts), from the touches the streams route.
  const markouts = journal.markouts({ venueClock, registry: metrics.registry })
  const records = markouts.account(await journal.account(conn.proxyAddress, o.selfProvision))
  const inputs = { ...venue, actors, openOrders, health, gates, instruments: actors.instruments }
  const account = createBotAccountSupervision({ ...inputs, ...records })
  registerPnlMetrics(metrics.registry, account, actors.instruments)
  journal.registerMetrics(metrics.registry)
  const feeds = startBotPollers({ ...inputs, account, changes })
  const streams = startBotStreams({
    ...inputs,
    url: streamUrl,
    open: o.streamSource,
    account,
    // The markouts' inbox, and the actors' own joined and restarted signals.
    actors: { ...markouts.inbox(actors), joined: actors.joined, restarted: actors.restarted },
    changes,
  })
  // Held instruments (an operator's pause, a breached limit), the limits, and the commands.
  const holds = createHolds({ actors })
  const { protections, flattener } = createBotProtections({
    ...inputs,
    account,
    holds,
    orders,
    store: records.store,
  })
  // An instrument a reload adds: listed by the venue, room under the order cap, its leverage, its actor.
  const admission = createInstrumentAdmission(inputs)
  const control = createBotControl({
    ...inputs,
    holds,
    protections,
    flattener,
    orders,
    configSource: o.configSource,
    admission,
  })
  const parts = { ...inputs, orders, deadMan, account, feeds, streams, limiter: limits.limiter, protections }
  const views = withControlStatus(
    createBotViews({
      ...parts,
      mode: settings.mode,
      startedAt,
      proxy: conn.key,
      pollerHealth: health,
    }),
    () => controlStatus(protections, holds),
  )
  await startup.close()
  const ops = await startOpsSurface({
    ...parts,
    views,
    enabled: o.ops !== false,
    token: o.secrets.PERPBOT_OPS_TOKEN,
    secrets: o.secretBag.needles,
    scrubber: o.secretBag,
    history: journal.history,
    control,
    keyRotation,
  })
  // The phone (TELEGRAM_BOT_TOKEN): commands through the same control part, alerts as they are sent.
  const phone = await startBotTelegram({ ...parts, views, control, secrets: o.secrets })
  journal.startSnapshots({
    instruments: actors.instruments,
    joined: actors.joined,
    pnl: account.pnl,
    states: views.instrumentStates,
  })
  log.info(
    { instruments: actors.instruments.map((i) => i.symbol), proxy: conn.proxyAddress, ops: ops.url },
    `perpbot ${settings.mode} running with ${actors.instruments.length} instrument(s)`,
  )

  return {
    status: views.status,
    summary: views.summary,
    instrumentStates: views.instrumentStates,
    limiterBudgets: views.limiterBudgets,
    ready: views.ready,
    opsUrl: ops.url,
    proxyAddress: conn.proxyAddress,
    keyRotation,
    alerts: alerts.raised,
    control,
    protections,
    stop: botStopFor({ ...parts, views, ops, phone }),
  }
}
