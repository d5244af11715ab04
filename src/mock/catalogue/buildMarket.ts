/**
 * Draws one market of a planned event in the single-event wire form, plus the listing-only relations
 * (`renderEvent` drops what a response must not carry).
 */
import type { MarketDetail } from '../../catalogue/schemas/event.ts'
import { imageOptimization, imageUrl } from './catalogueImages.ts'
import type { EventGenerator } from './catalogueTypes.ts'
import type { EventPlan, MarketSpec } from './eventPlan.ts'
import {
  amount,
  bigDecimalId,
  chance,
  HOUR_MS,
  hex,
  isoDate,
  isoSeconds,
  jsonArrayString,
  round,
  scaledDecimal,
  slugify,
  sometimes,
  stamp,
} from './wireFormat.ts'

export function buildMarket(
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
    clobRewards: closed
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
