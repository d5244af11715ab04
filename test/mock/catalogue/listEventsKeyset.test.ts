import { describe, expect, it } from 'vitest'
import type { EventDetail } from '../../../src/catalogue/schemas/event.ts'
import { createCatalogueStore } from '../../../src/mock/catalogue/catalogueStore.ts'
import {
  KEYSET_RESPONSE_SCHEMA_URL,
  listEventsKeysetCore,
} from '../../../src/mock/catalogue/listEventsKeyset.ts'

const store = createCatalogueStore({ seed: 11, eventCount: 400 })

type Body = { events: Record<string, unknown>[]; next_cursor?: string; $schema?: string }

function call(qs: string | URLSearchParams): { status: number; body: Body } {
  const res = listEventsKeysetCore(store, typeof qs === 'string' ? new URLSearchParams(qs) : qs)
  return { status: res.status, body: res.body as Body }
}

/** Pages through a listing with the core directly; returns the ids in the order served. */
function collectIds(qs: string, limit = 37): string[] {
  const ids: string[] = []
  let cursor: string | undefined
  for (let guard = 0; guard < 1000; guard++) {
    const params = new URLSearchParams(qs)
    params.set('limit', String(limit))
    if (cursor) params.set('after_cursor', cursor)
    const { status, body } = call(params)
    expect(status).toBe(200)
    ids.push(...body.events.map((e) => e.id as string))
    cursor = body.next_cursor
    if (!cursor) return ids
  }
  throw new Error('paging did not end')
}

const byId = (a: string, b: string): number => Number(a) - Number(b)
const all = (): EventDetail[] => store.events().map((s) => s.event)
const expectedIds = (pred: (e: EventDetail) => boolean): string[] =>
  all()
    .filter(pred)
    .map((e) => e.id)
    .sort(byId)
const tagIds = (e: EventDetail): string[] => (e.tags ?? []).map((t) => t.id ?? '')
const ms = (s: string | null | undefined): number => (s ? Date.parse(s) : Number.NaN)

describe('GET /events/keyset core: paging', () => {
  it('serves 20 events by default, ordered by id, with $schema and a cursor', () => {
    const { status, body } = call('')
    expect(status).toBe(200)
    expect(body.$schema).toBe(KEYSET_RESPONSE_SCHEMA_URL)
    const ids = body.events.map((e) => e.id as string)
    expect(ids).toEqual(expectedIds(() => true).slice(0, 20))
    expect(body.next_cursor).toEqual(expect.any(String))
  })

  it('pages through everything exactly once in id order, omitting the cursor on the last page', () => {
    expect(collectIds('')).toEqual(expectedIds(() => true))
  })

  it('sends a cursor on a full last page, then an empty page without one', () => {
    const n = store.size
    const first = call(`limit=${n - 100}`)
    const second = call(`limit=100&after_cursor=${first.body.next_cursor}`)
    expect(second.body.events).toHaveLength(100)
    expect(second.body.next_cursor).toEqual(expect.any(String))
    const third = call(`limit=100&after_cursor=${second.body.next_cursor}`)
    expect(third.body.events).toEqual([])
    expect(third.body.next_cursor).toBeUndefined()
  })

  it('ignores ascending without order', () => {
    expect(call('ascending=false&limit=5').body.events.map((e) => e.id)).toEqual(
      expectedIds(() => true).slice(0, 5),
    )
  })

  it('orders by a numeric field descending with id as tie-breaker', () => {
    const ids = collectIds('order=volume&ascending=false')
    const expected = all()
      .slice()
      .sort((a, b) => (b.volume ?? 0) - (a.volume ?? 0) || byId(b.id, a.id))
      .map((e) => e.id)
    expect(ids).toEqual(expected)
  })

  it('orders by several fields (closed, then startDate)', () => {
    const ids = collectIds('order=closed,startDate')
    const key = (e: EventDetail): [number, number, number] => [
      e.closed ? 1 : 0,
      ms(e.startDate),
      Number(e.id),
    ]
    const expected = all()
      .slice()
      .sort((a, b) => {
        const ka = key(a)
        const kb = key(b)
        return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2]
      })
      .map((e) => e.id)
    expect(ids).toEqual(expected)
  })

  it('puts null sort values last ascending and first descending', () => {
    const withWeek = all().filter((e) => typeof e.eventWeek === 'number').length
    expect(withWeek).toBeGreaterThan(0)
    expect(withWeek).toBeLessThan(store.size)
    const asc = collectIds('order=eventWeek')
    const desc = collectIds('order=eventWeek&ascending=false')
    const weekOf = (id: string) => store.getEvent(id)?.event.eventWeek
    expect(asc.slice(0, withWeek).every((id) => typeof weekOf(id) === 'number')).toBe(true)
    expect(asc.slice(withWeek).every((id) => weekOf(id) == null)).toBe(true)
    expect(desc.slice(0, store.size - withWeek).every((id) => weekOf(id) == null)).toBe(true)
    expect(new Set(asc)).toEqual(new Set(desc))
  })

  it('orders strings by code unit (title)', () => {
    const titles = collectIds('order=title').map((id) => store.getEvent(id)?.event.title ?? '')
    expect(titles).toEqual([...titles].sort())
  })
})

describe('GET /events/keyset core: filters', () => {
  const some = all()
  const tagged = some.find((e) => tagIds(e).length >= 3 && !e.closed && (e.volume ?? 0) >= 1000)!
  const [tagA, tagB] = tagIds(tagged)
  const series = some.find((e) => (e.series ?? []).length > 0)!.series![0]!
  const game = some.find((e) => e.markets?.some((m) => m.gameId))!
  const gameId = game.markets!.find((m) => m.gameId)!.gameId!
  const creator = some.find((e) => typeof e.createdBy === 'string')!.createdBy!
  const dated = some.find((e) => typeof e.eventDate === 'string')!
  const weekly = some.find((e) => typeof e.eventWeek === 'number')!
  const child = some.find((e) => e.parentEvent)!
  const start = '2026-01-01T00:00:00Z'
  const end = '2026-03-01T00:00:00Z'

  const cases: [string, string, (e: EventDetail) => boolean][] = [
    ['id', `id=${some[3]!.id}&id=${some[7]!.id}`, (e) => e.id === some[3]!.id || e.id === some[7]!.id],
    ['slug', `slug=${some[5]!.slug}`, (e) => e.slug === some[5]!.slug],
    ['closed=false', 'closed=false', (e) => e.closed !== true],
    ['closed=true', 'closed=true', (e) => e.closed === true],
    ['live', 'live=true', (e) => e.live === true],
    ['featured', 'featured=true', (e) => e.featured === true],
    ['cyom', 'cyom=true', (e) => e.cyom === true],
    [
      'title_search (case-insensitive)',
      'title_search=BITCOIN',
      (e) => (e.title ?? '').toLowerCase().includes('bitcoin'),
    ],
    [
      'liquidity range',
      'liquidity_min=100&liquidity_max=5000',
      (e) => (e.liquidity ?? -1) >= 100 && (e.liquidity ?? -1) <= 5000,
    ],
    ['volume range', 'volume_min=50000', (e) => (e.volume ?? -1) >= 50_000],
    [
      'start_date range',
      `start_date_min=${start}&start_date_max=${end}`,
      (e) => ms(e.startDate) >= ms(start) && ms(e.startDate) <= ms(end),
    ],
    ['end_date range', `end_date_max=${start}`, (e) => ms(e.endDate) <= ms(start)],
    ['start_time range', `start_time_min=${start}`, (e) => ms(e.startTime) >= ms(start)],
    [
      'tag_id any',
      `tag_id=${tagA}&tag_id=${tagB}`,
      (e) => tagIds(e).includes(tagA!) || tagIds(e).includes(tagB!),
    ],
    [
      'tag_id all',
      `tag_id=${tagA}&tag_id=${tagB}&tag_match=all`,
      (e) => tagIds(e).includes(tagA!) && tagIds(e).includes(tagB!),
    ],
    ['exclude_tag_id', `exclude_tag_id=${tagA}`, (e) => !tagIds(e).includes(tagA!)],
    ['tag_slug', `tag_slug=${tagged.tags![1]!.slug}`, (e) => tagIds(e).includes(tagged.tags![1]!.id!)],
    ['series_id', `series_id=${series.id}`, (e) => (e.series ?? []).some((s) => s.id === series.id)],
    ['game_id', `game_id=${gameId}`, (e) => (e.markets ?? []).some((m) => m.gameId === gameId)],
    ['created_by', `created_by=${creator}`, (e) => e.createdBy === creator],
    ['event_date', `event_date=${dated.eventDate}T12:00:00Z`, (e) => e.eventDate === dated.eventDate],
    ['event_week', `event_week=${weekly.eventWeek}`, (e) => e.eventWeek === weekly.eventWeek],
    ['featured_order', 'featured_order=true', (e) => typeof e.featuredOrder === 'number'],
    ['recurrence', 'recurrence=monthly', (e) => (e.series ?? []).some((s) => s.recurrence === 'monthly')],
    ['parent_event_id', `parent_event_id=${child.parentEvent}`, (e) => e.parentEvent === child.parentEvent],
    [
      'parent_event_id + include_children',
      `parent_event_id=${child.parentEvent}&include_children=true`,
      (e) => e.parentEvent === child.parentEvent || e.id === child.parentEvent,
    ],
    ['locale is accepted', 'locale=fr', () => true],
    [
      'several filters combine with AND',
      `closed=false&tag_id=${tagA}&volume_min=1000`,
      (e) => e.closed !== true && tagIds(e).includes(tagA!) && (e.volume ?? -1) >= 1000,
    ],
  ]

  it.each(cases)('%s', (_name, qs, pred) => {
    const expected = expectedIds(pred)
    expect(collectIds(qs)).toEqual(expected)
  })

  it('the filter fixtures are not vacuous', () => {
    for (const [name, qs, pred] of cases) {
      const n = expectedIds(pred).length
      if (name === 'locale is accepted') continue
      expect(n, `${name} (${qs}) matches something`).toBeGreaterThan(0)
      expect(n, `${name} (${qs}) excludes something`).toBeLessThan(store.size)
    }
  })

  it('related_tags widens a tag to the tags sharing its topic', () => {
    const tag = tagA!
    const related = store.relatedTagIds(tag)
    expect(related.length).toBeGreaterThan(0)
    const group = new Set([tag, ...related])
    expect(collectIds(`tag_id=${tag}&related_tags=true`)).toEqual(
      expectedIds((e) => tagIds(e).some((t) => group.has(t))),
    )
  })

  it('an unknown tag_slug matches nothing', () => {
    expect(collectIds('tag_slug=no-such-tag')).toEqual([])
  })
})

describe('GET /events/keyset core: relations', () => {
  it('listing form: no liquidityAmm, no AMM market fields but marketMakerAddress; clobRewards and fee_schedule on markets', () => {
    const e = call('limit=1').body.events[0]!
    expect(e).not.toHaveProperty('liquidityAmm')
    const m = (e.markets as Record<string, unknown>[])[0]!
    // The official client requires marketMakerAddress on listing markets too (test/mock/officialClient.test.ts).
    expect(m.marketMakerAddress).toEqual(expect.any(String))
    for (const k of ['ammType', 'fpmmLive', 'volumeAmm', 'liquidityAmm', 'volume24hrAmm']) {
      expect(m).not.toHaveProperty(k)
    }
    expect(m).toHaveProperty('clobRewards')
    expect(m).not.toHaveProperty('clob_rewards')
    expect(m).toHaveProperty('fee_schedule')
    expect(m.feeSchedule).toEqual({
      exponent: expect.any(Number),
      rate: expect.any(Number),
      takerOnly: expect.any(Boolean),
      rebateRate: expect.any(Number),
    })
    for (const k of ['series', 'tags', 'markets', 'eventCreators']) expect(e).toHaveProperty(k)
  })

  it('includes chats, templates and best lines only by their flags', () => {
    const withChat = all().find((e) => (e.chats ?? []).length > 0)!
    const withTemplate = all().find((e) => (e.templates ?? []).length > 0)!
    const game = all().find((e) => e.spreadsMainLine != null)!
    const ids = `id=${withChat.id}&id=${withTemplate.id}&id=${game.id}`
    const plain = call(ids).body.events
    for (const e of plain) {
      expect(e).not.toHaveProperty('chats')
      expect(e).not.toHaveProperty('templates')
      expect(e).not.toHaveProperty('bestLines')
      expect(e).not.toHaveProperty('externalPartners')
      for (const s of e.series as Record<string, unknown>[]) expect(s).not.toHaveProperty('chats')
    }
    const full = call(`${ids}&include_chat=true&include_template=true&include_best_lines=true`).body.events
    const find = (id: string) => full.find((e) => e.id === id)!
    expect(find(withChat.id).chats).toEqual(withChat.chats)
    expect(find(withTemplate.id).templates).toEqual(withTemplate.templates)
    expect(find(game.id).bestLines).toEqual(store.getEvent(game.id)!.bestLines)
    expect((find(game.id).bestLines as unknown[]).length).toBeGreaterThan(0)
    expect(find(game.id)).not.toHaveProperty('best_lines')
  })

  it('attaches externalPartners for partner_slug (empty when the event has no link)', () => {
    const linked = store.events().find((s) => (s.partners.espn ?? []).length > 0)!
    const unlinked = store.events().find((s) => !s.partners.espn)!
    const events = call(`id=${linked.event.id}&id=${unlinked.event.id}&partner_slug=espn`).body.events
    expect(events.find((e) => e.id === linked.event.id)!.externalPartners).toEqual(linked.partners.espn)
    expect(events.find((e) => e.id === unlinked.event.id)!.externalPartners).toEqual([])
  })
})

describe('GET /events/keyset core: errors', () => {
  const ok = call('limit=3&order=volume&ascending=false').body.next_cursor!

  it.each([
    ['offset', 'offset=20', 'offset is not allowed on keyset endpoints'],
    ['snake_case order', 'order=start_date', 'order fields are not valid: "start_date"'],
    ['limit 0', 'limit=0', 'limit must be between 1 and 500'],
    ['limit 501', 'limit=501', 'limit must be between 1 and 500'],
    ['overlap', 'tag_id=5&exclude_tag_id=5', 'tag_id overlaps with exclude_tag_id: 5'],
    ['recurrence', 'recurrence=hourly', 'recurrence is invalid: expected one of daily, weekly, monthly'],
    ['garbage cursor', 'after_cursor=not-a-cursor', 'invalid cursor'],
    ['cursor of another order', `after_cursor=${ok}`, 'invalid cursor'],
    ['cursor of another direction', `after_cursor=${ok}&order=volume`, 'invalid cursor'],
    [
      'tampered cursor',
      `after_cursor=${ok.replace(/^./, (c) => (c === 'e' ? 'f' : 'e'))}&order=volume&ascending=false`,
      'invalid cursor',
    ],
  ])('422 validation error: %s', (_name, qs, message) => {
    expect(call(qs)).toEqual({ status: 422, body: { type: 'validation error', error: message } })
  })

  it('accepts its own cursor for the same order and direction', () => {
    expect(call(`after_cursor=${ok}&order=volume&ascending=false&limit=3`).status).toBe(200)
  })
})
