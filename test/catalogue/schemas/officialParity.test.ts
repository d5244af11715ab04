/**
 * Systematic check against the official client's schemas (@polymarket/bindings, read by
 * @polymarket/client 0.2.0): for every field the official schema declares and every JSON value in a
 * probe set, if the official field schema accepts the value, ours accepts it too. The only exceptions
 * are listed, each with its reason (docs/decisions.md "Reads"). Fields we do not declare pass through
 * our loose objects untouched, so they cannot be rejected.
 */
import {
  BestLineSchema as OfficialBestLine,
  ChatSchema as OfficialChat,
  ClobRewardsSchema as OfficialClobRewards,
  CollectionReferenceSchema as OfficialCollection,
  EventCreatorSchema as OfficialCreator,
  GammaEventSchema as OfficialEvent,
  EventExternalPartnerMappingSchema as OfficialExternalPartner,
  ImageOptimizationSchema as OfficialImageOptimization,
  GammaMarketSchema as OfficialMarket,
  PartnerSchema as OfficialPartner,
  SeriesReferenceSchema as OfficialSeries,
  TagReferenceSchema as OfficialTag,
  TemplateReferenceSchema as OfficialTemplate,
} from '@polymarket/bindings/gamma'
import {
  PerpsAccountFundingPaymentSchema,
  PerpsCredentialsResponseSchema,
  PerpsFeeScheduleEntrySchema,
  PerpsFeeTierSchema,
  PerpsInstrumentSchema,
  PerpsOrderSchema,
  PerpsOrderUpdateSchema,
  PerpsPortfolioPositionSchema,
  PerpsPortfolioSchema,
  PerpsProxyKeySchema,
  PerpsStatisticSchema,
  PerpsWithdrawalSchema,
} from '@polymarket/bindings/perps'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { EventSchema, MarketSchema, SeriesSchema } from '../../../src/catalogue/schemas/event.ts'
import {
  BestLineSchema,
  ClobRewardSchema,
  ExternalPartnerSchema,
  PartnerSchema,
} from '../../../src/catalogue/schemas/relations.ts'
import {
  ChatSchema,
  CollectionSchema,
  EventCreatorSchema,
  ImageOptimizationSchema,
  TagSchema,
  TemplateSchema,
} from '../../../src/catalogue/schemas/resources.ts'
import {
  CredentialKey,
  Credentials,
  FundingCharge,
  Portfolio,
  Position,
  Withdrawal,
} from '../../../src/perps/schemas/account.ts'
import { FeeScheduleEntry, FeeTier, Instrument, StatisticsItem } from '../../../src/perps/schemas/info.ts'
import { Order, OrderData } from '../../../src/perps/schemas/orders.ts'

/** JSON values of every kind the wire can carry (Date objects, which the official client also takes, never arrive over JSON). */
const PROBES: readonly unknown[] = [
  undefined,
  null,
  '',
  '0x',
  'abc',
  '12.5',
  '-3',
  12.5,
  12,
  0,
  -1,
  2 ** 60,
  true,
  '2024-01-02',
  '2024-01-02T00:00:00Z',
  [],
  {},
  ['a'],
  '["a", "b"]',
  `0x${'ab'.repeat(32)}`,
  `0x${'1'.repeat(40)}`,
  '0123456789abcdef0123456789abcdef',
  '1h',
  'perpetual',
  'crypto',
]

/** Strings that are not decimals: where our schema is numeric, these stay errors (we compute with them). */
const NOT_A_DECIMAL = (v: unknown): boolean =>
  typeof v === 'string' && v !== '' && !/^-?\d+(\.\d+)?$/.test(v) && !/^-?\d+(\.\d+)?[eE][-+]?\d+$/.test(v)

/** Perps decimals are strings we do integer math on: a non-decimal string is never a usable value. */
const PERPS_DECIMAL = (v: unknown): boolean => typeof v === 'string' && NOT_A_DECIMAL(v)
const PERPS_EMPTY_DECIMAL = (v: unknown): boolean => v === ''

type Exception = (value: unknown) => boolean
interface Pair {
  name: string
  official: z.ZodType
  ours: z.ZodType
  /** Per field: values the official schema accepts that we reject on purpose. */
  except?: Readonly<Record<string, Exception>>
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  let cur: unknown = schema
  for (let i = 0; i < 5; i++) {
    const c = cur as { shape?: Record<string, z.ZodType>; in?: unknown }
    if (c.shape) return c.shape
    cur = c.in
  }
  throw new Error('not an object schema')
}

function accepts(schema: z.ZodType, value: unknown): boolean {
  try {
    return schema.safeParse(value).success
  } catch {
    // The official tagged types throw an invariant for some values (an address that is not one).
    return false
  }
}

const decimalFieldsOf = (schema: z.ZodType, keys: readonly string[]): Record<string, Exception> =>
  Object.fromEntries(
    keys.filter((k) => k in objectShape(schema)).map((k) => [k, (v: unknown) => NOT_A_DECIMAL(v)]),
  )
const perpsDecimals = (keys: readonly string[]): Record<string, Exception> =>
  Object.fromEntries(keys.map((k) => [k, (v: unknown) => PERPS_DECIMAL(v) || PERPS_EMPTY_DECIMAL(v)]))

const EVENT_NUMBERS = [
  'liquidity',
  'volume',
  'openInterest',
  'volume24hr',
  'volume1wk',
  'volume1mo',
  'volume1yr',
]
const MARKET_NUMBERS = [
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
  'rewardsMinSize',
  'spread',
  'oneDayPriceChange',
  'oneHourPriceChange',
  'oneWeekPriceChange',
  'oneMonthPriceChange',
  'oneYearPriceChange',
  'lastTradePrice',
  'bestBid',
  'bestAsk',
]

const PAIRS: readonly Pair[] = [
  {
    name: 'event',
    official: OfficialEvent,
    ours: EventSchema,
    except: decimalFieldsOf(EventSchema, [...EVENT_NUMBERS, 'liquidityClob']),
  },
  {
    name: 'market',
    official: OfficialMarket,
    ours: MarketSchema,
    except: decimalFieldsOf(MarketSchema, MARKET_NUMBERS),
  },
  {
    name: 'series',
    official: OfficialSeries,
    ours: SeriesSchema,
    except: decimalFieldsOf(SeriesSchema, ['volume24hr', 'volume', 'liquidity']),
  },
  { name: 'tag', official: OfficialTag, ours: TagSchema },
  { name: 'chat', official: OfficialChat, ours: ChatSchema },
  { name: 'collection', official: OfficialCollection, ours: CollectionSchema },
  { name: 'event creator', official: OfficialCreator, ours: EventCreatorSchema },
  { name: 'template', official: OfficialTemplate, ours: TemplateSchema },
  { name: 'image optimization', official: OfficialImageOptimization, ours: ImageOptimizationSchema },
  { name: 'partner', official: OfficialPartner, ours: PartnerSchema },
  { name: 'external partner', official: OfficialExternalPartner, ours: ExternalPartnerSchema },
  { name: 'best line', official: OfficialBestLine, ours: BestLineSchema },
  {
    name: 'clob reward',
    official: OfficialClobRewards,
    ours: ClobRewardSchema,
    except: decimalFieldsOf(ClobRewardSchema, ['rewardsAmount', 'rewardsDailyRate']),
  },
  {
    name: 'withdrawal',
    official: PerpsWithdrawalSchema,
    ours: Withdrawal,
    except: perpsDecimals(['amount', 'fee']),
  },
  {
    name: 'funding payment',
    official: PerpsAccountFundingPaymentSchema,
    ours: FundingCharge,
    except: perpsDecimals(['size', 'funding_rate', 'funding']),
  },
  {
    name: 'position',
    official: PerpsPortfolioPositionSchema,
    ours: Position,
    except: perpsDecimals([
      'size',
      'entry_price',
      'initial_margin',
      'maintenance_margin',
      'position_value',
      'liquidation_price',
      'unrealized_pnl',
      'return_on_equity',
      'cumulative_funding',
    ]),
  },
  {
    name: 'portfolio',
    official: PerpsPortfolioSchema,
    ours: Portfolio,
    except: perpsDecimals(['withdrawable']),
  },
  { name: 'proxy key', official: PerpsProxyKeySchema, ours: CredentialKey },
  { name: 'credentials', official: PerpsCredentialsResponseSchema, ours: Credentials },
  {
    name: 'statistic',
    official: PerpsStatisticSchema,
    ours: StatisticsItem,
    except: perpsDecimals(['volume', 'open_price']),
  },
  {
    name: 'fee tier',
    official: PerpsFeeTierSchema,
    ours: FeeTier,
    except: perpsDecimals(['min_volume_30d', 'taker_fee_rate', 'maker_fee_rate']),
  },
  {
    name: 'fee schedule entry',
    official: PerpsFeeScheduleEntrySchema,
    ours: FeeScheduleEntry,
    except: perpsDecimals(['taker_fee_rate', 'maker_fee_rate']),
  },
  {
    name: 'instrument',
    official: PerpsInstrumentSchema,
    ours: Instrument,
    except: {
      ...perpsDecimals([
        'price_bounds',
        'liquidation_fee',
        'min_notional',
        'max_market_notional',
        'max_limit_notional',
      ]),
      // Signed as u32 and used as decimal places: larger values could not be traded.
      instrument_id: (v) => typeof v === 'number' && v > 4_294_967_295,
      quantity_decimals: (v) => typeof v === 'number' && v > 18,
      price_decimals: (v) => typeof v === 'number' && v > 18,
    },
  },
  {
    name: 'order (REST)',
    official: PerpsOrderSchema,
    ours: OrderData,
    except: perpsDecimals(['price', 'quantity', 'resting_quantity', 'filled_quantity']),
  },
  {
    name: 'order (terse)',
    official: PerpsOrderUpdateSchema,
    ours: Order,
    except: perpsDecimals(['p', 'qty', 'rest', 'fill']),
  },
]

describe('our read schemas accept what the official client accepts, field by field', () => {
  it.each(PAIRS)('$name', ({ official, ours, except = {} }) => {
    const officialShape = objectShape(official)
    const ourShape = objectShape(ours)
    const gaps: string[] = []
    for (const [key, officialField] of Object.entries(officialShape)) {
      const ourField = ourShape[key]
      if (ourField === undefined) continue
      for (const value of PROBES) {
        if (!accepts(officialField, value) || accepts(ourField, value)) continue
        if (except[key]?.(value)) continue
        gaps.push(`${key}: ${JSON.stringify(value) ?? 'undefined'}`)
      }
    }
    expect(gaps).toEqual([])
  })

  it('the exceptions are real (each is rejected by us and taken by the official client)', () => {
    expect(accepts(objectShape(OfficialEvent).volume as z.ZodType, 'abc')).toBe(true)
    expect(EventSchema.safeParse({ id: '1', volume: 'abc' }).error?.issues[0]?.path).toEqual(['volume'])
    expect(EventSchema.parse({ id: '1', volume: '' }).volume).toBeNull()
    expect(accepts(objectShape(PerpsWithdrawalSchema).fee as z.ZodType, '')).toBe(true)
  })
})
