/**
 * Draws one catalogue event (with its markets and relations) from a topic. Every value comes from the
 * injected `Random`, so a seed fixes the whole catalogue. The stored form is the single-event form
 * (AMM fields, chats, templates) plus the listing-only market relations; `renderEvent` projects it.
 */
import type { EventDetail, MarketDetail } from '../../catalogue/schemas/event.ts'
import type { Chat, EventCreator } from '../../catalogue/schemas/resources.ts'
import type { Random } from '../../random.ts'
import { type CatalogueUniverse, imageOptimization, imageUrl, type Topic } from './catalogueUniverse.ts'
import {
  amount,
  bigDecimalId,
  chance,
  compact,
  DAY_MS,
  hex,
  isoDate,
  isoMicros,
  isoSeconds,
  jsonArrayString,
  monthDay,
  monthYear,
  round,
  scaledDecimal,
  slugify,
  sometimes,
} from './wireFormat.ts'

/** An external partner's link to an event (attached by partner_slug; shape not shown by the spec). */
export interface ExternalPartnerLink {
  partnerSlug: string
  externalId: string
  url: string
}

/** One best line of a game (include_best_lines; shape not shown by the spec). */
export interface BestLine {
  marketId: string
  sportsMarketType: string
  line: number
  price: string
}

/** An event as the mock keeps it. */
export interface StoredEvent {
  /** Single-event form; nested markets also carry the listing's `clob_rewards` and `fee_schedule`. */
  event: EventDetail
  /** Links by partner slug. */
  partners: Readonly<Record<string, readonly ExternalPartnerLink[]>>
  /** Games only. */
  bestLines: readonly BestLine[] | undefined
}

export const PARTNER_SLUGS = ['espn', 'coingecko', 'decision-desk-hq', 'newsroom'] as const

/** Mutable generation state shared by the initial draw and later `addEvent` calls. */
export interface EventGenerator {
  readonly rng: Random
  readonly nowMs: number
  readonly universe: CatalogueUniverse
  nextEventId: number
  nextMarketId: number
  nextImageId: number
  nextChatId: number
  /** Slugs in use (event slugs are unique). */
  readonly slugs: Set<string>
  /** Recently generated game events, for child "More Markets" events. */
  lastGame: { id: string; title: string; startMs: number } | undefined
}

const HOUR_MS = 3_600_000

/** Picks a topic by weight. */
export function pickTopic(g: EventGenerator): Topic {
  const topics = g.universe.topics
  const total = topics.reduce((s, t) => s + t.weight, 0)
  let u = g.rng.next() * total
  for (const t of topics) {
    u -= t.weight
    if (u < 0) return t
  }
  return topics[topics.length - 1] as Topic
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

interface MarketSpec {
  question: string
  groupItemTitle?: string | undefined
  outcomes: readonly [string, string]
  /** Price of the first outcome in thousandths (1..999). */
  priceMilli: number
  line?: number | undefined
  sportsMarketType?: string | undefined
  gameId?: string | undefined
  teams?: readonly [string, string] | undefined
}

interface EventPlan {
  title: string
  description: string
  startMs: number
  endMs: number
  closed: boolean
  markets: MarketSpec[]
  negRisk: boolean
  eventDate?: string | undefined
  startTime?: number | undefined
  game?:
    | {
        live: boolean
        ended: boolean
        score: string | undefined
        period: string | undefined
        elapsed: string | undefined
        eventWeek: number | undefined
        spread: number
        total: number
      }
    | undefined
  parentEvent?: string | undefined
  volumeMedian: number
}

function priceMilli(rng: Random): number {
  return Math.min(999, Math.max(1, Math.round(500 + 220 * rng.normal())))
}

function planFor(g: EventGenerator, topic: Topic): EventPlan {
  const { rng, nowMs } = g
  const dayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS
  switch (topic.kind) {
    case 'cryptoDaily': {
      const day = dayStart(nowMs) + rng.int(-700, 3) * DAY_MS
      const endMs = day + 16 * HOUR_MS
      return {
        title: `${topic.subject} Up or Down on ${monthDay(day)}?`,
        description: `This market resolves to "Up" if the ${topic.code}/USDT close on ${monthDay(day)} is higher than the open, otherwise "Down".`,
        startMs: endMs - DAY_MS,
        endMs,
        closed: endMs < nowMs,
        markets: [
          {
            question: `${topic.subject} Up or Down on ${monthDay(day)}?`,
            outcomes: ['Up', 'Down'],
            priceMilli: priceMilli(rng),
          },
        ],
        negRisk: false,
        eventDate: isoDate(day),
        volumeMedian: 40_000,
      }
    }
    case 'cryptoMonthly': {
      const d = new Date(nowMs)
      const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + rng.int(-14, 1), 1)
      const next = new Date(monthStart)
      const endMs = Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1) - 1000
      const base =
        topic.code === 'BTC' ? 100_000 : topic.code === 'ETH' ? 4_000 : topic.code === 'SOL' ? 200 : 3
      const steps = rng.int(3, 7)
      const markets: MarketSpec[] = []
      for (let i = 1; i <= steps; i++) {
        const up = i % 2 === 1
        const level = base * (1 + (up ? 1 : -1) * 0.05 * Math.ceil(i / 2))
        const label = `${up ? '↑' : '↓'} ${thousands(level)}`
        markets.push({
          question: `Will ${topic.subject} ${up ? 'reach' : 'dip to'} $${thousands(level)} in ${monthYear(monthStart)}?`,
          groupItemTitle: label,
          outcomes: ['Yes', 'No'],
          priceMilli: Math.max(1, Math.round(priceMilli(rng) / Math.ceil(i / 2))),
        })
      }
      return {
        title: `What price will ${topic.subject} hit in ${monthYear(monthStart)}?`,
        description: `Resolves by the ${topic.code}/USDT 1-minute candles on Binance during ${monthYear(monthStart)}.`,
        startMs: monthStart - rng.int(1, 5) * DAY_MS,
        endMs,
        closed: endMs < nowMs,
        markets,
        negRisk: false,
        volumeMedian: 120_000,
      }
    }
    case 'game': {
      const [a, b] = pickTwo(rng, topic.names)
      // A few games are under way at `nowMs`, so `live` filters have something to find.
      const start = chance(rng, 0.03)
        ? nowMs - rng.int(10, 170) * 60_000
        : dayStart(nowMs) + rng.int(-300, 10) * DAY_MS + rng.int(-8, 6) * HOUR_MS + 30 * 60_000
      const live = start <= nowMs && nowMs < start + 3 * HOUR_MS
      const ended = nowMs >= start + 3 * HOUR_MS
      const gameId = String(rng.int(10_000_000, 99_999_999))
      const spread = (rng.int(1, 12) + 0.5) * (chance(rng, 0.5) ? 1 : -1)
      const total =
        topic.code === 'NBA' ? rng.int(205, 240) + 0.5 : topic.code === 'MLB' ? 8.5 : rng.int(2, 50) + 0.5
      const teams: [string, string] = [a, b]
      const title = `${a} vs. ${b}`
      const sa = rng.int(0, topic.code === 'NBA' ? 130 : 40)
      const sb = rng.int(0, topic.code === 'NBA' ? 130 : 40)
      return {
        title,
        description: `${topic.code}: ${a} vs. ${b}, scheduled for ${isoSeconds(start)}.`,
        startMs: start - rng.int(2, 7) * DAY_MS,
        endMs: start + 4 * HOUR_MS,
        closed: ended && chance(rng, 0.95),
        markets: [
          {
            question: title,
            outcomes: teams,
            priceMilli: priceMilli(rng),
            sportsMarketType: 'moneyline',
            gameId,
            teams,
          },
          {
            question: `Spread: ${a} (${spread > 0 ? '+' : ''}${spread})`,
            groupItemTitle: `Spread ${spread}`,
            outcomes: teams,
            priceMilli: priceMilli(rng),
            line: spread,
            sportsMarketType: 'spreads',
            gameId,
            teams,
          },
          {
            question: `${a} vs. ${b}: O/U ${total}`,
            groupItemTitle: `O/U ${total}`,
            outcomes: ['Over', 'Under'],
            priceMilli: priceMilli(rng),
            line: total,
            sportsMarketType: 'totals',
            gameId,
            teams,
          },
        ],
        negRisk: false,
        eventDate: isoDate(start),
        startTime: start,
        game: {
          live,
          ended,
          score: live || ended ? `${sa}-${sb}` : undefined,
          period: ended
            ? 'FT'
            : live
              ? topic.code === 'NBA' || topic.code === 'NFL'
                ? 'Q3'
                : '2H'
              : undefined,
          elapsed: live
            ? `${String(rng.int(0, 11)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}`
            : undefined,
          eventWeek: topic.code === 'NFL' ? rng.int(1, 18) : undefined,
          spread,
          total,
        },
        volumeMedian: 60_000,
      }
    }
    case 'election': {
      const day = dayStart(nowMs) + rng.int(-400, 500) * DAY_MS
      const year = new Date(day).getUTCFullYear()
      const kind = rng.pick(['Presidential Election', 'Parliamentary Election', 'Snap Election'])
      const names = topic.names.slice(0, rng.int(2, topic.names.length))
      return {
        title: `${topic.subject} ${kind} ${year}`,
        description: `Who will win the ${year} ${topic.subject} ${kind.toLowerCase()}? Resolves by the official results.`,
        startMs: day - rng.int(60, 300) * DAY_MS,
        endMs: day,
        closed: day < nowMs,
        markets: names.map((n) => ({
          question: `Will ${n} win the ${year} ${topic.subject} ${kind.toLowerCase()}?`,
          groupItemTitle: n,
          outcomes: ['Yes', 'No'] as const,
          priceMilli: Math.max(1, Math.round(priceMilli(rng) / names.length)),
        })),
        negRisk: true,
        volumeMedian: 300_000,
      }
    }
    case 'macro': {
      const d = new Date(nowMs)
      const month = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + rng.int(-20, 3), rng.int(10, 20))
      const title =
        topic.subject === 'Fed'
          ? `Fed decision in ${monthYear(month)}?`
          : `US CPI month-over-month for ${monthYear(month)}?`
      return {
        title,
        description: `${title} Resolves by the official release.`,
        startMs: month - rng.int(20, 60) * DAY_MS,
        endMs: month,
        closed: month < nowMs,
        markets: topic.names.map((n) => ({
          question: `${topic.subject === 'Fed' ? 'Fed' : 'CPI'}: ${n} in ${monthYear(month)}?`,
          groupItemTitle: n,
          outcomes: ['Yes', 'No'] as const,
          priceMilli: Math.max(1, Math.round(priceMilli(rng) / topic.names.length)),
        })),
        negRisk: true,
        volumeMedian: 200_000,
      }
    }
    case 'tech': {
      const end = dayStart(nowMs) + rng.int(-300, 300) * DAY_MS
      const product = rng.pick(topic.names)
      const title = `Will ${topic.subject} release ${product} by ${monthDay(end)}, ${new Date(end).getUTCFullYear()}?`
      return {
        title,
        description: `Resolves "Yes" if ${topic.subject} publicly releases ${product} by the end date.`,
        startMs: end - rng.int(30, 300) * DAY_MS,
        endMs: end,
        closed: end < nowMs,
        markets: [{ question: title, outcomes: ['Yes', 'No'], priceMilli: priceMilli(rng) }],
        negRisk: false,
        volumeMedian: 50_000,
      }
    }
    case 'weather': {
      const day = dayStart(nowMs) + rng.int(-500, 2) * DAY_MS
      const base = rng.int(5, 28)
      const markets: MarketSpec[] = []
      for (let t = base - 3; t <= base + 3; t++) {
        const label = t === base - 3 ? `${t}°C or below` : t === base + 3 ? `${t}°C or higher` : `${t}°C`
        markets.push({
          question: `Will the highest temperature in ${topic.subject} be ${label} on ${monthDay(day)}?`,
          groupItemTitle: label,
          outcomes: ['Yes', 'No'],
          priceMilli: Math.max(1, Math.round(priceMilli(rng) / 7)),
        })
      }
      return {
        title: `Highest temperature in ${topic.subject} on ${monthDay(day)}?`,
        description: `Resolves by the highest temperature recorded in ${topic.subject} on ${monthDay(day)}.`,
        startMs: day - 2 * DAY_MS,
        endMs: day + 23 * HOUR_MS,
        closed: day + 23 * HOUR_MS < nowMs,
        markets,
        negRisk: true,
        eventDate: isoDate(day),
        volumeMedian: 8_000,
      }
    }
    case 'culture': {
      const end = dayStart(nowMs) + rng.int(-200, 90) * DAY_MS
      const movie = rng.pick(topic.names)
      const gross = rng.int(2, 25) * 10
      const title = `Will ${movie} gross over $${gross}M opening weekend?`
      return {
        title,
        description: `Resolves by Box Office Mojo's domestic opening weekend figure for ${movie}.`,
        startMs: end - rng.int(10, 60) * DAY_MS,
        endMs: end,
        closed: end < nowMs,
        markets: [{ question: title, outcomes: ['Yes', 'No'], priceMilli: priceMilli(rng) }],
        negRisk: false,
        volumeMedian: 20_000,
      }
    }
  }
}

/** 120000 → "120,000" (no locale data involved, so output never varies by host). */
function thousands(x: number): string {
  return String(Math.round(x)).replace(/\B(?=(\d{3})+$)/g, ',')
}

function pickTwo(rng: Random, names: readonly string[]): [string, string] {
  const a = rng.pick(names)
  let b = rng.pick(names)
  while (b === a) b = rng.pick(names)
  return [a, b]
}

function stamp(rng: Random, ms: number): string {
  return isoMicros(ms, rng.int(0, 999_999))
}

function buildMarket(
  g: EventGenerator,
  plan: EventPlan,
  spec: MarketSpec,
  eventSlug: string,
  index: number,
): MarketDetail {
  const { rng, nowMs } = g
  g.nextMarketId += rng.int(1, 9)
  const id = g.nextMarketId
  const slug =
    plan.markets.length === 1 ? eventSlug : `${eventSlug}-${slugify(spec.groupItemTitle ?? String(index))}`
  const closed = plan.closed
  const resolvedYes = chance(rng, 0.5)
  const p = closed ? (resolvedYes ? 1000 : 0) : spec.priceMilli
  const tickMilli = chance(rng, 0.8) ? 10 : 1
  const volumeNum = amount(rng, plan.volumeMedian / plan.markets.length, 1.4, 6)
  const liquidityNum = closed ? 0 : amount(rng, volumeNum / 20 + 100, 0.8, 4)
  const v24 = closed ? 0 : round(volumeNum * rng.next() * 0.1, 6)
  const v1wk = closed ? 0 : round(v24 + volumeNum * rng.next() * 0.2, 6)
  const v1mo = closed ? 0 : round(v1wk + volumeNum * rng.next() * 0.3, 6)
  const createdMs = plan.startMs - rng.int(1, 48) * HOUR_MS
  const fee = { exponent: 2, rate: chance(rng, 0.7) ? 0 : 0.02, takerOnly: true, rebateRate: 0 }
  const clobId = bigDecimalId(rng, 77)
  const clobId2 = bigDecimalId(rng, 77)
  const price = (milli: number): string => scaledDecimal(milli, 3)
  const bestBid = closed ? null : Math.max(0, p - tickMilli) / 1000
  const bestAsk = closed ? null : Math.min(1000, p + tickMilli) / 1000
  const conditionId = `0x${hex(rng, 64)}`
  // Absent fields stay as undefined-valued keys here (cheaper than compacting thousands of wide
  // objects); JSON and `renderEvent` drop them.
  return {
    id: String(id),
    question: spec.question,
    conditionId,
    slug,
    twitterCardImage: sometimes(rng, imageUrl(`${slug}-card`), 0.3, 0.5),
    resolutionSource: plan.game ? 'https://www.espn.com' : '',
    endDate: isoSeconds(plan.endMs),
    category: sometimes(rng, 'General', 0.1, 0.8),
    liquidity: String(liquidityNum),
    startDate: isoSeconds(plan.startMs),
    fee: sometimes(rng, '20000000000000000', 0.1, 0.7),
    image: imageUrl(slug),
    icon: imageUrl(slug),
    description: plan.description,
    outcomes: jsonArrayString(spec.outcomes),
    outcomePrices: jsonArrayString([price(p), price(1000 - p)]),
    volume: String(volumeNum),
    active: true,
    marketType: sometimes(rng, 'normal', 0, 0.6),
    formatType: sometimes(rng, 'number', 0.2, 0.7),
    lowerBound: undefined,
    upperBound: undefined,
    closed,
    marketMakerAddress: '',
    createdBy: sometimes(rng, rng.int(1, 40), 0.2, 0.5),
    updatedBy: sometimes(rng, rng.int(1, 40), 0.2, 0.5),
    createdAt: stamp(rng, createdMs),
    updatedAt: stamp(rng, Math.min(nowMs, createdMs + rng.int(1, 200) * HOUR_MS)),
    closedTime: closed
      ? isoSeconds(plan.endMs + rng.int(1, 20) * HOUR_MS)
          .replace('T', ' ')
          .replace('Z', '+00')
      : undefined,
    wideFormat: sometimes(rng, false, 0, 0.8),
    new: chance(rng, 0.05),
    mailchimpTag: undefined,
    featured: chance(rng, 0.02),
    archived: closed && chance(rng, 0.1),
    resolvedBy: `0x${hex(rng, 40)}`,
    restricted: true,
    marketGroup: sometimes(rng, rng.int(1, 500), 0.2, 0.7),
    groupItemTitle: spec.groupItemTitle ?? '',
    groupItemThreshold: String(index),
    questionID: `0x${hex(rng, 64)}`,
    umaEndDate: closed ? isoSeconds(plan.endMs + rng.int(2, 30) * HOUR_MS) : undefined,
    enableOrderBook: true,
    orderPriceMinTickSize: tickMilli / 1000,
    orderMinSize: 5,
    umaResolutionStatus: closed ? 'resolved' : undefined,
    curationOrder: sometimes(rng, rng.int(1, 50), 0, 0.9),
    volumeNum,
    liquidityNum,
    endDateIso: isoDate(plan.endMs),
    startDateIso: isoDate(plan.startMs),
    umaEndDateIso: closed ? isoDate(plan.endMs) : undefined,
    hasReviewedDates: true,
    readyForCron: sometimes(rng, true, 0, 0.7),
    commentsEnabled: sometimes(rng, false, 0, 0.6),
    volume24hr: v24,
    volume1wk: v1wk,
    volume1mo: v1mo,
    volume1yr: closed ? 0 : round(v1mo + volumeNum * rng.next() * 0.3, 6),
    gameStartTime:
      plan.startTime !== undefined
        ? isoSeconds(plan.startTime).replace('T', ' ').replace('Z', '+00')
        : undefined,
    secondsDelay: plan.game ? 3 : sometimes(rng, 0, 0, 0.8),
    clobTokenIds: jsonArrayString([clobId, clobId2]),
    disqusThread: undefined,
    shortOutcomes: sometimes(rng, jsonArrayString(spec.outcomes.map((o) => o.slice(0, 3))), 0, 0.8),
    teamAID: spec.teams ? String(rng.int(100, 999)) : undefined,
    teamBID: spec.teams ? String(rng.int(100, 999)) : undefined,
    umaBond: '500',
    umaReward: '5',
    fpmmLive: false,
    volume24hrAmm: 0,
    volume1wkAmm: 0,
    volume1moAmm: 0,
    volume1yrAmm: 0,
    volume24hrClob: v24,
    volume1wkClob: v1wk,
    volume1moClob: v1mo,
    volume1yrClob: closed ? 0 : v1mo,
    volumeAmm: 0,
    volumeClob: volumeNum,
    liquidityAmm: 0,
    liquidityClob: liquidityNum,
    ammType: null,
    makerBaseFee: 0,
    takerBaseFee: 0,
    customLiveness: sometimes(rng, 0, 0, 0.8),
    acceptingOrders: !closed,
    notificationsEnabled: sometimes(rng, true, 0, 0.6),
    score: sometimes(rng, rng.int(0, 100), 0, 0.9),
    imageOptimized: chance(rng, 0.3)
      ? imageOptimization(rng, g.nextImageId++, slug, 'image', 'markets', id, createdMs)
      : undefined,
    iconOptimized: chance(rng, 0.2)
      ? imageOptimization(rng, g.nextImageId++, slug, 'icon', 'markets', id, createdMs)
      : undefined,
    creator: sometimes(rng, '', 0, 0.7),
    ready: true,
    funded: true,
    pastSlugs: undefined,
    readyTimestamp: sometimes(rng, stamp(rng, createdMs), 0, 0.5),
    fundedTimestamp: sometimes(rng, stamp(rng, createdMs), 0, 0.5),
    acceptingOrdersTimestamp: isoSeconds(plan.startMs),
    competitive: closed ? 0 : round(rng.next(), 6),
    rewardsMinSize: closed ? 0 : 50,
    rewardsMaxSpread: closed ? 0 : 3.5,
    spread: tickMilli / 1000,
    automaticallyResolved: sometimes(rng, true, 0, 0.6),
    oneDayPriceChange: closed ? undefined : round(rng.normal() * 0.02, 4),
    oneHourPriceChange: closed ? undefined : round(rng.normal() * 0.005, 4),
    oneWeekPriceChange: closed ? undefined : round(rng.normal() * 0.05, 4),
    oneMonthPriceChange: closed ? undefined : round(rng.normal() * 0.1, 4),
    oneYearPriceChange: undefined,
    lastTradePrice: p / 1000,
    bestBid,
    bestAsk,
    automaticallyActive: true,
    clearBookOnStart: plan.game !== undefined,
    chartColor: undefined,
    seriesColor: sometimes(rng, `#${hex(rng, 6).toUpperCase()}`, 0, 0.8),
    showGmpSeries: sometimes(rng, false, 0, 0.8),
    showGmpOutcome: sometimes(rng, false, 0, 0.8),
    manualActivation: false,
    negRiskOther: false,
    gameId: spec.gameId,
    groupItemRange: undefined,
    sportsMarketType: spec.sportsMarketType,
    line: spec.line,
    umaResolutionStatuses: '[]',
    pendingDeployment: false,
    deploying: false,
    deployingTimestamp: sometimes(rng, stamp(rng, createdMs), 0, 0.9),
    scheduledDeploymentTimestamp: undefined,
    rfqEnabled: chance(rng, 0.3),
    eventStartTime: plan.startTime !== undefined ? isoSeconds(plan.startTime) : undefined,
    feesEnabled: fee.rate > 0,
    feeSchedule: fee,
    clob_rewards: closed
      ? []
      : [
          {
            id: String(rng.int(10_000, 99_999)),
            conditionId,
            assetAddress: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174',
            rewardsAmount: 0,
            rewardsDailyRate: rng.int(1, 50) * 5,
            startDate: isoDate(plan.startMs),
            endDate: '2500-12-31',
          },
        ],
    fee_schedule: fee,
  }
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
  return { event: detail, partners: partnersFor(g, topic, id), bestLines: bestLinesFor(rng, detail, plan) }
}

function partnersFor(g: EventGenerator, topic: Topic, id: string): Record<string, ExternalPartnerLink[]> {
  const { rng } = g
  const out: Record<string, ExternalPartnerLink[]> = {}
  const slug =
    topic.kind === 'game'
      ? 'espn'
      : topic.kind.startsWith('crypto')
        ? 'coingecko'
        : topic.kind === 'election'
          ? 'decision-desk-hq'
          : 'newsroom'
  if (chance(rng, 0.6)) {
    const externalId = String(rng.int(100_000, 9_999_999))
    out[slug] = [
      { partnerSlug: slug, externalId, url: `https://partners.example/${slug}/${externalId}?event=${id}` },
    ]
  }
  return out
}

function bestLinesFor(rng: Random, event: EventDetail, plan: EventPlan): BestLine[] | undefined {
  if (!plan.game) return undefined
  return (event.markets ?? [])
    .filter((m) => m.line !== undefined && m.line !== null)
    .map((m) => ({
      marketId: m.id,
      sportsMarketType: m.sportsMarketType ?? '',
      line: m.line ?? 0,
      price: scaledDecimal(rng.int(400, 600), 3),
    }))
}
