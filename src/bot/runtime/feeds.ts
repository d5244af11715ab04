/**
 * The bot's inputs: one poller per kind (index per asset, statistics, portfolio, open orders,
 * catalogue per strategy query, venue time), each turning a response into events routed by the
 * supervisor to the instruments concerned. Poll intervals stretch with the number of assets so reads
 * stay inside their share of the request-weight budget.
 */
import type { CatalogueClient } from '../../catalogue/client/createCatalogueClient.ts'
import type { ListEventsKeysetParams } from '../../catalogue/client/listEventsKeyset.ts'
import type { Clock, OffsetClock } from '../../clock.ts'
import { ClockSkewError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Portfolio } from '../../perps/schemas/account.ts'
import { PERPS_WEIGHTS } from '../../perps/weights.ts'
import type { Settings } from '../../settings/schema.ts'
import {
  catalogueEventToSignal,
  indexForStrategy,
  marginForStrategy,
  positionForStrategy,
  statisticsForStrategy,
} from '../../strategy/snapshot.ts'
import type { CatalogueQuery } from '../../strategy/strategy.ts'
import { syncClock } from './bootstrap.ts'
import { inChunks } from './chunks.ts'
import { type FeedHealth, startFeedPoller } from './feedHealth.ts'
import type { InstrumentFleet } from './instrumentFleet.ts'
import type { OpenOrderBook } from './openOrderBook.ts'
import type { Poller } from './poller.ts'

export interface FeedOptions {
  perps: PerpsClient
  catalogue: CatalogueClient
  /** The base clock (wall or the mock's virtual clock): poll timers and `receivedAt`. */
  clock: Clock
  /** Venue-corrected clock, re-synchronised by the time feed. */
  venueClock: OffsetClock
  logger: Logger
  fleet: Pick<InstrumentFleet, 'supervisor' | 'instruments' | 'restarted'>
  openOrders: Pick<OpenOrderBook, 'reconcile'>
  /** Where the portfolio and the measured clock skew go (account supervision). */
  account: { observePortfolio(p: Portfolio): void; observeClockSkew(offsetMs: number): void }
  health: Pick<FeedHealth, 'failed' | 'succeeded' | 'register' | 'cycled'>
  polling: Settings['polling']
  /** Request weight per minute the index polls may use in total. */
  indexWeightPerMinute: number
  /** Newest klines kept per instrument. */
  klinesKept: number
  /** Index older than this halts an instrument (to warn when polling cannot keep up). */
  staleIndexMs: number
}

export interface Feeds {
  pollers: Poller[]
  stop(): Promise<void>
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
  } as ListEventsKeysetParams
}

export function startFeeds(o: FeedOptions): Feeds {
  const { clock } = o
  const { supervisor } = o.fleet
  const instruments = o.fleet.instruments
  const now = (): number => clock.now()
  const pollers: Poller[] = []
  const poll = (
    name: string,
    intervalMs: () => number,
    run: (signal: AbortSignal) => Promise<void>,
  ): void => {
    pollers.push(startFeedPoller({ name, clock, logger: o.logger, health: o.health, intervalMs, run }))
  }

  // Index: one poller per asset; the interval stretches so all assets fit the index weight share.
  const byAsset = new Map<string, number[]>()
  for (const i of instruments) byAsset.set(i.asset, [...(byAsset.get(i.asset) ?? []), i.id])
  const indexWeight = PERPS_WEIGHTS.getIndex.request({})
  const indexInterval = Math.max(
    o.polling.indexMs,
    Math.ceil((byAsset.size * indexWeight * 60_000) / o.indexWeightPerMinute),
  )
  if (indexInterval > o.staleIndexMs) {
    o.logger.warn(
      { assets: byAsset.size, indexIntervalMs: indexInterval, staleIndexMs: o.staleIndexMs },
      `polling ${byAsset.size} index prices within the weight budget takes ${Math.round(indexInterval / 1000)} s per asset, longer than quoting.staleIndexMs: instruments will halt as stale between polls; trade fewer assets or raise staleIndexMs`,
    )
  }
  for (const [asset, ids] of byAsset) {
    poll(
      `index:${asset}`,
      () => indexInterval,
      async (signal) => {
        const index = await o.perps.getIndex(asset, { signal })
        supervisor.send({
          type: 'ROUTE',
          ids,
          event: { type: 'INDEX', index: indexForStrategy(index), receivedAt: now() },
        })
      },
    )
  }

  const ids = new Set(instruments.map((i) => i.id))
  poll(
    'statistics',
    () => o.polling.statisticsMs,
    async (signal) => {
      const items = await o.perps.getStatistics(undefined, { signal })
      const at = now()
      await inChunks(
        items.filter((item) => ids.has(item.instrument_id)),
        (item) => {
          // Keep only the newest klines: a day of 1-minute klines per actor would dominate memory.
          const statistics = statisticsForStrategy(item)
          const klines = o.klinesKept > 0 ? statistics.klines.slice(-o.klinesKept) : []
          supervisor.send({
            type: 'ROUTE',
            ids: [item.instrument_id],
            event: { type: 'STATISTICS', statistics: { ...statistics, klines }, receivedAt: at },
          })
        },
      )
    },
  )

  poll(
    'portfolio',
    () => o.polling.portfolioMs,
    async (signal) => {
      const p = await o.perps.getPortfolio({ signal })
      const at = now()
      const margin = marginForStrategy(p)
      o.account.observePortfolio(p)
      await inChunks(instruments, (i) =>
        supervisor.send({
          type: 'ROUTE',
          ids: [i.id],
          event: { type: 'ACCOUNT', margin, position: positionForStrategy(p, i.id), receivedAt: at },
        }),
      )
    },
  )

  poll(
    'openOrders',
    () => o.polling.openOrdersMs,
    () => o.openOrders.reconcile(),
  )

  // Catalogue: one poller per distinct query, shared by the instruments that declared it.
  const byQuery = new Map<string, { query: CatalogueQuery; ids: number[] }>()
  for (const i of instruments) {
    if (!i.catalogueQuery) continue
    const key = JSON.stringify(i.catalogueQuery)
    const entry = byQuery.get(key) ?? { query: i.catalogueQuery, ids: [] }
    entry.ids.push(i.id)
    byQuery.set(key, entry)
  }
  let n = 0
  for (const { query, ids: qIds } of byQuery.values()) {
    poll(
      `catalogue:${n++}`,
      () => query.refreshMs,
      async (signal) => {
        const page = await o.catalogue.listEventsKeyset(toKeysetParams(query), { signal })
        const events = page.events.map(catalogueEventToSignal)
        supervisor.send({
          type: 'ROUTE',
          ids: qIds,
          event: { type: 'CATALOGUE', catalogue: { events, fetchedAt: now() } },
        })
      },
    )
  }

  poll(
    'time',
    () => o.polling.timeSyncMs,
    async () => {
      try {
        const offset = await syncClock(o.perps, clock, o.venueClock)
        if (offset !== undefined) o.account.observeClockSkew(offset)
      } catch (e) {
        // A refused offset: signing stops until a sane sync; the skew alert says how far off it was.
        if (e instanceof ClockSkewError) o.account.observeClockSkew(e.offsetMs)
        throw e
      }
    },
  )
  // A restarted actor lost its inputs: poll everything again now.
  const unsubscribe = o.fleet.restarted.subscribe(() => {
    for (const p of pollers) p.trigger()
  })

  return {
    pollers,
    async stop() {
      unsubscribe()
      await Promise.all(pollers.map((p) => p.stop()))
    },
  }
}
