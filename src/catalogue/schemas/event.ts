/**
 * Wire schemas of the catalogue's Event, Market and Series, in the listing form and in the single-event
 * (by slug) form. Event, Market and Series nest each other, so the recursive relations are zod 4
 * getters added with `.extend` on a flat base. Required: Event.id and Market.id; everything else is
 * nullish and unknown extra fields pass through. Reads accept what the official client accepts: ids as
 * strings or numbers, volumes and fee rates as numbers or numeric strings (numbers once parsed), the
 * JSON-array fields as strings or arrays (strings once parsed).
 */
import { z } from 'zod'
import { DateTimeString, GammaId, JsonArrayString, NumberLike, nullishFields } from './fields.ts'
import { BestLineSchema, ClobRewardSchema, ExternalPartnerSchema } from './relations.ts'
import {
  CategorySchema,
  ChatSchema,
  CollectionSchema,
  EventCreatorSchema,
  ImageOptimizationSchema,
  TagSchema,
  TemplateSchema,
} from './resources.ts'

// ---------------------------------------------------------------------------------------------------
// Field lists (the spec's tables; shared with the mock and the order-field whitelist)
// ---------------------------------------------------------------------------------------------------

/** Event fields by wire type, `id` (required) excluded. */
export const EVENT_FIELDS = {
  string: [
    'ticker',
    'slug',
    'title',
    'subtitle',
    'description',
    'resolutionSource',
    'image',
    'icon',
    'sortBy',
    'category',
    'subcategory',
    'templateVariables',
    'published_at',
    'createdBy',
    'updatedBy',
    'featuredImage',
    'disqusThread',
    'parentEvent',
    'negRiskMarketID',
    'eventDate',
    'seriesSlug',
    'score',
    'elapsed',
    'period',
    'gmpChartMode',
    'estimatedValue',
    'carouselMap',
    'gameStatus',
  ],
  dateTime: [
    'startDate',
    'creationDate',
    'endDate',
    'createdAt',
    'updatedAt',
    'closedTime',
    'startTime',
    'finishedTimestamp',
    'deployingTimestamp',
    'scheduledDeploymentTimestamp',
  ],
  boolean: [
    'active',
    'closed',
    'archived',
    'new',
    'featured',
    'restricted',
    'isTemplate',
    'commentsEnabled',
    'enableOrderBook',
    'negRisk',
    'cyom',
    'showAllOutcomes',
    'showMarketImages',
    'automaticallyResolved',
    'enableNegRisk',
    'automaticallyActive',
    'live',
    'ended',
    'estimateValue',
    'cantEstimate',
    'pendingDeployment',
    'deploying',
  ],
  number: [
    'liquidity',
    'volume',
    'openInterest',
    'competitive',
    'volume24hr',
    'volume1wk',
    'volume1mo',
    'volume1yr',
    'liquidityClob',
    'spreadsMainLine',
    'totalsMainLine',
  ],
  integer: ['negRiskFeeBips', 'commentCount', 'eventWeek', 'tweetCount', 'featuredOrder'],
  image: ['imageOptimized', 'iconOptimized', 'featuredImageOptimized'],
} as const

/** Market fields by wire type, `id` and `conditionId` (required) excluded. */
export const MARKET_FIELDS = {
  string: [
    'question',
    'slug',
    'twitterCardImage',
    'resolutionSource',
    'category',
    'liquidity',
    'sponsorName',
    'sponsorImage',
    'xAxisValue',
    'yAxisValue',
    'denominationToken',
    'fee',
    'image',
    'icon',
    'lowerBound',
    'upperBound',
    'description',
    'outcomes',
    'outcomePrices',
    'volume',
    'marketType',
    'formatType',
    'lowerBoundDate',
    'upperBoundDate',
    'closedTime',
    'mailchimpTag',
    'resolvedBy',
    'groupItemTitle',
    'groupItemThreshold',
    'questionID',
    'umaEndDate',
    'umaResolutionStatus',
    'endDateIso',
    'startDateIso',
    'umaEndDateIso',
    'gameStartTime',
    'clobTokenIds',
    'disqusThread',
    'shortOutcomes',
    'teamAID',
    'teamBID',
    'umaBond',
    'umaReward',
    'creator',
    'pastSlugs',
    'chartColor',
    'seriesColor',
    'gameId',
    'groupItemRange',
    'sportsMarketType',
    'umaResolutionStatuses',
  ],
  dateTime: [
    'endDate',
    'startDate',
    'createdAt',
    'updatedAt',
    'readyTimestamp',
    'fundedTimestamp',
    'acceptingOrdersTimestamp',
    'deployingTimestamp',
    'scheduledDeploymentTimestamp',
    'eventStartTime',
  ],
  boolean: [
    'active',
    'closed',
    'wideFormat',
    'new',
    'featured',
    'archived',
    'restricted',
    'enableOrderBook',
    'hasReviewedDates',
    'readyForCron',
    'commentsEnabled',
    'acceptingOrders',
    'notificationsEnabled',
    'ready',
    'funded',
    'automaticallyResolved',
    'automaticallyActive',
    'clearBookOnStart',
    'showGmpSeries',
    'showGmpOutcome',
    'manualActivation',
    'negRiskOther',
    'pendingDeployment',
    'deploying',
    'rfqEnabled',
    'feesEnabled',
  ],
  integer: [
    'createdBy',
    'updatedBy',
    'marketGroup',
    'curationOrder',
    'secondsDelay',
    'makerBaseFee',
    'takerBaseFee',
    'customLiveness',
    'score',
  ],
  number: [
    'orderPriceMinTickSize',
    'orderMinSize',
    'volumeNum',
    'liquidityNum',
    'volume24hr',
    'volume1wk',
    'volume1mo',
    'volume1yr',
    'volume24hrClob',
    'volume1wkClob',
    'volume1moClob',
    'volume1yrClob',
    'volumeClob',
    'liquidityClob',
    'competitive',
    'rewardsMinSize',
    'rewardsMaxSpread',
    'spread',
    'oneDayPriceChange',
    'oneHourPriceChange',
    'oneWeekPriceChange',
    'oneMonthPriceChange',
    'oneYearPriceChange',
    'lastTradePrice',
    'bestBid',
    'bestAsk',
    'line',
  ],
  image: ['imageOptimized', 'iconOptimized'],
} as const

/** Extra fields of markets in the single-event (by slug) response. */
export const MARKET_DETAIL_FIELDS = {
  string: ['ammType', 'marketMakerAddress'],
  boolean: ['fpmmLive'],
  number: ['volume24hrAmm', 'volume1wkAmm', 'volume1moAmm', 'volume1yrAmm', 'volumeAmm', 'liquidityAmm'],
} as const

export const SERIES_FIELDS = {
  string: [
    'id',
    'ticker',
    'slug',
    'title',
    'subtitle',
    'seriesType',
    'recurrence',
    'description',
    'image',
    'icon',
    'layout',
    'publishedAt',
    'createdBy',
    'updatedBy',
    'competitive',
    'pythTokenID',
    'cgAssetName',
  ],
  boolean: [
    'active',
    'closed',
    'archived',
    'new',
    'featured',
    'restricted',
    'isTemplate',
    'templateVariables',
    'commentsEnabled',
  ],
  dateTime: ['createdAt', 'updatedAt', 'startDate'],
  /** The spec types commentCount as "integer/number"; it is a number here. */
  number: ['volume24hr', 'volume', 'liquidity', 'score', 'commentCount'],
} as const

// ---------------------------------------------------------------------------------------------------
// Order fields of GET /events/keyset
// ---------------------------------------------------------------------------------------------------

/**
 * The camelCase scalar Event fields `order` accepts (the venue does not publish its whitelist; this is
 * every scalar column). `published_at` is left out: only camelCase names are accepted.
 */
export const EVENT_ORDER_FIELDS = [
  'id',
  ...EVENT_FIELDS.string.filter((f) => f !== 'published_at'),
  ...EVENT_FIELDS.dateTime,
  ...EVENT_FIELDS.boolean,
  ...EVENT_FIELDS.number,
  ...EVENT_FIELDS.integer,
] as const
export type EventOrderField = (typeof EVENT_ORDER_FIELDS)[number]

const ORDER_FIELD_SET: ReadonlySet<string> = new Set(EVENT_ORDER_FIELDS)

/** True when `name` is an accepted `order` field. */
export function isEventOrderField(name: string): name is EventOrderField {
  return ORDER_FIELD_SET.has(name)
}

// ---------------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------------

export const FeeScheduleSchema = z.looseObject({
  exponent: z.number().nullish(),
  rate: NumberLike.nullish(),
  takerOnly: z.boolean().nullish(),
  rebateRate: NumberLike.nullish(),
})
export type FeeSchedule = z.infer<typeof FeeScheduleSchema>

const MarketBaseSchema = z.looseObject({
  id: GammaId,
  /** 0x + 64 hex; absent or empty on some rows (the official client takes both). */
  conditionId: z.string().nullish(),
  ...nullishFields(MARKET_FIELDS.string, z.string()),
  ...nullishFields(MARKET_FIELDS.dateTime, DateTimeString),
  ...nullishFields(MARKET_FIELDS.boolean, z.boolean()),
  ...nullishFields(MARKET_FIELDS.integer, z.number().int()),
  ...nullishFields(MARKET_FIELDS.number, NumberLike),
  ...nullishFields(MARKET_FIELDS.image, ImageOptimizationSchema),
  outcomes: JsonArrayString.nullish(),
  outcomePrices: JsonArrayString.nullish(),
  clobTokenIds: JsonArrayString.nullish(),
  /** Base fees may be fractional (the official client reads plain numbers). */
  makerBaseFee: z.number().nullish(),
  takerBaseFee: z.number().nullish(),
  /** Category objects; any other element is kept as sent (the official client parses them as unknown). */
  categories: z.array(z.union([CategorySchema, z.unknown()])).nullish(),
  tags: z.array(TagSchema).nullish(),
  feeSchedule: FeeScheduleSchema.nullish(),
  /** Listing only: the market's reward programmes (the official client's key and shape). */
  clobRewards: z.array(ClobRewardSchema).nullish(),
  /** The spec's snake_case names for the listing relations; shape not shown, tolerated as is. */
  clob_rewards: z.unknown().optional(),
  fee_schedule: z.unknown().optional(),
})

const SeriesBaseSchema = z.looseObject({
  ...nullishFields(SERIES_FIELDS.string, z.string()),
  id: GammaId.nullish(),
  ...nullishFields(SERIES_FIELDS.boolean, z.boolean()),
  ...nullishFields(SERIES_FIELDS.dateTime, DateTimeString),
  ...nullishFields(SERIES_FIELDS.number, NumberLike),
  collections: z.array(CollectionSchema).nullish(),
  categories: z.array(CategorySchema).nullish(),
  tags: z.array(TagSchema).nullish(),
  chats: z.array(ChatSchema).nullish(),
})

const EventBaseSchema = z.looseObject({
  /** Numeric string (a JSON number is taken too). The only required field. */
  id: GammaId,
  ...nullishFields(EVENT_FIELDS.string, z.string()),
  ...nullishFields(EVENT_FIELDS.dateTime, DateTimeString),
  ...nullishFields(EVENT_FIELDS.boolean, z.boolean()),
  ...nullishFields(EVENT_FIELDS.number, NumberLike),
  ...nullishFields(EVENT_FIELDS.integer, z.number().int()),
  /** Basis points; not always whole (the official client reads a plain number). */
  negRiskFeeBips: z.number().nullish(),
  parentEventId: GammaId.nullish(),
  ...nullishFields(EVENT_FIELDS.image, ImageOptimizationSchema),
  subEvents: z.array(z.string()).nullish(),
  categories: z.array(CategorySchema).nullish(),
  collections: z.array(CollectionSchema).nullish(),
  tags: z.array(TagSchema).nullish(),
  eventCreators: z.array(EventCreatorSchema).nullish(),
  chats: z.array(ChatSchema).nullish(),
  templates: z.array(TemplateSchema).nullish(),
  /** Attached only when the listing's partner_slug is set (the official client's key and shape). */
  externalPartners: z.array(ExternalPartnerSchema).nullish(),
  /** The BestLines relation (include_best_lines). */
  bestLines: z.array(BestLineSchema).nullish(),
  /** The spec's snake_case names for the same relations; shape not shown, tolerated as is. */
  external_partners: z.unknown().optional(),
  best_lines: z.unknown().optional(),
})

export const MarketSchema = MarketBaseSchema.extend({
  get events() {
    return z.array(EventSchema).nullish()
  },
})
export type Market = z.infer<typeof MarketSchema>

export const SeriesSchema = SeriesBaseSchema.extend({
  get events() {
    return z.array(EventSchema).nullish()
  },
})
export type Series = z.infer<typeof SeriesSchema>

export const EventSchema = EventBaseSchema.extend({
  get markets() {
    return z.array(MarketSchema).nullish()
  },
  get series() {
    return z.array(SeriesSchema).nullish()
  },
})
export type Event = z.infer<typeof EventSchema>

/** A market as the single-event response carries it (AMM fields added). */
export const MarketDetailSchema = MarketSchema.extend({
  ...nullishFields(MARKET_DETAIL_FIELDS.string, z.string()),
  ...nullishFields(MARKET_DETAIL_FIELDS.boolean, z.boolean()),
  ...nullishFields(MARKET_DETAIL_FIELDS.number, NumberLike),
})
export type MarketDetail = z.infer<typeof MarketDetailSchema>

/** The single-event response of GET /events/slug/{slug}. */
export const EventDetailSchema = EventSchema.extend({
  liquidityAmm: NumberLike.nullish(),
  markets: z.array(MarketDetailSchema).nullish(),
})
export type EventDetail = z.infer<typeof EventDetailSchema>
