/**
 * The bot's inputs: one poller per kind (index per asset, statistics, portfolio, open orders,
 * catalogue per strategy query, venue time), each turning a response into events routed by the
 * supervisor to the instruments concerned. Poll intervals stretch with the number of assets so reads
 * stay inside their share of the request-weight budget.
 */
import type { CatalogueClient } from '../../catalogue/client/createCatalogueClient.ts'
import type { ListEventsKeysetParams } from '../../catalogue/client/listEventsKeyset.ts'
import type { Clock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Portfolio } from '../../perps/schemas/account.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import { PERPS_WEIGHTS } from '../../perps/weights.ts'
import type { Settings } from '../../settings/schema.ts'
import {
  type CatalogueEventLike,
  catalogueEventToSignal,
  indexForStrategy,
  marginForStrategy,
  positionForStrategy,
  statisticsForStrategy,
} from '../../strategy/snapshot.ts'
import type { CatalogueQuery } from '../../strategy/strategy.ts'
import type { SupervisorActor } from '../supervisor.machine.ts'
import { type Poller, startPoller } from './poller.ts'

export interface FedInstrument {
  id: number
  symbol: string
  asset: string
  catalogueQuery: CatalogueQuery | undefined
}

export interface FeedOptions {
  perps: PerpsClient
  catalogue: CatalogueClient
  clock: Clock
  logger: Logger
  supervisor: SupervisorActor
  instruments: readonly FedInstrument[]
  polling: Settings['polling']
  /** Request weight per minute the index polls may use in total. */
  indexWeightPerMinute: number
  onPortfolio: (p: Portfolio) => void
  onOrders: (orders: readonly Order[]) => void
  onTimeSync: () => Promise<void>
  /** Counts failures for status/metrics. */
  onFeedError: (feed: string, error: unknown) => void
}

export interface Feeds {
  pollers: Poller[]
  /** Reads open orders now and routes them (the batcher's reconcile and startup use it). */
  reconcile(instrumentIds?: readonly number[]): Promise<void>
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
  const { supervisor, clock } = o
  const now = (): number => clock.now()
  const pollers: Poller[] = []
  const poll = (
    name: string,
    intervalMs: () => number,
    run: (signal: AbortSignal) => Promise<void>,
  ): void => {
    pollers.push(
      startPoller({
        name,
        clock,
        intervalMs,
        run,
        onError: (e, n) => {
          o.onFeedError(name, e)
          // Log the first failure and then every tenth, so an outage does not flood the log.
          if (n === 1 || n % 10 === 0)
            o.logger.warn({ feed: name, failures: n }, `${name} poll failed: ${describeError(e)}`)
        },
      }),
    )
  }

  // Index: one poller per asset; the interval stretches so all assets fit the index weight share.
  const byAsset = new Map<string, number[]>()
  for (const i of o.instruments) byAsset.set(i.asset, [...(byAsset.get(i.asset) ?? []), i.id])
  const indexWeight = PERPS_WEIGHTS.getIndex.request({})
  const indexInterval = Math.max(
    o.polling.indexMs,
    Math.ceil((byAsset.size * indexWeight * 60_000) / o.indexWeightPerMinute),
  )
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

  const ids = new Set(o.instruments.map((i) => i.id))
  poll(
    'statistics',
    () => o.polling.statisticsMs,
    async (signal) => {
      const items = await o.perps.getStatistics(undefined, { signal })
      const at = now()
      for (const item of items) {
        if (!ids.has(item.instrument_id)) continue
        supervisor.send({
          type: 'ROUTE',
          ids: [item.instrument_id],
          event: { type: 'STATISTICS', statistics: statisticsForStrategy(item), receivedAt: at },
        })
      }
    },
  )

  poll(
    'portfolio',
    () => o.polling.portfolioMs,
    async (signal) => {
      const p = await o.perps.getPortfolio({ signal })
      const at = now()
      const margin = marginForStrategy(p)
      for (const i of o.instruments) {
        supervisor.send({
          type: 'ROUTE',
          ids: [i.id],
          event: {
            type: 'ACCOUNT',
            margin,
            position: positionForStrategy(p, i.id),
            receivedAt: at,
          },
        })
      }
      o.onPortfolio(p)
    },
  )

  const reconcile = async (instrumentIds?: readonly number[]): Promise<void> => {
    // One all-instrument read costs 20; per-instrument reads cost 1 each: pick the cheaper.
    const wanted =
      instrumentIds && instrumentIds.length > 0 && instrumentIds.length < 20 ? instrumentIds : undefined
    const orders = wanted
      ? (await Promise.all(wanted.map((id) => o.perps.getOpenOrders({ instrumentId: id })))).flat()
      : await o.perps.getOpenOrders()
    const at = now()
    const targets = wanted ?? [...ids]
    for (const id of targets) {
      supervisor.send({
        type: 'ROUTE',
        ids: [id],
        event: { type: 'ORDERS', orders: orders.filter((x) => x.iid === id), receivedAt: at },
      })
    }
    o.onOrders(orders)
  }
  poll(
    'openOrders',
    () => o.polling.openOrdersMs,
    () => reconcile(),
  )

  // Catalogue: one poller per distinct query, shared by the instruments that declared it.
  const byQuery = new Map<string, { query: CatalogueQuery; ids: number[] }>()
  for (const i of o.instruments) {
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
        const events = page.events.map((e) => catalogueEventToSignal(e as unknown as CatalogueEventLike))
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
    () => o.onTimeSync(),
  )

  return {
    pollers,
    reconcile,
    async stop() {
      await Promise.all(pollers.map((p) => p.stop()))
    },
  }
}
