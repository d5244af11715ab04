/**
 * Draws one catalogue event (with its markets and relations) from a topic. Every value comes from the
 * injected `Random`, so a seed fixes the whole catalogue. The stored form is the single-event form
 * (AMM fields, chats, templates) plus the listing-only market relations; `renderEvent` projects it.
 */
import type { EventDetail } from '../../catalogue/schemas/event.ts'
import type { Chat, EventCreator } from '../../catalogue/schemas/resources.ts'
import { buildMarket } from './buildMarket.ts'
import { imageOptimization, imageUrl } from './catalogueImages.ts'
import type { EventGenerator, StoredEvent, Topic } from './catalogueTypes.ts'
import { planFor } from './eventPlan.ts'
import { bestLinesFor, partnersFor } from './eventRelations.ts'
import { chance, compact, HOUR_MS, hex, isoSeconds, round, slugify, sometimes, stamp } from './wireFormat.ts'

export type { EventGenerator, StoredEvent } from './catalogueTypes.ts'
export { type BestLine, type ExternalPartner, PARTNER_SLUGS } from './eventRelations.ts'

/** Picks a topic by weight. */
export function pickTopic(g: EventGenerator): Topic {
  const topics = g.universe.topics
  const total = topics.reduce((s, t) => s + t.weight, 0)
  let u = g.rng.next() * total
  for (const t of topics) {
    u -= t.weight
    if (u < 0) return t
  }
  const last = topics.at(-1)
  if (last === undefined) throw new RangeError('the catalogue universe has no topics')
  return last
}

/** Allocates the next event id (ids grow with small random gaps, like the real catalogue's). */
export function allocateEventId(g: EventGenerator): string {
  g.nextEventId += g.rng.int(1, 4)
  return String(g.nextEventId)
}

function uniqueSlug(g: EventGenerator, base: string): string {
  let slug = base
  for (let n = 2; g.slugs.has(slug); n++) slug = `${base}-${n}`
  g.slugs.add(slug)
  return slug
}

/** Draws one event of `topic` with the given id. */
export function generateEvent(g: EventGenerator, topic: Topic, id: string): StoredEvent {
  const { rng, nowMs, universe } = g
  const plan = planFor(g, topic)
  if (topic.kind === 'game' && g.lastGame && chance(rng, 0.08)) {
    // A child "More Markets" event of a recent game, as the venue splits big game events.
    plan.title = `${g.lastGame.title} - More Markets`
    plan.parentEvent = g.lastGame.id
  }
  const slug = uniqueSlug(g, slugify(plan.title))
  const idNum = Number(id)
  const markets = plan.markets.map((m, i) => buildMarket(g, plan, m, slug, i))
  const volume = round(
    markets.reduce((s, m) => s + (m.volumeNum ?? 0), 0),
    6,
  )
  const liquidity = round(
    markets.reduce((s, m) => s + (m.liquidityNum ?? 0), 0),
    4,
  )
  const v = (key: 'volume24hr' | 'volume1wk' | 'volume1mo' | 'volume1yr'): number =>
    round(
      markets.reduce((s, m) => s + (m[key] ?? 0), 0),
      6,
    )
  const createdMs = plan.startMs - rng.int(1, 72) * HOUR_MS
  const featured = chance(rng, 0.04)
  const cyom = chance(rng, 0.03)
  const creators: EventCreator[] = cyom ? [rng.pick(universe.creators)] : []
  const chats: Chat[] = chance(rng, 0.25)
    ? [
        compact({
          id: String(g.nextChatId++),
          channelId: hex(rng, 24),
          channelName: plan.title,
          channelImage: sometimes(rng, imageUrl(`${slug}-chat`), 0.5),
          live: plan.game?.live ?? false,
          startTime: isoSeconds(plan.startMs),
          endTime: sometimes(rng, isoSeconds(plan.endMs), 0.5),
        }),
      ]
    : []
  const tags = topic.tagIds.flatMap((tid) => universe.tags.filter((t) => t.id === tid))
  const negRiskMarketID = plan.negRisk ? `0x${hex(rng, 64)}` : undefined
  const game = plan.game
  const detail: EventDetail = {
    id,
    ticker: slug,
    slug,
    title: plan.title,
    subtitle: sometimes(rng, `${topic.subject} markets`, 0, 0.9),
    description: plan.description,
    resolutionSource: sometimes(rng, game ? 'https://www.espn.com' : '', 0, 0.2),
    startDate: isoSeconds(plan.startMs),
    creationDate: isoSeconds(createdMs),
    endDate: isoSeconds(plan.endMs),
    image: imageUrl(slug),
    icon: imageUrl(slug),
    active: true,
    closed: plan.closed,
    archived: plan.closed && chance(rng, 0.05),
    new: !plan.closed && chance(rng, 0.05),
    featured,
    restricted: true,
    liquidity,
    volume,
    openInterest: plan.closed ? 0 : round(volume * rng.next() * 0.3, 4),
    sortBy: sometimes(rng, 'ascending', 0, 0.6),
    category: sometimes(rng, topic.category.label ?? '', 0, 0.7),
    subcategory: sometimes(rng, topic.subject, 0, 0.85),
    published_at: sometimes(rng, isoSeconds(createdMs).replace('T', ' ').replace('Z', '+00'), 0, 0.3),
    createdBy: sometimes(
      rng,
      cyom ? rng.pick(universe.authors.slice(3)) : rng.pick(universe.authors.slice(0, 3)),
      0.3,
      0.3,
    ),
    updatedBy: sometimes(rng, rng.pick(universe.authors.slice(0, 3)), 0.3, 0.4),
    createdAt: stamp(rng, createdMs),
    updatedAt: stamp(rng, Math.min(nowMs, createdMs + rng.int(1, 500) * HOUR_MS)),
    competitive: plan.closed ? 0 : round(rng.next(), 6),
    volume24hr: v('volume24hr'),
    volume1wk: v('volume1wk'),
    volume1mo: v('volume1mo'),
    volume1yr: v('volume1yr'),
    enableOrderBook: true,
    liquidityAmm: 0,
    liquidityClob: liquidity,
    negRisk: plan.negRisk,
    negRiskMarketID,
    negRiskFeeBips: plan.negRisk ? 0 : undefined,
    commentCount: rng.int(0, 400),
    imageOptimized: chance(rng, 0.3)
      ? imageOptimization(rng, g.nextImageId++, slug, 'image', 'events', idNum, createdMs)
      : undefined,
    iconOptimized: chance(rng, 0.2)
      ? imageOptimization(rng, g.nextImageId++, slug, 'icon', 'events', idNum, createdMs)
      : undefined,
    featuredImage: featured ? imageUrl(`${slug}-featured`) : undefined,
    featuredImageOptimized: featured
      ? sometimes(
          rng,
          imageOptimization(
            rng,
            g.nextImageId++,
            `${slug}-featured`,
            'featuredImage',
            'events',
            idNum,
            createdMs,
          ),
          0.5,
        )
      : undefined,
    markets,
    series: topic.series
      ? [topic.seriesChat ? { ...topic.series, chats: [topic.seriesChat] } : topic.series]
      : [],
    categories: chance(rng, 0.4) ? [topic.category] : [],
    collections: topic.collection && chance(rng, 0.7) ? [topic.collection] : [],
    tags,
    cyom,
    closedTime: plan.closed
      ? isoSeconds(plan.endMs + rng.int(1, 30) * HOUR_MS)
          .replace('T', ' ')
          .replace('Z', '+00')
      : undefined,
    showAllOutcomes: true,
    showMarketImages: plan.markets.length > 1 && chance(rng, 0.5),
    automaticallyResolved: sometimes(rng, true, 0, 0.5),
    enableNegRisk: plan.negRisk,
    automaticallyActive: true,
    eventDate: plan.eventDate,
    startTime: plan.startTime !== undefined ? isoSeconds(plan.startTime) : undefined,
    eventWeek: game?.eventWeek,
    seriesSlug: topic.series?.slug ?? undefined,
    score: game?.score,
    elapsed: game?.elapsed,
    period: game?.period,
    live: game ? game.live : undefined,
    ended: game ? game.ended : undefined,
    finishedTimestamp: game?.ended ? isoSeconds(plan.endMs) : undefined,
    gmpChartMode: 'default',
    eventCreators: creators,
    tweetCount: sometimes(rng, rng.int(0, 50), 0, 0.8),
    chats,
    featuredOrder: featured ? rng.int(1, 30) : undefined,
    estimateValue: sometimes(rng, false, 0, 0.8),
    cantEstimate: sometimes(rng, false, 0, 0.8),
    estimatedValue: undefined,
    templates: topic.template ? [topic.template] : [],
    spreadsMainLine: game?.spread,
    totalsMainLine: game?.total,
    carouselMap: sometimes(rng, '{}', 0, 0.95),
    pendingDeployment: false,
    deploying: false,
    deployingTimestamp: sometimes(rng, stamp(rng, createdMs), 0, 0.9),
    scheduledDeploymentTimestamp: undefined,
    gameStatus: game ? (game.ended ? 'Final' : game.live ? 'InProgress' : 'Scheduled') : undefined,
    parentEvent: plan.parentEvent,
    subEvents: undefined,
    templateVariables:
      topic.template && plan.eventDate ? JSON.stringify({ date: plan.eventDate }) : undefined,
    isTemplate: false,
    commentsEnabled: sometimes(rng, false, 0, 0.5),
    disqusThread: undefined,
  }

  if (topic.kind === 'game' && plan.startTime !== undefined && !plan.parentEvent) {
    g.lastGame = { id, title: plan.title, startMs: plan.startTime }
  }
  return {
    event: detail,
    partners: partnersFor(g, topic, id, detail.createdAt),
    bestLines: bestLinesFor(rng, detail, plan),
  }
}
