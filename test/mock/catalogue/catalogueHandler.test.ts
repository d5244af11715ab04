import { describe, expect, it } from 'vitest'
import { EventDetailSchema, MARKET_DETAIL_FIELDS } from '../../../src/catalogue/schemas/event.ts'
import {
  type CatalogueEndpoint,
  createCatalogueHandler,
  matchCatalogue,
} from '../../../src/mock/catalogue/catalogueHandler.ts'
import { createCatalogueStore } from '../../../src/mock/catalogue/catalogueStore.ts'
import type { MockRequest, MockResponse } from '../../../src/mock/mockHttp.ts'

const store = createCatalogueStore({ seed: 5, eventCount: 200 })
const handler = createCatalogueHandler(store)

function request(path: string, query = '', method = 'GET'): MockRequest {
  return { method, path, query: new URLSearchParams(query), headers: {}, body: undefined, clientId: 'test' }
}
async function get(path: string, query = '', h = handler): Promise<MockResponse> {
  return h(request(path, query))
}

describe('matchCatalogue', () => {
  it.each([
    ['/events/keyset', { endpoint: 'listEventsKeyset' }],
    ['/events/slug/abc', { endpoint: 'getEventBySlug', slug: 'abc' }],
    ['/events/slug/a%2Fb%20c', { endpoint: 'getEventBySlug', slug: 'a/b c' }],
    ['/events/123/tags', { endpoint: 'getEventTags', id: '123' }],
    ['/events/abc/tags', { endpoint: 'getEventTags', id: 'abc' }],
  ])('%s', (path, route) => {
    expect(matchCatalogue(path)).toEqual(route)
  })

  it.each([
    '/events',
    '/events/',
    '/events/slug/',
    '/events/slug/a/b',
    '/events/1/tags/x',
    '/markets',
    '/v1/info/fees',
    '/events/slug/%E0%A4%A',
  ])('does not own %s', (path) => {
    expect(matchCatalogue(path)).toBeUndefined()
  })
})

describe('catalogue handler routing', () => {
  it('answers 404 {type, error} for paths it does not own', async () => {
    expect(await get('/events')).toEqual({
      status: 404,
      body: { type: 'not found', error: 'no route for GET /events' },
    })
  })

  it('answers 405 for other methods', async () => {
    const res = await handler(request('/events/keyset', '', 'POST'))
    expect(res).toEqual({
      status: 405,
      body: { type: 'method not allowed', error: 'POST is not allowed here' },
    })
  })

  it('answers 503 "keyset pagination is not configured" when keyset paging is off (other routes still work)', async () => {
    const off = createCatalogueHandler(store, { keysetEnabled: false })
    expect(await get('/events/keyset', '', off)).toEqual({
      status: 503,
      body: { type: 'service unavailable', error: 'keyset pagination is not configured' },
    })
    const slug = store.events()[0]!.event.slug!
    expect((await get(`/events/slug/${slug}`, '', off)).status).toBe(200)
  })

  it('fails the endpoints the fault hook names, with the spec bodies', async () => {
    const asked: CatalogueEndpoint[] = []
    const faulty = createCatalogueHandler(store, {
      faults: {
        shouldFail: (endpoint) => {
          asked.push(endpoint)
          return endpoint === 'listEventsKeyset' ? 500 : endpoint === 'getEventTags' ? 503 : undefined
        },
      },
    })
    expect(await get('/events/keyset', '', faulty)).toEqual({
      status: 500,
      body: { type: 'internal error', error: 'database failure (injected)' },
    })
    expect(await get(`/events/${store.events()[0]!.event.id}/tags`, '', faulty)).toEqual({
      status: 503,
      body: { type: 'service unavailable', error: 'service unavailable (injected)' },
    })
    expect((await get(`/events/slug/${store.events()[0]!.event.slug}`, '', faulty)).status).toBe(200)
    expect(asked).toEqual(['listEventsKeyset', 'getEventTags', 'getEventBySlug'])
  })
})

describe('GET /events/slug/{slug}', () => {
  const stored = store
    .events()
    .find((s) => (s.event.chats ?? []).length > 0 && (s.event.templates ?? []).length > 0)!

  it('returns the single-event form: liquidityAmm, AMM market fields, chats, templates; no listing-only relations', async () => {
    const res = await get(`/events/slug/${encodeURIComponent(stored.event.slug!)}`)
    expect(res.status).toBe(200)
    const body = res.body as Record<string, unknown>
    expect(EventDetailSchema.safeParse(body).success).toBe(true)
    expect(body.liquidityAmm).toEqual(expect.any(Number))
    expect(body.chats).toEqual(stored.event.chats)
    expect(body.templates).toEqual(stored.event.templates)
    for (const m of body.markets as Record<string, unknown>[]) {
      for (const k of [
        ...MARKET_DETAIL_FIELDS.string,
        ...MARKET_DETAIL_FIELDS.boolean,
        ...MARKET_DETAIL_FIELDS.number,
      ]) {
        expect(m).toHaveProperty(k)
      }
      expect(m).not.toHaveProperty('clobRewards')
      expect(m).not.toHaveProperty('clob_rewards')
      expect(m).not.toHaveProperty('fee_schedule')
      expect(m).toHaveProperty('feeSchedule')
    }
    expect(body).not.toHaveProperty('bestLines')
    expect(body).not.toHaveProperty('best_lines')
  })

  it('drops chats/templates only when a flag says false, and adds best lines on request', async () => {
    const body = (
      await get(
        `/events/slug/${stored.event.slug}`,
        'include_chat=false&include_template=0&include_best_lines=true',
      )
    ).body as Record<string, unknown>
    expect(body).not.toHaveProperty('chats')
    expect(body).not.toHaveProperty('templates')
    expect(body.bestLines).toEqual(stored.bestLines ?? [])
  })

  it('404 {type:"not found"} for an unknown slug; 422 for a bad flag', async () => {
    expect(await get('/events/slug/no-such-event')).toEqual({
      status: 404,
      body: { type: 'not found', error: 'event not found: no-such-event' },
    })
    expect(await get(`/events/slug/${stored.event.slug}`, 'include_chat=yes')).toEqual({
      status: 422,
      body: { type: 'validation error', error: 'invalid value for include_chat: expected a boolean' },
    })
  })

  it('finds slugs that need percent-encoding', async () => {
    const e = store.addEvent({ slug: 'odd/slug with spaces?' })
    const res = await get(`/events/slug/${encodeURIComponent('odd/slug with spaces?')}`)
    expect((res.body as { id: string }).id).toBe(e.id)
    store.removeEvent(e.id)
  })
})

describe('GET /events/{id}/tags', () => {
  it('returns the event tags', async () => {
    const stored = store.events()[3]!
    const res = await get(`/events/${stored.event.id}/tags`)
    expect(res).toEqual({ status: 200, body: stored.event.tags })
  })

  it('404 for a missing event, 422 for a non-integer id', async () => {
    expect(await get('/events/1/tags')).toEqual({
      status: 404,
      body: { type: 'not found', error: 'event not found: 1' },
    })
    expect(await get('/events/abc/tags')).toEqual({
      status: 422,
      body: { type: 'validation error', error: 'id must be an integer' },
    })
  })
})
