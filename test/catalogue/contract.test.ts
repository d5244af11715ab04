/**
 * Contract tests: the real catalogue client against the mock catalogue over loopback HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CatalogueClient,
  createCatalogueClient,
} from '../../src/catalogue/client/createCatalogueClient.ts'
import type { ListEventsKeysetParams } from '../../src/catalogue/client/listEventsKeyset.ts'
import type { EventDetail } from '../../src/catalogue/schemas/event.ts'
import { RequestRejectedError } from '../../src/errors.ts'
import { NO_RETRY } from '../../src/http/callJson.ts'
import { createHttpTransport, type HttpTransport } from '../../src/http/transport.ts'
import {
  type CatalogueHandlerOptions,
  createCatalogueHandler,
} from '../../src/mock/catalogue/catalogueHandler.ts'
import { type CatalogueStore, createCatalogueStore } from '../../src/mock/catalogue/catalogueStore.ts'
import { type RunningMockServer, startMockHttpServer } from '../../src/mock/httpServer.ts'
import { seededRandom } from '../../src/random.ts'
import { instantClock } from './client/fakeCatalogue.ts'

interface Harness {
  store: CatalogueStore
  server: RunningMockServer
  transport: HttpTransport
  client: CatalogueClient
  close(): Promise<void>
}

async function harness(store: CatalogueStore, options: CatalogueHandlerOptions = {}): Promise<Harness> {
  const server = await startMockHttpServer({ handler: createCatalogueHandler(store, options) })
  const transport = createHttpTransport({ baseUrl: server.url })
  const client = createCatalogueClient({ transport, clock: instantClock, random: seededRandom(1) })
  return {
    store,
    server,
    transport,
    client,
    close: async () => {
      await transport.close()
      await server.close()
    },
  }
}

const numeric = (a: string, b: string): number => Number(a) - Number(b)
const tagIds = (e: EventDetail): string[] => (e.tags ?? []).flatMap((t) => (t.id ? [t.id] : []))

/** Pages through a listing with the client; returns ids in the order served and the page count. */
async function collect(
  client: CatalogueClient,
  params: ListEventsKeysetParams,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = []
  let pages = 0
  for await (const page of client.paginateEvents(params)) {
    pages++
    expect(page.events.length).toBeLessThanOrEqual(params.limit ?? 20)
    ids.push(...page.events.map((e) => e.id))
  }
  return { ids, pages }
}

describe('catalogue client ⇄ mock catalogue over loopback HTTP', () => {
  // A fifth of the default size: every scenario still walks its whole matching set, and the suite
  // stays inside its time budget (client-side schema parsing, ~0.5 ms per event, dominates).
  const EVENT_COUNT = 600
  let h: Harness
  beforeAll(async () => {
    h = await harness(createCatalogueStore({ seed: 2026, eventCount: EVENT_COUNT }))
  })
  afterAll(async () => {
    await h.close()
  })

  it('pages through the whole catalogue by id: complete, ordered, unique', async () => {
    const { ids, pages } = await collect(h.client, { limit: 150 })
    const expected = h.store
      .events()
      .map((s) => s.event.id)
      .sort(numeric)
    expect(ids).toEqual(expected)
    expect(new Set(ids).size).toBe(EVENT_COUNT)
    // 600 = 4 full pages; the 4th still carries a cursor, so a 5th (empty) page ends the listing.
    expect(pages).toBe(5)
  })

  it('closed=false ordered by volume descending', async () => {
    const { ids } = await collect(h.client, {
      closed: false,
      order: ['volume'],
      ascending: false,
      limit: 100,
    })
    const expected = h.store
      .events()
      .map((s) => s.event)
      .filter((e) => e.closed !== true)
      .sort((a, b) => (b.volume ?? 0) - (a.volume ?? 0) || numeric(b.id, a.id))
      .map((e) => e.id)
    expect(expected.length).toBeGreaterThan(50)
    expect(ids).toEqual(expected)
  })

  it('a tag filter ordered by startDate', async () => {
    const crypto = h.store.tagIdBySlug('crypto')!
    const { ids } = await collect(h.client, {
      tagIds: [crypto],
      order: 'startDate',
      limit: 50,
      includeChat: true,
    })
    const expected = h.store
      .events()
      .map((s) => s.event)
      .filter((e) => tagIds(e).includes(crypto))
      .sort((a, b) => Date.parse(a.startDate ?? '') - Date.parse(b.startDate ?? '') || numeric(a.id, b.id))
      .map((e) => e.id)
    expect(expected.length).toBeGreaterThan(50)
    expect(ids).toEqual(expected)
  })

  it('tag_slug + recurrence, excluding a tag, ordered by two fields', async () => {
    const exclude = h.store.tagIdBySlug('xrp')!
    const { ids } = await collect(h.client, {
      tagSlug: 'crypto-prices',
      recurrence: 'daily',
      excludeTagIds: [exclude],
      order: ['closed', 'volume24hr'],
      ascending: false,
      limit: 15,
    })
    const cryptoPrices = h.store.tagIdBySlug('crypto-prices')!
    const expected = h.store
      .events()
      .map((s) => s.event)
      .filter(
        (e) =>
          tagIds(e).includes(cryptoPrices) &&
          !tagIds(e).includes(exclude) &&
          (e.series ?? []).some((s) => s.recurrence === 'daily'),
      )
      .sort(
        (a, b) =>
          Number(b.closed === true) - Number(a.closed === true) ||
          (b.volume24hr ?? 0) - (a.volume24hr ?? 0) ||
          numeric(b.id, a.id),
      )
      .map((e) => e.id)
    expect(expected.length).toBeGreaterThan(20)
    expect(ids).toEqual(expected)
  })

  it('getEventBySlug and getEventTags round-trip', async () => {
    const stored = h.store.events()[17]!
    const event = await h.client.getEventBySlug(stored.event.slug!)
    expect(event.id).toBe(stored.event.id)
    expect(event.liquidityAmm).toBe(stored.event.liquidityAmm)
    expect(event.markets?.map((m) => m.conditionId)).toEqual(stored.event.markets?.map((m) => m.conditionId))
    expect(await h.client.getEventTags(stored.event.id)).toEqual(stored.event.tags)
  })

  it('reads the relations under the official keys: externalPartners, bestLines, clobRewards', async () => {
    const game = h.store
      .events()
      .find((s) => (s.bestLines ?? []).length > 0 && (s.partners.espn ?? []).length > 0)!
    const page = await h.client.listEventsKeyset({
      ids: [game.event.id],
      partnerSlug: 'espn',
      includeBestLines: true,
    })
    const e = page.events[0]!
    expect(e.externalPartners).toEqual(game.partners.espn)
    expect(e.externalPartners?.[0]?.partner?.slug).toBe('espn')
    expect(e.bestLines).toEqual(game.bestLines)
    const stored = game.event.markets ?? []
    expect(e.markets?.map((m) => m.clobRewards)).toEqual(stored.map((m) => m.clobRewards))
    const detail = await h.client.getEventBySlug(game.event.slug!, { includeBestLines: true })
    expect(detail.bestLines).toEqual(game.bestLines)
    expect(detail.markets?.every((m) => m.clobRewards === undefined)).toBe(true)
  })

  it('server errors arrive as typed errors with status and type', async () => {
    const page = await h.client.listEventsKeyset({ limit: 2, order: 'volume' })
    const tampered = `${page.nextCursor}x`
    await expect(
      h.client.listEventsKeyset({ limit: 2, order: 'volume', afterCursor: tampered }),
    ).rejects.toMatchObject({
      name: 'RequestRejectedError',
      status: 422,
      code: 'validation error',
      serverMessage: 'invalid cursor',
    })
    // A cursor issued for another order is refused too.
    await expect(
      h.client.listEventsKeyset({ limit: 2, afterCursor: page.nextCursor! }),
    ).rejects.toMatchObject({
      status: 422,
    })
    await expect(h.client.getEventBySlug('no-such-slug')).rejects.toMatchObject({
      status: 404,
      code: 'not found',
    })
  })
})

describe('mock switches and faults, through the client', () => {
  it('503 when keyset paging is off; 500 through the fault hook', async () => {
    const store = createCatalogueStore({ seed: 1, eventCount: 20 })
    const off = await harness(store, { keysetEnabled: false })
    const faulty = await harness(store, { faults: { shouldFail: () => 500 } })
    try {
      const e503 = await off.client.listEventsKeyset({}, { retry: NO_RETRY }).catch((e: unknown) => e)
      expect(e503).toBeInstanceOf(RequestRejectedError)
      expect(e503).toMatchObject({
        status: 503,
        code: 'service unavailable',
        serverMessage: 'keyset pagination is not configured',
      })
      const e500 = await faulty.client
        .getEventTags(store.events()[0]!.event.id, { retry: NO_RETRY })
        .catch((e: unknown) => e)
      expect(e500).toMatchObject({ status: 500, code: 'internal error' })
    } finally {
      await off.close()
      await faulty.close()
    }
  })
})

describe('paging while the store changes', () => {
  it('by id: every event that existed throughout is served exactly once', async () => {
    const h = await harness(createCatalogueStore({ seed: 77, eventCount: 300 }))
    try {
      const { store, client } = h
      const initial = new Set(store.events().map((s) => s.event.id))
      const sorted = [...initial].sort(numeric)
      const served: string[] = []
      const titles = new Map<string, string>()
      const insertedBefore: string[] = []
      const insertedAfter: string[] = []
      const removed: string[] = []
      let updated = ''
      let pages = 0
      for await (const page of client.paginateEvents({ limit: 25 })) {
        pages++
        for (const e of page.events) {
          served.push(e.id)
          titles.set(e.id, e.title ?? '')
        }
        const last = page.events.at(-1)?.id
        if (pages === 2 && last) {
          const cursorAt = sorted.indexOf(last)
          // An id below the cursor (a gap in the served range) and one above everything.
          const gapBelow = findGap(sorted.slice(0, cursorAt + 1), store)
          insertedBefore.push(store.addEvent({ id: gapBelow, title: 'inserted before the cursor' }).id)
          insertedAfter.push(store.addEvent({ title: 'inserted after the cursor' }).id)
          // An id in a gap further ahead, inside the not-yet-served range.
          const gapAhead = findGap(sorted.slice(cursorAt + 40), store)
          insertedAfter.push(store.addEvent({ id: gapAhead, title: 'inserted ahead' }).id)
          updated = sorted[cursorAt + 10]!
          store.updateEvent(updated, { title: 'updated between pages', volume: 1 })
          removed.push(sorted[cursorAt + 20]!)
          store.removeEvent(removed[0]!)
        }
        if (pages === 5 && last) {
          // The event served last gets a new title: already served, so it must not come back.
          store.updateEvent(last, { title: 'updated after being served' })
        }
      }
      const counts = new Map<string, number>()
      for (const id of served) counts.set(id, (counts.get(id) ?? 0) + 1)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      expect(served).toEqual([...served].sort(numeric))
      for (const id of initial) if (!removed.includes(id)) expect(counts.get(id), `event ${id}`).toBe(1)
      for (const id of removed) expect(counts.has(id)).toBe(false)
      for (const id of insertedBefore) expect(counts.has(id)).toBe(false)
      for (const id of insertedAfter) expect(counts.get(id)).toBe(1)
      expect(titles.get(updated)).toBe('updated between pages')
    } finally {
      await h.close()
    }
  })

  it('by volume descending: inserts on both sides of the cursor and a non-key update', async () => {
    const h = await harness(createCatalogueStore({ seed: 78, eventCount: 300 }))
    try {
      const { store, client } = h
      const initial = new Set(store.events().map((s) => s.event.id))
      const served: string[] = []
      let before = ''
      let after = ''
      let updated = ''
      let pages = 0
      for await (const page of client.paginateEvents({ order: ['volume'], ascending: false, limit: 30 })) {
        pages++
        served.push(...page.events.map((e) => e.id))
        if (pages === 3) {
          const lastVolume = page.events.at(-1)?.volume ?? 0
          before = store.addEvent({ volume: lastVolume * 10 + 1 }).id // sorts before the cursor
          after = store.addEvent({ volume: lastVolume / 2 }).id // sorts after it
          const ahead = store
            .events()
            .find((s) => !served.includes(s.event.id) && s.event.id !== after && initial.has(s.event.id))!
          updated = ahead.event.id
          store.updateEvent(updated, { title: 'renamed mid-listing' }) // volume (the key) unchanged
        }
      }
      expect(new Set(served).size).toBe(served.length)
      for (const id of initial) expect(served.includes(id), `event ${id}`).toBe(true)
      expect(served.includes(before)).toBe(false)
      expect(served.includes(after)).toBe(true)
      const volumes = served.map((id) => store.getEvent(id)?.event.volume ?? 0)
      expect(volumes).toEqual([...volumes].sort((a, b) => b - a))
      expect(store.getEvent(updated)?.event.title).toBe('renamed mid-listing')
    } finally {
      await h.close()
    }
  })
})

/** An unused id strictly between two consecutive ids of `ids` (sorted). */
function findGap(ids: readonly string[], store: CatalogueStore): string {
  for (let i = 1; i < ids.length; i++) {
    const lo = Number(ids[i - 1])
    const hi = Number(ids[i])
    for (let c = lo + 1; c < hi; c++) if (!store.getEvent(String(c))) return String(c)
  }
  throw new Error('no gap between ids')
}

describe('determinism', () => {
  it('same seed + same requests → byte-identical bodies (two independent servers)', async () => {
    const a = await harness(createCatalogueStore({ seed: 9, eventCount: 150 }))
    const b = await harness(createCatalogueStore({ seed: 9, eventCount: 150 }))
    try {
      const script = async (t: HttpTransport): Promise<string[]> => {
        const out: string[] = []
        const get = async (path: string, qs = ''): Promise<string> => {
          const res = await t.request({ method: 'GET', path, query: new URLSearchParams(qs) })
          out.push(`${res.status} ${res.text}`)
          return res.text
        }
        let cursor = ''
        for (let i = 0; i < 4; i++) {
          const text = await get(
            '/events/keyset',
            `limit=40&order=volume24hr,startDate&ascending=false&include_chat=true&include_template=true&include_best_lines=true&partner_slug=espn${cursor ? `&after_cursor=${cursor}` : ''}`,
          )
          cursor = (JSON.parse(text) as { next_cursor?: string }).next_cursor ?? ''
        }
        const first = JSON.parse(await get('/events/keyset', 'limit=1')) as {
          events: { id: string; slug: string }[]
        }
        await get(`/events/slug/${first.events[0]!.slug}`, 'include_best_lines=true')
        await get(`/events/${first.events[0]!.id}/tags`)
        await get('/events/keyset', 'offset=5')
        return out
      }
      const left = await script(a.transport)
      const right = await script(b.transport)
      expect(left.length).toBe(8)
      expect(left).toEqual(right)
      expect(left.join('\n')).toBe(right.join('\n'))
    } finally {
      await a.close()
      await b.close()
    }
  })
})
