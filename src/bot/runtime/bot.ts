/**
 * The assembled bot: limiter → connections → batcher → order gateway → supervisor with one actor per
 * instrument → feeds → account monitor → alerts, metrics and the ops server. `startBot` returns a
 * handle whose `stop` applies the exit policy and releases everything within the shutdown budget.
 */
import { resolve as resolvePath } from 'node:path'
import { type Alert, type AlertSink, fanOut } from '../../alerts/alert.ts'
import { createLogAlertSink } from '../../alerts/logSink.ts'
import { createWebhookAlertSink } from '../../alerts/webhookSink.ts'
import { createCatalogueClient } from '../../catalogue/client/createCatalogueClient.ts'
import { type Clock, sleep } from '../../clock.ts'
import {
  ClockSkewError,
  describeError,
  RateLimitError,
  TransportError,
  UnknownOutcomeError,
} from '../../errors.ts'
import type { Logger, SecretBag } from '../../logging/logger.ts'
import {
  createBotMetrics,
  formatStatePath,
  metricsAlertSink,
  type StateValueLike,
} from '../../ops/metrics.ts'
import { startOpsServer } from '../../ops/opsServer.ts'
import { createRecentAlerts } from '../../ops/recentAlerts.ts'
import type { BotStatus, InstrumentStatus } from '../../ops/status.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type { Random } from '../../random.ts'
import type { Secrets, Settings } from '../../settings/schema.ts'
import { instrumentForStrategy } from '../../strategy/snapshot.ts'
import { createBatcher } from '../batcher.ts'
import type { InstrumentContext } from '../instrument/instrument.machine.ts'
import { createWeightLimiter } from '../limiter/weightLimiter.ts'
import { AccountWatch, type AccountWatchState } from '../monitor/accountWatch.ts'
import { childId, type SupervisedInstrument } from '../supervisor.machine.ts'
import { startAccountMonitor } from './accountMonitor.ts'
import { connect, type ResolvedInstrumentConfig, syncClock } from './bootstrap.ts'
import { startFeeds } from './feeds.ts'
import { createInstrumentSupervisor, instrumentDeps } from './instrumentActors.ts'
import { createOrderGateway } from './orderGateway.ts'
import { startPoller } from './poller.ts'
import { createStateStore } from './stateStore.ts'

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
  catalogueUrl: string
  /** Dry run: generate keys and register a proxy on the venue (the mock). */
  selfProvision: boolean
  /** Extra alert sinks (tests). */
  alertSinks?: readonly AlertSink[] | undefined
  /** Start the ops HTTP server (default true). */
  ops?: boolean | undefined
}

export interface RunningBot {
  status(): BotStatus
  ready(): { ok: boolean; reasons: string[] }
  readonly opsUrl: string | undefined
  readonly proxyAddress: string
  /** Alerts raised so far (most recent last, bounded). */
  alerts(): readonly Alert[]
  /** Stops everything; applies the exit policy. Idempotent. */
  stop(reason: string): Promise<void>
}

const RECENT_ALERTS = 50

export async function startBot(o: BotOptions): Promise<RunningBot> {
  const { settings, logger, clock } = o
  const startedAt = clock.now()
  const log = logger.child({ component: 'bot' })
  const metrics = createBotMetrics({ clock })
  const recent = createRecentAlerts(RECENT_ALERTS)
  const raised: Alert[] = []
  const onAlert = (a: Alert): void => {
    raised.push(a)
    if (raised.length > 500) raised.shift()
  }

  // --- alerts ---
  const sinks: AlertSink[] = [
    createLogAlertSink(logger.child({ component: 'alerts' })),
    metricsAlertSink(metrics),
    recent,
  ]
  if (o.secrets.ALERT_WEBHOOK_URL) {
    const w = settings.alerts.webhook
    sinks.push(
      createWebhookAlertSink({
        url: o.secrets.ALERT_WEBHOOK_URL,
        format: w.format,
        telegramChatId: w.telegramChatId,
        minSeverity: w.minSeverity,
        maxPerMinute: w.maxPerMinute,
        retries: w.retries,
        timeoutMs: w.timeoutMs,
        clock,
        random: o.random,
        logger: logger.child({ component: 'webhook' }),
      }),
    )
  }
  sinks.push(...(o.alertSinks ?? []))
  const alerts = fanOut(sinks)
  const sendAlert = (a: Alert): void => {
    alerts.send(a)
    onAlert(a)
  }

  // --- limiter: every request passes it with its weight ---
  const rateLimitTimes: number[] = []
  let supervisorRef:
    | { send: (e: { type: 'ROUTE'; event: { type: 'BREAKER'; open: boolean } }) => void }
    | undefined
  const limiter = createWeightLimiter({
    requestBudget: settings.limiter.requestBudgetPerMinute,
    actionBudget: settings.limiter.actionBudgetPerMinute,
    headroom: settings.limiter.headroom,
    riskReserve: settings.limiter.riskReserve,
    breakerThreshold: settings.limiter.breakerThreshold,
    breakerWindowMs: settings.limiter.breakerWindowMs,
    breakerCoolDownMs: settings.limiter.breakerCooldownMs,
    clock,
    random: o.random,
    onBreaker: (state, reason) => {
      log.warn({ breaker: state, reason }, `rate-limit breaker ${state}: ${reason}`)
      supervisorRef?.send({ type: 'ROUTE', event: { type: 'BREAKER', open: state === 'open' } })
      sendAlert(
        state === 'open'
          ? {
              key: 'rate-limit-breaker',
              severity: 'warning',
              title: 'Quoting paused by the rate-limit breaker',
              message: reason,
              at: clock.now(),
            }
          : {
              key: 'rate-limit-breaker',
              severity: 'warning',
              title: `Rate-limit breaker ${state}`,
              message: reason,
              at: clock.now(),
              resolved: state === 'closed',
            },
      )
    },
  })
  metrics.setLimiterSource(() => {
    const s = limiter.state()
    return {
      request: { used: s.request.used, capacity: s.request.limit },
      action: { used: s.action.used, capacity: s.action.limit },
    }
  })
  const COMMANDS = new Set(['createOrders', 'modifyOrders', 'cancelOrders', 'cancelAll'])

  // --- connections ---
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
    // Batch commands are charged by the batcher's (or gateway's) own limiter job; reads here.
    beforeRequest: async (info) => {
      if (COMMANDS.has(info.endpoint)) return
      await limiter.schedule({ endpoint: info.endpoint, priority: 'read' }, async () => undefined)
    },
    onRateLimited: ({ error }) => {
      rateLimitTimes.push(clock.now())
      metrics.recordRateLimited(error.code)
      limiter.onRateLimited(error)
    },
  })
  const { perps, venueClock } = conn
  const catalogue = createCatalogueClient({ transport: conn.catalogueTransport, clock, random: o.random })

  // --- batcher and gateway ---
  let feedsRef: { reconcile: (ids?: readonly number[]) => Promise<void> } | undefined
  const batcher = createBatcher({
    limiter,
    clock,
    windowMs: settings.batcher.windowMs,
    maxBatchSize: settings.batcher.maxBatchSize,
    send: (async (type: string, items: readonly unknown[], { signal }: { signal: AbortSignal }) => {
      const sent =
        type === 'modifyOrders'
          ? perps.modifyOrders(items as never, { signal })
          : type === 'createOrders'
            ? perps.createOrders(items as never, { signal })
            : perps.cancelOrders(items as number[], { signal })
      try {
        const results = await sent
        metrics.recordBatch({ command: type, size: items.length, outcome: 'ok' })
        return results
      } catch (e) {
        const outcome =
          e instanceof UnknownOutcomeError || (e instanceof TransportError && e.maybeDelivered)
            ? 'unknown'
            : 'error'
        metrics.recordBatch({ command: type, size: items.length, outcome })
        throw e
      }
    }) as Parameters<typeof createBatcher>[0]['send'],
    reconcile: async (ids) => {
      log.warn({ instruments: ids }, 'reconciling open orders after an unknown outcome')
      await feedsRef?.reconcile(ids)
    },
    onReconcileError: (e, attempt) => log.error({ attempt, err: describeError(e) }, 'reconcile failed'),
  })
  const gateway = createOrderGateway({ batcher, limiter, perps })

  // --- instrument actors under the supervisor ---
  const fed: SupervisedInstrument[] = []
  const meta = new Map<number, { symbol: string; strategy: string }>()
  for (const r of o.strategies) {
    const inst = conn.instruments.get(r.symbol)
    if (!inst) continue
    const strategyInstrument = instrumentForStrategy(inst)
    meta.set(inst.instrument_id, { symbol: inst.symbol, strategy: r.strategy.name })
    fed.push({
      id: inst.instrument_id,
      symbol: inst.symbol,
      asset: inst.base_asset,
      input: {
        instrument: strategyInstrument,
        deps: instrumentDeps(settings, r.strategy, {
          clock: venueClock,
          logger: logger.child({ instrument: inst.symbol, strategy: r.strategy.name }),
        }),
      },
    })
  }
  const supervisor = createInstrumentSupervisor(gateway, { clock, instruments: fed, logger: log })
  supervisorRef = supervisor
  supervisor.on('restarted', (e) => {
    log.warn({ instrumentId: e.id, attempt: e.attempt }, 'instrument actor restarted; re-feeding inputs')
    for (const p of feeds.pollers) p.trigger()
  })
  supervisor.on('gaveUp', (e) => {
    sendAlert({
      key: `actor:${e.id}`,
      severity: 'critical',
      title: 'Instrument actor stopped',
      message: `The actor for ${meta.get(e.id)?.symbol ?? e.id} failed repeatedly and was stopped; its orders are cancelled.`,
      at: clock.now(),
    })
    void gateway.cancelAll(e.id).catch(() => undefined)
  })
  supervisor.start()

  // --- account monitor (its episodes survive restarts, so an ongoing one does not alert again) ---
  const watch = new AccountWatch(settings.monitor)
  // Live only: a dry run is a fresh throwaway account every time. Keyed by proxy (the account's key).
  const store = o.selfProvision
    ? undefined
    : createStateStore(resolvePath(settings.ops.stateDir), (e) =>
        log.warn({ err: describeError(e) }, 'cannot write the state journal'),
      )
  const journal = `account-watch-${conn.proxyAddress.toLowerCase()}`
  const saved = store?.read<AccountWatchState>(journal)
  if (saved) {
    watch.importState(saved)
    log.info('restored alert episodes from the state journal')
  }
  let lastSaved = JSON.stringify(watch.exportState())
  const persistWatch = (): void => {
    const now = JSON.stringify(watch.exportState())
    if (now === lastSaved) return
    lastSaved = now
    store?.write(journal, watch.exportState())
  }
  const rateLimitCount = (): number => {
    const cutoff = clock.now() - settings.monitor.rateLimitWindowMs
    while (rateLimitTimes.length > 0 && (rateLimitTimes[0] ?? 0) < cutoff) rateLimitTimes.shift()
    return rateLimitTimes.length
  }
  const feedErrors = new Map<string, number>()
  const onFeedError = (feed: string, e: unknown): void => {
    feedErrors.set(feed, (feedErrors.get(feed) ?? 0) + 1)
    if (e instanceof RateLimitError) rateLimitCount()
  }
  const monitor = startAccountMonitor({
    perps,
    clock,
    logger: logger.child({ component: 'monitor' }),
    watch,
    alerts,
    polling: settings.polling,
    proxyAddress: conn.proxyAddress,
    proxyExpiry: conn.proxyExpiry,
    rateLimitCount,
    onAlert: (a) => {
      onAlert(a)
      persistWatch()
    },
    onFeedError,
  })

  // --- feeds ---
  let reconciledAt: number | undefined
  let lastOrders: readonly Order[] = []
  const feeds = startFeeds({
    perps,
    catalogue,
    clock,
    logger: logger.child({ component: 'feeds' }),
    supervisor,
    instruments: o.strategies.flatMap((r) => {
      const inst = conn.instruments.get(r.symbol)
      return inst
        ? [
            {
              id: inst.instrument_id,
              symbol: inst.symbol,
              asset: inst.base_asset,
              catalogueQuery: r.strategy.catalogueQuery,
            },
          ]
        : []
    }),
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
    onPortfolio: (p) => {
      monitor.observePortfolio(p)
      const s = watch.snapshot()
      metrics.setAccount({ marginRatio: s.marginRatio, inLiquidation: s.inLiquidation })
    },
    onOrders: (orders) => {
      reconciledAt = clock.now()
      lastOrders = orders
    },
    onTimeSync: async () => {
      try {
        const offset = await syncClock(perps, clock, venueClock)
        if (offset !== undefined) monitor.observeClockSkew(offset)
      } catch (e) {
        // A refused offset: signing stops until a sane sync; the skew alert says how far off it was.
        if (e instanceof ClockSkewError) monitor.observeClockSkew(e.offsetMs)
        throw e
      }
    },
    onFeedError,
  })
  feedsRef = feeds

  // --- status, readiness, metrics refresh ---
  const instrumentStatus = (): InstrumentStatus[] =>
    fed.map((f) => {
      const child = supervisor.getSnapshot().children[childId(f.id)] as
        | { getSnapshot(): { value: unknown; context: InstrumentContext; status: string } }
        | undefined
      const snap = child?.getSnapshot()
      const ctx = snap?.context
      const state = snap ? formatStatePath(snap.value as StateValueLike, ['ticker']) : 'stopped'
      const now = venueClock.now()
      return {
        symbol: f.symbol,
        id: f.id,
        state,
        reason: ctx?.assessment.reason ?? 'actor stopped',
        mode: ctx?.mode.mode ?? 'halted',
        strategy: meta.get(f.id)?.strategy,
        openOrders: ctx?.openOrders.length ?? 0,
        lastQuoteAt: ctx?.stats.lastSubmitAt,
        quoteAgeMs: ctx?.stats.lastSubmitAt === undefined ? undefined : now - ctx.stats.lastSubmitAt,
        stats: {
          plans: ctx?.stats.plans ?? 0,
          submitted: ctx?.stats.submitted ?? 0,
          rejected: ctx?.stats.rejected ?? 0,
          unknown: ctx?.stats.unknown ?? 0,
          strategyErrors: ctx?.stats.strategyErrors ?? 0,
        },
        details: { indexPrice: ctx?.index?.price ?? null },
      }
    })
  let stopping = false
  const ready = (): { ok: boolean; reasons: string[] } => {
    const reasons: string[] = []
    if (stopping) reasons.push('stopping')
    if (reconciledAt === undefined) reasons.push('open orders not reconciled yet')
    for (const i of instrumentStatus()) {
      if (i.state === 'syncing') reasons.push(`${i.symbol}: syncing`)
      else if (i.state.startsWith('halted') && /stale|no /.test(i.reason ?? ''))
        reasons.push(`${i.symbol}: ${i.reason}`)
    }
    return { ok: reasons.length === 0, reasons }
  }
  const status = (): BotStatus => {
    const s = watch.snapshot()
    const l = limiter.state()
    const b = batcher.state()
    return {
      mode: settings.mode,
      startedAt,
      uptimeMs: clock.now() - startedAt,
      instruments: instrumentStatus(),
      account: {
        marginRatio: s.marginRatio,
        marginLevel: s.marginLevel,
        inLiquidation: s.inLiquidation,
        pendingWithdrawals: s.pendingWithdrawals,
        details: {
          proxy: conn.proxyAddress,
          proxyExpiring: s.proxyExpiring,
          fundingCharges: monitor.fundingCharges,
          openOrders: lastOrders.length,
          reconciledAt: reconciledAt ?? null,
          clockOffsetMs: venueClock.offsetMs,
        },
      },
      limiter: {
        budgets: {
          request: {
            used: l.request.used,
            capacity: l.request.limit,
            queued: l.queued.read + l.queued.quote,
          },
          action: { used: l.action.used, capacity: l.action.limit, queued: l.queued.risk },
        },
        backoffUntil: l.pausedUntil.request ?? l.pausedUntil.action,
        details: {
          breaker: l.breaker,
          rateLimited: l.rateLimited,
          queued: l.queued,
          batchesSent: b.batchesSent,
          itemsSent: b.itemsSent,
          unknownBatches: b.unknownBatches,
          reconciles: b.reconciles,
          feedErrors: Object.fromEntries(feedErrors),
        },
      },
      alerts: recent.list(),
    }
  }
  const refresher = startPoller({
    name: 'metrics',
    clock,
    intervalMs: () => 1_000,
    run: async () => {
      for (const i of instrumentStatus()) {
        metrics.setInstrumentState(i.symbol, i.state)
        metrics.setLastQuoteAt(i.symbol, i.lastQuoteAt)
      }
    },
    onError: () => undefined,
  })

  const opsServer =
    o.ops === false
      ? undefined
      : await startOpsServer({
          host: settings.ops.host,
          port: settings.ops.port,
          registry: metrics.registry,
          getStatus: status,
          isLive: () => ({ ok: !stopping, reason: stopping ? 'stopping' : 'running' }),
          isReady: ready,
          logger: logger.child({ component: 'ops' }),
          secrets: o.secretBag.needles,
        })
  log.info(
    { instruments: fed.map((f) => f.symbol), proxy: conn.proxyAddress, ops: opsServer?.url },
    `perpbot ${settings.mode} running with ${fed.length} instrument(s)`,
  )

  let stopped: Promise<void> | undefined
  return {
    status,
    ready,
    opsUrl: opsServer?.url,
    proxyAddress: conn.proxyAddress,
    alerts: () => raised,
    stop(reason) {
      stopped ??= (async () => {
        stopping = true
        log.info({ reason }, `stopping: ${reason}`)
        // 1. No new inputs, no new plans.
        await Promise.allSettled([feeds.stop(), monitor.stop(), refresher.stop()])
        supervisor.send({ type: 'STOP_ALL' })
        persistWatch()
        // 2. Finish (or abandon after a bound) the in-flight batch.
        await Promise.race([batcher.stop(), sleep(clock, 3_000)])
        // 3. Exit policy.
        if (settings.ops.exitPolicy === 'cancel-all') {
          try {
            await Promise.race([
              // Through the limiter as risk work: even the last request respects the budget.
              gateway.cancelAll(undefined),
              sleep(clock, 3_000).then(() => {
                throw new Error('cancel-all timed out')
              }),
            ])
            log.info('exit policy: cancelled all open orders')
          } catch (e) {
            log.error({ err: describeError(e) }, 'exit policy: cancel-all failed; orders may remain open')
          }
        } else log.info('exit policy: leaving open orders in place')
        await limiter.stop()
        await alerts.flush?.(1_000)
        await Promise.allSettled([opsServer?.close(), conn.close()])
        supervisor.stop()
        log.info('stopped')
      })()
      return stopped
    },
  }
}
