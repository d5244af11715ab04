/**
 * The bot's inputs: one poller per kind (tickers for every instrument's index and mark, statistics,
 * portfolio, open orders, catalogue per strategy query, venue time), each turning a response into
 * events routed to the actors of the instruments concerned. The streamed inputs' pollers stand
 * down behind their gates (inputGates.ts) while the stream serves them.
 */
import { type CatalogueClient, createCatalogueClient } from '../../catalogue/client/createCatalogueClient.ts'
import type { ListEventsKeysetParams } from '../../catalogue/client/listEventsKeyset.ts'
import type { Clock, OffsetClock } from '../../clock.ts'
import { ClockSkewError } from '../../errors.ts'
import type { HttpTransport } from '../../http/transport.ts'
import { componentLogger, type Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import { syncClock } from '../../perps/client/syncClock.ts'
import type { Portfolio } from '../../perps/schemas/account.ts'
import type { Ticker } from '../../perps/schemas/tickers.ts'
import { PERPS_WEIGHTS } from '../../perps/weights.ts'
import type { Random } from '../../random.ts'
import type { Settings } from '../../settings/schema.ts'
import { catalogueEventToSignal, statisticsForStrategy } from '../../strategy/snapshot.ts'
import type { CatalogueQuery, StrategyIndex } from '../../strategy/strategy.ts'
import { inChunks } from '../shared/chunks.ts'
import type { Poller } from '../shared/poller.ts'
import type { ActorInbox, OrderReconciler } from './actorInbox.ts'
import { gatedRun, type InputGate, type InputGates } from './inputGates.ts'
import { type PollerHealth, startHealthyPoller } from './pollerHealth.ts'
import { createStatisticsReads } from './statisticsReads.ts'
import { type AccountEvent, type ChangeFilter, routePortfolio } from './streams/streamRoutes.ts'

export interface PollersOptions {
  perps: PerpsClient
  catalogue: CatalogueClient
  /** The base clock (wall or the mock's virtual clock): poll timers and `receivedAt`. */
  clock: Clock
  /** Venue-corrected clock, re-synchronised by the time feed. */
  venueClock: OffsetClock
  logger: Logger
  actors: ActorInbox
  openOrders: OrderReconciler
  /** Where the portfolio and the measured clock skew go (account supervision). */
  account: { observePortfolio(p: Portfolio): void; observeClockSkew(offsetMs: number): void }
  health: Pick<PollerHealth, 'failed' | 'succeeded' | 'register' | 'cycled'>
  polling: Settings['polling']
  /** Request weight per minute the index polls may use in total. */
  indexWeightPerMinute: number
  /** Newest klines kept per instrument. */
  klinesKept: number
  /** Index older than this halts an instrument (to warn when polling cannot keep up). */
  staleIndexMs: number
  /** Statistics older than this halt an instrument (per-instrument reads keep within it). */
  staleStatisticsMs: number
  /** Gates of the streamed inputs: their pollers stand down while the stream serves them. */
  inputGates?: InputGates | undefined
  /**
   * Which polled portfolios become ACCOUNT events (`routePortfolio`): the change filter the streams
   * and the actors' input ages share (`botChangeFilter`), so an unchanged margin and position only
   * renew their age. Absent: every poll sends every instrument one.
   */
  changes?: ChangeFilter | undefined
}

export interface Feeds {
  pollers: Poller[]
  stop(): Promise<void>
}

/** A REST ticker row as the strategies' index (the row's time, else when it was read). */
export function indexFromTicker(t: Ticker, receivedAt: number): StrategyIndex {
  return {
    price: t.index_price,
    ts: t.timestamp ?? receivedAt,
    mark: t.mark_price,
    fundingRate: t.funding_rate,
  }
}

/** Maps a strategy's catalogue query to keyset params. */
export function toKeysetParams(q: CatalogueQuery): ListEventsKeysetParams {
  return {
    ...(q.tagSlug ? { tagSlug: q.tagSlug } : {}),
    ...(q.titleSearch ? { titleSearch: q.titleSearch } : {}),
    ...(q.slugs ? { slugs: [...q.slugs] } : {}),
    ...(q.ids ? { ids: q.ids.map(Number) } : {}),
    ...(q.closed !== undefined ? { closed: q.closed } : {}),
    ...(q.order ? { order: [...q.order] as ListEventsKeysetParams['order'] } : {}),
    ...(q.ascending !== undefined ? { ascending: q.ascending } : {}),
    limit: q.limit ?? 20,
  }
}

/** The request weight per minute the index polls may use: a third of the usable request budget. */
export function indexPollBudget(
  limiter: Pick<Settings['limiter'], 'requestBudgetPerMinute' | 'headroom' | 'riskReserve'>,
): number {
  return Math.floor((limiter.requestBudgetPerMinute * limiter.headroom * (1 - limiter.riskReserve)) / 3)
}

/** The pollers' policy from the settings: intervals, the index polls' share of the budget, staleness. */
export function pollerSettings(
  settings: Pick<Settings, 'polling' | 'limiter' | 'quoting'>,
): Pick<
  PollersOptions,
  'polling' | 'indexWeightPerMinute' | 'klinesKept' | 'staleIndexMs' | 'staleStatisticsMs'
> {
  return {
    polling: settings.polling,
    indexWeightPerMinute: indexPollBudget(settings.limiter),
    klinesKept: settings.quoting.klinesKept,
    staleIndexMs: settings.quoting.staleIndexMs,
    staleStatisticsMs: settings.quoting.staleStatisticsMs,
  }
}

export function startPollers(o: PollersOptions): Feeds {
  const { clock } = o
  const { route } = o.actors
  const instruments = o.actors.instruments
  const now = (): number => clock.now()
  const pollers: Poller[] = []
  const gates = o.inputGates && {
    index: o.inputGates.gate('index'),
    statistics: o.inputGates.gate('statistics'),
    portfolio: o.inputGates.gate('portfolio'),
    orders: o.inputGates.gate('orders'),
  }
  const poll = (
    name: string,
    intervalMs: () => number,
    run: (signal: AbortSignal) => Promise<void>,
    gate?: InputGate | undefined,
    retryMs?: number,
  ): void => {
    const poller = startHealthyPoller({
      name,
      clock,
      logger: o.logger,
      health: o.health,
      intervalMs,
      retryMs,
      run: gatedRun(gate, run),
    })
    // The stream went down, silent or out of sync: read now, not at the next interval.
    gate?.onResume(() => poller.trigger())
    pollers.push(poller)
  }

  // Index and mark of every instrument: one tickers read, within the index weight share.
  const traded = new Set(instruments.map((i) => i.id))
  const tickersWeight = PERPS_WEIGHTS.getTickers.request({})
  const indexInterval = Math.max(
    o.polling.indexMs,
    Math.ceil((tickersWeight * 60_000) / Math.max(1, o.indexWeightPerMinute)),
  )
  if (indexInterval > o.staleIndexMs) {
    o.logger.warn(
      { indexIntervalMs: indexInterval, staleIndexMs: o.staleIndexMs },
      `polling the tickers within the weight budget takes ${Math.round(indexInterval / 1000)} s per read, longer than quoting.staleIndexMs: instruments will halt as stale between polls unless the stream serves the index; raise the request budget or staleIndexMs`,
    )
  }
  poll(
    'tickers',
    () => indexInterval,
    async (signal) => {
      const tickers = await o.perps.getTickers(undefined, { signal })
      const at = now()
      await inChunks(
        tickers.filter((t) => traded.has(t.instrument_id)),
        (t) => route([t.instrument_id], { type: 'INDEX', index: indexFromTicker(t, at), receivedAt: at }),
      )
    },
    gates?.index,
  )

  // Statistics only for the instruments whose strategy reads them; none, no reads at all (until a
  // reload adds one that does: then the poller starts).
  const withStatistics = new Set(instruments.filter((i) => i.readsStatistics).map((i) => i.id))
  /** The ids the reads cover, sorted; updated in place when an instrument joins. */
  const statisticsIds = [...withStatistics].sort((a, b) => a - b)
  const readStatistics = createStatisticsReads({
    perps: o.perps,
    ids: statisticsIds,
    intervalMs: o.polling.statisticsMs,
    staleMs: o.staleStatisticsMs,
    weightPerMinute: o.indexWeightPerMinute,
    klinesKept: o.klinesKept,
    logger: o.logger,
  })
  let statisticsPolled = false
  const pollStatistics = (): void => {
    if (statisticsPolled || withStatistics.size === 0) return
    statisticsPolled = true
    poll(
      'statistics',
      () => o.polling.statisticsMs,
      async (signal) => {
        const items = await readStatistics(signal)
        const at = now()
        await inChunks(
          items.filter((item) => withStatistics.has(item.instrument_id)),
          // The reads keep only the newest `klinesKept` klines: a day per actor would dominate memory.
          (item) =>
            route([item.instrument_id], {
              type: 'STATISTICS',
              statistics: statisticsForStrategy(item),
              receivedAt: at,
            }),
        )
      },
      gates?.statistics,
      // A failed read retries well inside the staleness bound, not a whole interval later.
      Math.min(o.polling.statisticsMs, Math.floor(o.staleStatisticsMs / 12)),
    )
  }
  pollStatistics()

  poll(
    'portfolio',
    () => o.polling.portfolioMs,
    async (signal) => {
      const p = await o.perps.getPortfolio({ signal })
      o.account.observePortfolio(p)
      const routed: { id: number; event: AccountEvent }[] = []
      routePortfolio(
        p,
        instruments.map((i) => i.id),
        now(),
        (key, value) => o.changes?.classify(key, value, 'margin') ?? 'new',
        (id, event) => routed.push({ id, event }),
      )
      await inChunks(routed, (r) => route([r.id], r.event))
    },
    gates?.portfolio,
  )

  poll(
    'openOrders',
    () => o.polling.openOrdersMs,
    (signal) => o.openOrders.reconcile(undefined, { signal }),
    gates?.orders,
  )

  // Catalogue: one poller per distinct query, shared by the instruments that declared it.
  const byQuery = new Map<string, { query: CatalogueQuery; ids: Set<number> }>()
  const pollCatalogue = (id: number, query: CatalogueQuery | undefined): void => {
    for (const entry of byQuery.values()) entry.ids.delete(id)
    if (!query) return
    const key = JSON.stringify(query)
    const known = byQuery.get(key)
    if (known) {
      known.ids.add(id)
      return
    }
    const entry = { query, ids: new Set([id]) }
    byQuery.set(key, entry)
    poll(
      `catalogue:${byQuery.size - 1}`,
      () => query.refreshMs,
      async (signal) => {
        // A query no instrument asks for any more (a reload changed its strategy) is not read.
        if (entry.ids.size === 0) return
        const page = await o.catalogue.listEventsKeyset(toKeysetParams(query), { signal })
        const events = page.events.map(catalogueEventToSignal)
        route([...entry.ids], { type: 'CATALOGUE', catalogue: { events, fetchedAt: now() } })
      },
    )
  }
  for (const i of instruments) pollCatalogue(i.id, i.catalogueQuery)

  poll(
    'time',
    () => o.polling.timeSyncMs,
    async (signal) => {
      try {
        const offset = await syncClock(o.perps, clock, o.venueClock, { signal })
        if (offset !== undefined) o.account.observeClockSkew(offset)
      } catch (e) {
        // A refused offset: signing stops until a sane sync; the skew alert says how far off it was.
        if (e instanceof ClockSkewError) o.account.observeClockSkew(e.offsetMs)
        throw e
      }
    },
  )
  // A restarted actor lost its inputs: read everything again now, streamed inputs included.
  const readAll = (): void => {
    if (gates) for (const g of Object.values(gates)) g.want()
    for (const p of pollers) p.trigger()
  }
  // Its filtered values forgotten first, so the reads now route them to it as new.
  const unsubscribe = o.actors.restarted.subscribe((id) => {
    o.changes?.forget(id)
    readAll()
  })
  // An instrument a reload added (or gave a strategy reading other inputs): covered by the reads
  // from now on, and everything read now, so its actor has its inputs at once.
  const unjoin = o.actors.joined?.subscribe((i) => {
    traded.add(i.id)
    if (i.readsStatistics && !withStatistics.has(i.id)) {
      withStatistics.add(i.id)
      statisticsIds.push(i.id)
      statisticsIds.sort((a, b) => a - b)
    } else if (!i.readsStatistics && withStatistics.delete(i.id)) {
      statisticsIds.splice(statisticsIds.indexOf(i.id), 1)
    }
    pollStatistics()
    pollCatalogue(i.id, i.catalogueQuery)
    readAll()
  })

  return {
    pollers,
    async stop() {
      unsubscribe()
      unjoin?.()
      await Promise.all(pollers.map((p) => p.stop()))
    },
  }
}

/** The bot's pollers, from the parts before them: the catalogue client on the connection's transport. */
export function startBotPollers(
  o: Omit<PollersOptions, 'catalogue' | 'logger' | 'inputGates' | keyof ReturnType<typeof pollerSettings>> & {
    settings: Settings
    random: Random
    logger: Logger
    conn: { readonly catalogueTransport: HttpTransport }
    gates: InputGates
  },
): Feeds {
  return startPollers({
    ...o,
    catalogue: createCatalogueClient({
      transport: o.conn.catalogueTransport,
      clock: o.clock,
      random: o.random,
    }),
    logger: componentLogger(o.logger, 'pollers'),
    ...pollerSettings(o.settings),
    inputGates: o.gates,
  })
}
