import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  EVENT_FIELDS,
  EVENT_ORDER_FIELDS,
  type Event,
  EventDetailSchema,
  type EventOrderField,
  EventSchema,
  isEventOrderField,
  MARKET_FIELDS,
  MarketSchema,
  SeriesSchema,
} from '../../../src/catalogue/schemas/event.ts'
import {
  CategorySchema,
  ChatSchema,
  CollectionSchema,
  EventCreatorSchema,
  ImageOptimizationSchema,
  TagSchema,
  TemplateSchema,
} from '../../../src/catalogue/schemas/resources.ts'
import {
  CatalogueErrorBodySchema,
  EventsKeysetResponseSchema,
} from '../../../src/catalogue/schemas/responses.ts'

const conditionId = `0x${'0f'.repeat(32)}`

describe('Event schema', () => {
  it('accepts the minimal event: only id', () => {
    expect(EventSchema.parse({ id: '1' })).toEqual({ id: '1' })
  })

  it('rejects an event without id; a numeric id (the official client takes it) becomes its string', () => {
    expect(EventSchema.safeParse({ slug: 'x' }).error?.issues[0]?.path).toEqual(['id'])
    expect(EventSchema.parse({ id: 1 }).id).toBe('1')
    expect(EventSchema.safeParse({ id: 1.5 }).success).toBe(false)
  })

  it('accepts null for every field but id', () => {
    const allNull: Record<string, unknown> = { id: '1' }
    for (const group of Object.values(EVENT_FIELDS)) for (const f of group) allNull[f] = null
    for (const f of [
      'subEvents',
      'markets',
      'series',
      'categories',
      'collections',
      'tags',
      'eventCreators',
      'chats',
      'templates',
    ]) {
      allNull[f] = null
    }
    expect(EventSchema.parse(allNull)).toEqual(allNull)
  })

  it('keeps unknown fields (including the undocumented relations) untouched', () => {
    const input = {
      id: '1',
      external_partners: [{ partnerSlug: 'espn' }],
      best_lines: { anything: true },
      teams: [{ name: 'A' }],
      negRiskAugmented: false,
    }
    expect(EventSchema.parse(input)).toEqual(input)
  })

  it('types fields by the spec tables', () => {
    // Volumes come as numbers or numeric strings (the official client's Decimalish): numbers here.
    expect(EventSchema.parse({ id: '1', volume: '10' }).volume).toBe(10)
    expect(EventSchema.safeParse({ id: '1', volume: 'ten' }).error?.issues[0]?.path).toEqual(['volume'])
    expect(EventSchema.safeParse({ id: '1', commentCount: 1.5 }).success).toBe(false)
    expect(EventSchema.safeParse({ id: '1', closed: 'false' }).success).toBe(false)
    expect(EventSchema.safeParse({ id: '1', subEvents: ['a', 'b'] }).success).toBe(true)
    expect(
      EventSchema.safeParse({ id: '1', imageOptimized: { imageUrlSource: 'x' } }).error?.issues[0]?.path,
    ).toEqual(['imageOptimized', 'id'])
  })

  it('parses nested markets, series and events recursively, requiring ids at every level', () => {
    const input = {
      id: '1',
      markets: [
        { id: '2', conditionId, events: [{ id: '3', series: [{ id: '4', events: [{ id: '5' }] }] }] },
      ],
    }
    expect(EventSchema.parse(input)).toEqual(input)
    const broken = structuredClone(input) as { markets: { events: { series: { events: object[] }[] }[] }[] }
    broken.markets[0]!.events[0]!.series[0]!.events = [{ slug: 'no-id' }]
    expect(EventSchema.safeParse(broken).error?.issues[0]?.path).toEqual([
      'markets',
      0,
      'events',
      0,
      'series',
      0,
      'events',
      0,
      'id',
    ])
  })

  it('infers recursive types', () => {
    expectTypeOf<
      NonNullable<NonNullable<Event['markets']>[number]['events']>[number]
    >().toEqualTypeOf<Event>()
    expectTypeOf<Event['id']>().toEqualTypeOf<string>()
    expectTypeOf<Event['volume']>().toEqualTypeOf<number | null | undefined>()
  })
})

describe('Market schema', () => {
  it('requires id; conditionId may be absent or null (as the official client allows)', () => {
    expect(MarketSchema.safeParse({ id: '1' }).success).toBe(true)
    expect(MarketSchema.safeParse({ id: '1', conditionId: null }).success).toBe(true)
    expect(MarketSchema.safeParse({ id: '1', conditionId: 7 }).error?.issues.map((i) => i.path)).toEqual([
      ['conditionId'],
    ])
    expect(MarketSchema.safeParse({ conditionId }).error?.issues.map((i) => i.path)).toEqual([['id']])
  })

  it('accepts nulls everywhere else, the feeSchedule object and the listing-only relations', () => {
    const m: Record<string, unknown> = { id: '1', conditionId }
    for (const group of Object.values(MARKET_FIELDS)) for (const f of group) m[f] = null
    m.feeSchedule = { exponent: 2, rate: 0.02, takerOnly: true, rebateRate: 0.25 }
    m.clob_rewards = [{ rewardsDailyRate: 10 }]
    m.fee_schedule = { whatever: 1 }
    expect(MarketSchema.parse(m)).toEqual(m)
  })

  it('types numeric strings as strings (liquidity, volume) and numbers as numbers (volumeNum)', () => {
    expect(MarketSchema.safeParse({ id: '1', conditionId, liquidity: '10.5', volumeNum: 3 }).success).toBe(
      true,
    )
    expect(MarketSchema.safeParse({ id: '1', conditionId, liquidity: 10.5 }).success).toBe(false)
    expect(MarketSchema.safeParse({ id: '1', conditionId, createdBy: 1.5 }).success).toBe(false)
  })
})

describe('single-event form', () => {
  it('carries liquidityAmm and the markets AMM extras', () => {
    const parsed = EventDetailSchema.parse({
      id: '1',
      liquidityAmm: 5,
      markets: [
        { id: '2', conditionId, ammType: 'fpmm', marketMakerAddress: '0xabc', fpmmLive: true, volumeAmm: 1 },
      ],
    })
    expect(parsed.liquidityAmm).toBe(5)
    expect(parsed.markets?.[0]?.ammType).toBe('fpmm')
    expect(EventDetailSchema.safeParse({ id: '1', liquidityAmm: 'x' }).success).toBe(false)
    expect(
      EventDetailSchema.safeParse({ id: '1', markets: [{ id: '2', conditionId, fpmmLive: 1 }] }).success,
    ).toBe(false)
  })
})

describe('embedded resources', () => {
  it.each([
    [
      'Series',
      SeriesSchema,
      { id: '1', recurrence: 'daily', templateVariables: false, commentCount: 3, chats: [] },
    ],
    ['Collection', CollectionSchema, { id: '1', tags: 'a,b', headerImageOptimized: { id: '9' } }],
    ['Category', CategorySchema, { id: '1', parentCategory: null, createdBy: '3' }],
    ['Tag', TagSchema, { id: '1', forceShow: true, createdBy: 3, publishedAt: '2026-01-01 00:00:00+00' }],
    ['Chat', ChatSchema, { id: '1', live: false, startTime: '2026-01-01T00:00:00Z', endTime: null }],
    ['EventCreator', EventCreatorSchema, { id: '1', creatorHandle: 'x' }],
    ['Template', TemplateSchema, { id: '1', negRisk: true, outcomes: '["Yes", "No"]' }],
  ] as const)('%s accepts all-nullish, extras and its typed fields', (_name, schema, sample) => {
    expect(schema.parse({})).toEqual({})
    expect(schema.parse({ ...sample, extra: [1] })).toEqual({ ...sample, extra: [1] })
  })

  it('ImageOptimization requires id and types the rest', () => {
    expect(ImageOptimizationSchema.safeParse({}).success).toBe(false)
    expect(ImageOptimizationSchema.parse({ id: '1', relID: null, imageSizeKbSource: 12.5 })).toEqual({
      id: '1',
      relID: null,
      imageSizeKbSource: 12.5,
    })
    expect(ImageOptimizationSchema.safeParse({ id: '1', relID: 1.5 }).success).toBe(false)
  })

  it('Tag.createdBy is a number, Category.createdBy a string (as the spec says)', () => {
    expect(TagSchema.safeParse({ createdBy: '3' }).success).toBe(false)
    expect(CategorySchema.safeParse({ createdBy: 3 }).success).toBe(false)
  })
})

describe('responses', () => {
  it('listing tolerates $schema and a missing next_cursor', () => {
    const parsed = EventsKeysetResponseSchema.parse({
      $schema: 'https://x/schema.json',
      events: [{ id: '1' }],
    })
    expect(parsed.next_cursor).toBeUndefined()
    expect(parsed.$schema).toBe('https://x/schema.json')
  })

  it('error body needs type; error is optional', () => {
    expect(CatalogueErrorBodySchema.parse({ type: 'internal error' })).toEqual({ type: 'internal error' })
    expect(CatalogueErrorBodySchema.safeParse({ error: 'x' }).success).toBe(false)
  })
})

describe('order fields', () => {
  it('are the camelCase scalar Event fields plus id, without published_at', () => {
    expect(EVENT_ORDER_FIELDS).toContain('id')
    expect(EVENT_ORDER_FIELDS).toContain('volume24hr')
    expect(EVENT_ORDER_FIELDS).toContain('startDate')
    expect(EVENT_ORDER_FIELDS).not.toContain('published_at')
    expect(EVENT_ORDER_FIELDS.every((f) => /^[a-z][A-Za-z0-9]*$/.test(f))).toBe(true)
    expect(isEventOrderField('start_date')).toBe(false)
    expect(isEventOrderField('markets')).toBe(false)
    expectTypeOf<'published_at'>().not.toExtend<EventOrderField>()
  })
})
