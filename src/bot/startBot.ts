/**
 * The composition root: `startBot` constructs the bot's parts in order, each taking only parts built
 * before it (see docs/architecture.md), and returns a handle whose `stop` applies the exit policy.
 */
import type { Alert, AlertSink } from '../alerts/alert.ts'
import { createCatalogueClient } from '../catalogue/client/createCatalogueClient.ts'
import type { Clock } from '../clock.ts'
import { describeError } from '../errors.ts'
import type { Logger, SecretBag } from '../logging/logger.ts'
import { createBotMetrics } from '../ops/metrics.ts'
import { startOpsServer } from '../ops/opsServer.ts'
import { registerPnlMetrics } from '../ops/pnlMetrics.ts'
import type { BotStatus } from '../ops/status.ts'
import { createWatchdog } from '../ops/watchdog.ts'
import type { Random } from '../random.ts'
import type { Secrets, Settings } from '../settings/schema.ts'
import { createAccountSupervision } from './account/supervision/accountSupervision.ts'
import { createInstrumentFleet } from './actors/instrumentActors.ts'
import { createInputSources, STREAM_INPUTS } from './inputs/inputGates.ts'
import { createFeedHealth } from './inputs/pollerHealth.ts'
import { startFeeds } from './inputs/pollers.ts'
import { type StreamInputs, startStreamInputs } from './inputs/streams/botStreams.ts'
import { createChangeFilter } from './inputs/streams/streamRoutes.ts'
import { createBotLimiter } from './limiter/botLimiter.ts'
import { createAlertHub } from './observe/alertHub.ts'
import {
  buildReadiness,
  buildStatus,
  type InstrumentState,
  instrumentBasics,
  instrumentState,
  type StatusInputs,
} from './observe/statusView.ts'
import { startTimeline, timelineCapacity } from './observe/timeline.ts'
import { boardOf, sampleTimeline, type TimelineInputs } from './observe/timelineSample.ts'
import { startDeadManSwitch } from './orders/deadManSwitch.ts'
import { createOpenOrderBook } from './orders/openOrderBook.ts'
import { createOrderPath } from './orders/orderDesk.ts'
import { startPoller } from './shared/poller.ts'
import { type ConnectOptions, connect, type ResolvedInstrumentConfig } from './startup/connect.ts'
import { ordersMayRemain, runStopSequence, type StopReport } from './startup/stopSequence.ts'

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
  const { settings, logger, clock } = o
  const startedAt = clock.now()
  const log = logger.child({ component: 'bot' })

  const metrics = createBotMetrics({ clock })
  const watchdog = createWatchdog({ clock, stallMs: settings.ops.watchdog.eventLoopStallMs })
  watchdog.start()
  const alerts = createAlertHub({
    settings,
    secrets: o.secrets,
    clock,
    random: o.random,
    logger,
    metrics,
    extraSinks: o.alertSinks,
  })
  const bl = createBotLimiter({
    settings,
    clock,
    random: o.random,
    logger: log,
    alerts,
    onRateLimited: (code) => metrics.recordRateLimited(code),
  })
  const { limiter } = bl
  metrics.setLimiterSource(() => {
    const s = limiter.state()
    return {
      request: { used: s.request.used, capacity: s.request.limit },
      action: { used: s.action.used, capacity: s.action.limit },
    }
  })
  const conn = await connect({
    settings,
    secrets: o.secrets,
    logger: log,
    secretBag: o.secretBag,
    baseClock: clock,
    random: o.random,
    perpsUrl: o.perpsUrl,
    catalogueUrl: o.catalogueUrl,
    selfProvision: o.selfProvision,
    gate: limiter,
    transports: o.transports,
  })
  const { perps, venueClock } = conn
  const instrumentIds = o.strategies.flatMap((r) => conn.instruments.get(r.symbol)?.instrument_id ?? [])
  const openOrders = createOpenOrderBook({ perps, clock, instrumentIds })
  const orders = createOrderPath({
    perps,
    openOrders,
    settings,
    clock,
    logger: log,
    recordBatch: (b) => metrics.recordBatch(b),
    alerts,
  })
  const deadMan = settings.ops.deadManSwitch.enabled
    ? startDeadManSwitch({
        perps,
        clock,
        venueClock,
        deadlineMs: settings.ops.deadManSwitch.deadlineMs,
        refreshMs: settings.ops.deadManSwitch.refreshMs,
        logger: log,
        alerts,
      })
    : undefined
  // No quote before the backstop is armed (a kill right after the start would leave them on the
  // book); a venue that keeps refusing it gets the warning and the bot trades on (its design).
  if (deadMan && !(await deadMan.whenArmed(settings.ops.deadManSwitch.deadlineMs)))
    log.warn('dead-man switch not armed yet; quoting starts without it')
  const fleet = createInstrumentFleet({
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
  })
  const health = createFeedHealth({ watchdog, graceMs: settings.ops.watchdog.loopGraceMs, alerts, clock })
  // Which inputs come from the streams right now; the pollers stand down behind these gates.
  const streamUrl = settings.streams.enabled ? o.streamUrl : undefined
  if (settings.streams.enabled && streamUrl === undefined)
    log.warn('streams.enabled but no stream address (set PERPS_WS_URL): every input polls')
  // Statistics are an input only where a strategy reads them: otherwise neither streamed nor polled.
  const readsStatistics = fleet.instruments.some((i) => i.readsStatistics)
  const sources = createInputSources({
    clock,
    enabled: streamUrl !== undefined,
    inputs: STREAM_INPUTS.filter((i) => i !== 'statistics' || readsStatistics),
  })
  const account = createAccountSupervision({
    settings,
    perps,
    clock,
    logger,
    alerts,
    health,
    proxyAddress: conn.proxyAddress,
    proxyExpiry: conn.proxyExpiry,
    rateLimitCount: bl.rateLimitCount,
    openOrderCapCount: bl.openOrderCapCount,
    journal: !o.selfProvision,
    instruments: fleet.instruments,
    sources,
  })
  registerPnlMetrics(metrics.registry, () => ({
    pnl: account.pnl(),
    symbolOf: (iid) => fleet.instruments.find((i) => i.id === iid)?.symbol ?? `#${iid}`,
  }))
  const feeds = startFeeds({
    perps,
    catalogue: createCatalogueClient({ transport: conn.catalogueTransport, clock, random: o.random }),
    clock,
    venueClock,
    logger: logger.child({ component: 'feeds' }),
    fleet,
    openOrders,
    account,
    health,
    polling: settings.polling,
    // Index polls may use a third of the usable request budget.
    indexWeightPerMinute: Math.floor(
      (settings.limiter.requestBudgetPerMinute *
        settings.limiter.headroom *
        (1 - settings.limiter.riskReserve)) /
        3,
    ),
    klinesKept: settings.quoting.klinesKept,
    staleIndexMs: settings.quoting.staleIndexMs,
    staleStatisticsMs: settings.quoting.staleStatisticsMs,
    sources,
  })
  const traded = new Set(fleet.instruments.map((i) => i.id))
  const streams: StreamInputs | undefined =
    streamUrl === undefined
      ? undefined
      : startStreamInputs({
          url: streamUrl,
          credentials: conn.credentials,
          settings: settings.streams,
          clock,
          random: o.random,
          logger,
          sources,
          targets: {
            now: () => clock.now(),
            traded,
            route: fleet.route,
            klinesKept: settings.quoting.klinesKept,
            // Unchanged values refreshed at a third of their staleness bounds (BBO: 5 s by default).
            changed: createChangeFilter(() => clock.now(), {
              index: Math.floor(settings.quoting.staleIndexMs / 3),
              bbo: 1_500,
            }),
            orders: openOrders,
            account,
          },
        })

  let stopping = false
  const inputs = (): StatusInputs => {
    const book = openOrders.snapshot()
    return {
      mode: settings.mode,
      startedAt,
      now: clock.now(),
      venueNow: venueClock.now(),
      stopping,
      instruments: fleet.instruments.map((i) => ({ ...i, actor: fleet.snapshotOf(i.id) })),
      account: account.snapshot(),
      pnl: account.pnl(),
      proxyAddress: conn.proxyAddress,
      fundingCharges: account.fundingCharges,
      openOrders: book.orders.length,
      reconciledAt: book.reconciledAt,
      clockOffsetMs: venueClock.offsetMs,
      deadManSwitch: deadMan?.state(),
      limiter: limiter.state(),
      batcher: orders.batcher.state(),
      modify: orders.modify.state(),
      feedErrors: health.counts(),
      inputs: sources.snapshot(),
      stream: streams?.health(),
      alerts: alerts.recent(),
    }
  }
  // What a timeline sample reads, and no more (the whole status inputs copy the open-order book too).
  const timelineInputs = (): TimelineInputs => ({
    mode: settings.mode,
    now: clock.now(),
    venueNow: venueClock.now(),
    instruments: fleet.instruments.map((i) => ({ ...i, actor: fleet.snapshotOf(i.id) })),
    alerts: alerts.recent(),
    account: account.snapshot(),
    pnl: account.pnl(),
    limiter: limiter.state(),
  })
  const status = (): BotStatus => buildStatus(inputs())
  const ready = (): { ok: boolean; reasons: string[] } => buildReadiness(inputs())
  // The gauges and the dashboard's history exist for the ops server: without it (simulate) they would
  // only cost time.
  const withOps = o.ops !== false
  const refresher = withOps
    ? startPoller({
        name: 'metrics',
        clock,
        intervalMs: () => 1_000,
        // Only what the gauges show: the whole status (PnL, limiter, inputs) took 2 ms a second at 100
        // instruments and 20 ms at 1,000, a block a price move arriving then had to wait out.
        run: async () => {
          for (const i of fleet.instruments) {
            const actor = fleet.snapshotOf(i.id)
            metrics.setInstrumentState(i.symbol, instrumentState(actor))
            metrics.setLastQuoteAt(i.symbol, actor?.context.stats.lastSubmitAt)
          }
          const a = account.snapshot()
          metrics.setAccount({ marginRatio: a.marginRatio, inLiquidation: a.inLiquidation })
        },
        onError: () => undefined,
      })
    : undefined
  // The dashboard's history: samples of the same snapshots, on the bot's clock.
  const timeline = withOps
    ? startTimeline({
        clock,
        capacity: timelineCapacity(fleet.instruments.length),
        read: () => {
          const s = timelineInputs()
          return { sample: sampleTimeline(s), board: boardOf(s, account.recentFills()) }
        },
        onError: (e) => log.warn({ err: describeError(e) }, 'timeline sample failed'),
      })
    : undefined

  const opsServer =
    timeline === undefined
      ? undefined
      : await startOpsServer({
          host: settings.ops.host,
          port: settings.ops.port,
          registry: metrics.registry,
          getStatus: status,
          isLive: () => ({ ok: !stopping, reason: stopping ? 'stopping' : 'running' }),
          watchdog,
          token: o.secrets.PERPBOT_OPS_TOKEN,
          isReady: ready,
          logger: logger.child({ component: 'ops' }),
          secrets: o.secretBag.needles,
          timeline,
        })
  log.info(
    { instruments: fleet.instruments.map((i) => i.symbol), proxy: conn.proxyAddress, ops: opsServer?.url },
    `perpbot ${settings.mode} running with ${fleet.instruments.length} instrument(s)`,
  )

  let stopped: Promise<StopReport> | undefined
  return {
    status,
    instrumentStates: () =>
      fleet.instruments.map((i) => {
        const b = instrumentBasics({ ...i, actor: fleet.snapshotOf(i.id) })
        return { id: i.id, symbol: i.symbol, state: b.state, reason: b.reason }
      }),
    ready,
    opsUrl: opsServer?.url,
    proxyAddress: conn.proxyAddress,
    alerts: alerts.raised,
    stop(reason) {
      stopping = true
      watchdog.stop(reason)
      stopped ??= runStopSequence({
        reason,
        exitPolicy: settings.ops.exitPolicy,
        clock,
        logger: log,
        parts: {
          inputs: [streams, feeds, account, refresher, timeline].filter((p) => p !== undefined),
          stopPlanning: () => fleet.stopAll(),
          finishOrders: () => orders.batcher.stop(),
          cancelAll: (signal) => orders.gateway.cancelAll(undefined, { signal }),
          disarm: async (clear) => deadMan?.stop(clear),
          lastOrders: () =>
            ordersMayRemain([
              openOrders.snapshot().orders,
              ...fleet.instruments.map((i) => fleet.snapshotOf(i.id)?.context.openOrders ?? []),
            ]),
          releaseLimiter: () => limiter.stop(),
          flushAlerts: (ms) => alerts.flush(ms),
          close: [() => opsServer?.close(), () => conn.close(), () => fleet.stop()],
        },
      })
      return stopped
    },
  }
}
