import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type ListEventsKeysetParams,
  listEventsKeyset,
  toKeysetQuery,
} from '../../../src/catalogue/client/listEventsKeyset.ts'
import {
  InputValidationError,
  RequestRejectedError,
  TransportError,
  UnexpectedResponseError,
} from '../../../src/errors.ts'
import { NO_RETRY } from '../../../src/http/callJson.ts'
import { type FakeCatalogue, fakeCatalogue, wireEvent } from './fakeCatalogue.ts'

let fake: FakeCatalogue
beforeEach(() => {
  fake = fakeCatalogue()
})
afterEach(async () => {
  await fake.close()
})

describe('listEventsKeyset request encoding', () => {
  it('sends GET /events/keyset with no query for empty params', async () => {
    fake.reply(200, { events: [] })
    const page = await listEventsKeyset(fake.ctx)
    expect(fake.requests).toEqual(['/events/keyset'])
    expect(page).toEqual({ events: [], nextCursor: undefined })
  })

  it('maps every camelCase param to its wire name, arrays as repeated keys, in spec order', async () => {
    fake.reply(200, { events: [] })
    const params: ListEventsKeysetParams = {
      limit: 50,
      order: ['volume24hr', 'startDate'],
      ascending: false,
      afterCursor: 'abc.def',
      ids: [1, '2'],
      slugs: ['a', 'b'],
      closed: false,
      live: true,
      featured: false,
      cyom: true,
      titleSearch: 'bitcoin up',
      liquidityMin: 10.5,
      liquidityMax: 1000,
      volumeMin: 0,
      volumeMax: 5e6,
      startDateMin: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      startDateMax: '2026-02-01T00:00:00Z',
      endDateMin: '2026-01-01T00:00:00+02:00',
      endDateMax: '2026-12-31T23:59:59.999Z',
      startTimeMin: '2026-03-01T00:00:00Z',
      startTimeMax: '2026-03-02T00:00:00Z',
      tagIds: [5, 7],
      tagSlug: 'crypto',
      excludeTagIds: ['9'],
      relatedTags: true,
      tagMatch: 'all',
      seriesIds: [10],
      gameIds: [11, 12],
      eventDate: '2026-06-01T00:00:00Z',
      eventWeek: 3,
      featuredOrder: true,
      recurrence: 'weekly',
      createdBy: ['17', '0xabc'],
      parentEventId: '123',
      includeChildren: true,
      partnerSlug: 'espn',
      includeChat: true,
      includeTemplate: false,
      includeBestLines: true,
      locale: 'en',
    }
    await listEventsKeyset(fake.ctx, params)
    const [path] = fake.requests
    expect(path?.split('?')[0]).toBe('/events/keyset')
    const sent = [...new URLSearchParams(path?.split('?')[1]).entries()]
    expect(sent).toEqual([
      ['limit', '50'],
      ['order', 'volume24hr,startDate'],
      ['ascending', 'false'],
      ['after_cursor', 'abc.def'],
      ['id', '1'],
      ['id', '2'],
      ['slug', 'a'],
      ['slug', 'b'],
      ['closed', 'false'],
      ['live', 'true'],
      ['featured', 'false'],
      ['cyom', 'true'],
      ['title_search', 'bitcoin up'],
      ['liquidity_min', '10.5'],
      ['liquidity_max', '1000'],
      ['volume_min', '0'],
      ['volume_max', '5000000'],
      ['start_date_min', '2026-01-02T03:04:05.000Z'],
      ['start_date_max', '2026-02-01T00:00:00Z'],
      ['end_date_min', '2026-01-01T00:00:00+02:00'],
      ['end_date_max', '2026-12-31T23:59:59.999Z'],
      ['start_time_min', '2026-03-01T00:00:00Z'],
      ['start_time_max', '2026-03-02T00:00:00Z'],
      ['tag_id', '5'],
      ['tag_id', '7'],
      ['tag_slug', 'crypto'],
      ['exclude_tag_id', '9'],
      ['related_tags', 'true'],
      ['tag_match', 'all'],
      ['series_id', '10'],
      ['game_id', '11'],
      ['game_id', '12'],
      ['event_date', '2026-06-01T00:00:00Z'],
      ['event_week', '3'],
      ['featured_order', 'true'],
      ['recurrence', 'weekly'],
      ['created_by', '17'],
      ['created_by', '0xabc'],
      ['parent_event_id', '123'],
      ['include_children', 'true'],
      ['partner_slug', 'espn'],
      ['include_chat', 'true'],
      ['include_template', 'false'],
      ['include_best_lines', 'true'],
      ['locale', 'en'],
    ])
    expect(path).not.toContain('offset')
    // Repeated keys, never brackets or comma-joined ids.
    expect(path).toContain('id=1&id=2')
    expect(path).not.toContain('%5B')
  })

  it('accepts a single order field as a string', () => {
    expect(toKeysetQuery({ order: 'id' }).toString()).toBe('order=id')
  })

  it('sends eventDate as a calendar date, the form the official client uses', () => {
    expect(toKeysetQuery({ eventDate: '2026-06-01' }).toString()).toBe('event_date=2026-06-01')
  })
})

describe('listEventsKeyset input validation (no request is sent)', () => {
  const bad: [string, unknown, RegExp][] = [
    ['limit 0', { limit: 0 }, /limit must be an integer from 1 to 500/],
    ['limit 501', { limit: 501 }, /limit must be an integer from 1 to 500/],
    ['limit 2.5', { limit: 2.5 }, /limit must be an integer from 1 to 500/],
    ['offset', { offset: 20 }, /offset is not allowed on keyset endpoints/],
    ['unknown param', { pageSize: 20 }, /unknown parameter\(s\): pageSize/],
    [
      'snake_case order',
      { order: ['start_date'] },
      /"start_date" is not valid: use the camelCase Event field name "startDate"/,
    ],
    ['snake_case in a list', { order: ['volume', 'end_date'] }, /"end_date" is not valid: use .* "endDate"/],
    [
      'unknown order field',
      { order: 'popularity' },
      /"popularity" is not a sortable camelCase Event field name/,
    ],
    ['empty order list', { order: [] }, /order must name a field/],
    ['published_at order', { order: 'published_at' }, /"published_at" is not a sortable/],
    ['tag overlap', { tagIds: [1, 2], excludeTagIds: ['2'] }, /must not overlap \(both contain 2\)/],
    ['recurrence', { recurrence: 'yearly' }, /recurrence must be "daily", "weekly" or "monthly"/],
    ['tagMatch', { tagMatch: 'some' }, /tagMatch must be "any" or "all"/],
    ['date string without zone', { startDateMin: '2026-01-01T00:00:00' }, /ISO 8601 date-time with a zone/],
    ['not a date', { endDateMax: 'yesterday' }, /ISO 8601 date-time with a zone/],
    ['invalid Date', { eventDate: new Date(Number.NaN) }, /must be a valid date/],
    ['eventDate neither a day nor a date-time', { eventDate: '2026-13-01' }, /calendar date \(YYYY-MM-DD\)/],
    ['negative id', { ids: [-1] }, /must be a non-negative integer/],
    ['non-numeric tag id', { tagIds: ['abc'] }, /must be a non-negative integer/],
    ['fractional id', { seriesIds: [1.5] }, /must be a non-negative integer/],
    ['NaN number filter', { volumeMin: Number.NaN }, /volumeMin/],
    ['boolean as string', { closed: 'false' }, /closed: must be a boolean/],
    ['empty cursor', { afterCursor: '' }, /afterCursor must not be empty/],
  ]
  it.each(bad)('rejects %s', async (_name, params, message) => {
    const call = listEventsKeyset(fake.ctx, params as ListEventsKeysetParams)
    await expect(call).rejects.toBeInstanceOf(InputValidationError)
    await expect(call).rejects.toThrow(message)
    expect(fake.requests).toEqual([])
  })

  it('names the field of every issue', async () => {
    const err = await listEventsKeyset(fake.ctx, {
      limit: 0,
      tagMatch: 'x',
    } as unknown as ListEventsKeysetParams).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InputValidationError)
    expect((err as InputValidationError).message).toMatch(/limit: /)
    expect((err as InputValidationError).message).toMatch(/tagMatch: /)
  })
})

describe('listEventsKeyset responses', () => {
  it('parses events, tolerates $schema and unknown fields, and exposes nextCursor', async () => {
    fake.reply(200, {
      $schema: 'https://gamma-api.polymarket.com/schemas/EventsKeysetListResponse.json',
      events: [wireEvent('1', { brandNewField: { x: 1 } }), wireEvent('2')],
      next_cursor: 'cursor-2',
    })
    const page = await listEventsKeyset(fake.ctx, { limit: 2 })
    expect(page.nextCursor).toBe('cursor-2')
    expect(page.events.map((e) => e.id)).toEqual(['1', '2'])
    expect(page.events[0]?.brandNewField).toEqual({ x: 1 })
    expect(page.events[0]?.markets?.[0]?.conditionId).toBe(`0x${'ab'.repeat(32)}`)
  })

  it('treats a null next_cursor as the last page', async () => {
    fake.reply(200, { events: [], next_cursor: null })
    expect((await listEventsKeyset(fake.ctx)).nextCursor).toBeUndefined()
  })

  it.each([
    [422, 'validation error', 'offset is not allowed on keyset endpoints'],
    [500, 'internal error', 'database failure'],
    [503, 'service unavailable', 'keyset pagination is not configured'],
  ])('maps %i {type:%s} to RequestRejectedError with status and code', async (status, type, error) => {
    fake.reply(status, { type, error })
    const err = await listEventsKeyset(fake.ctx, {}, { retry: NO_RETRY }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RequestRejectedError)
    const rejected = err as RequestRejectedError
    expect(rejected.status).toBe(status)
    expect(rejected.code).toBe(type)
    expect(rejected.serverMessage).toBe(error)
    expect(rejected.path).toBe('/events/keyset')
    expect(rejected.message).toContain(error)
  })

  it('retries a 5xx read (default policy) and returns the later success', async () => {
    fake.reply(500, { type: 'internal error', error: 'database failure' })
    fake.reply(200, { events: [wireEvent('3')] })
    const page = await listEventsKeyset(fake.ctx, { limit: 1 })
    expect(page.events.map((e) => e.id)).toEqual(['3'])
    expect(fake.requests).toHaveLength(2)
  })

  it('does not retry a 422', async () => {
    fake.reply(422, { type: 'validation error', error: 'invalid cursor' })
    await expect(listEventsKeyset(fake.ctx, { afterCursor: 'x' })).rejects.toMatchObject({
      status: 422,
      code: 'validation error',
    })
    expect(fake.requests).toHaveLength(1)
  })

  it('falls back to http_<status> when the error body is not {type, error}', async () => {
    fake.replyRaw(502, '<html>bad gateway</html>')
    await expect(listEventsKeyset(fake.ctx, {}, { retry: NO_RETRY })).rejects.toMatchObject({
      status: 502,
      code: 'http_502',
    })
  })

  it('rejects an event without id, naming the field', async () => {
    fake.reply(200, { events: [wireEvent('1'), { slug: 'no-id' }] })
    const err = await listEventsKeyset(fake.ctx).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UnexpectedResponseError)
    expect((err as UnexpectedResponseError).issues[0]).toMatch(/^events\.1\.id: /)
  })

  it('rejects a market without id, naming the field', async () => {
    fake.reply(200, { events: [wireEvent('1', { markets: [{ conditionId: `0x${'a'.repeat(64)}` }] })] })
    const err = await listEventsKeyset(fake.ctx).catch((e: unknown) => e)
    expect((err as UnexpectedResponseError).issues).toEqual([
      expect.stringMatching(/^events\.0\.markets\.0\.id: /),
    ])
  })

  it('rejects a wrongly typed field, naming it', async () => {
    fake.reply(200, { events: [wireEvent('1', { volume: 'lots' })] })
    const err = await listEventsKeyset(fake.ctx).catch((e: unknown) => e)
    expect((err as UnexpectedResponseError).message).toMatch(/events\.0\.volume/)
  })

  it('rejects a body that is not JSON', async () => {
    fake.replyRaw(200, '{"events": [')
    await expect(listEventsKeyset(fake.ctx)).rejects.toThrow(/body is not valid JSON/)
  })

  it('rejects a body without events', async () => {
    fake.reply(200, { data: [] })
    await expect(listEventsKeyset(fake.ctx)).rejects.toThrow(/events: /)
  })

  it('fails with TransportError on an unscripted request (nothing leaves the process)', async () => {
    await expect(listEventsKeyset(fake.ctx, {}, { retry: NO_RETRY })).rejects.toBeInstanceOf(TransportError)
  })
})
