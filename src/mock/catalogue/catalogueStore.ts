/**
 * The mock catalogue's in-memory store: a deterministic catalogue drawn from a seed, with indexes by
 * id and slug, and mutation (add, update, remove) so tests can change it between pages.
 */
import { createHash } from 'node:crypto'
import type { EventDetail } from '../../catalogue/schemas/event.ts'
import { seededRandom } from '../../random.ts'
import { buildUniverse, type CatalogueUniverse } from './catalogueUniverse.ts'
import {
  allocateEventId,
  type EventGenerator,
  generateEvent,
  pickTopic,
  type StoredEvent,
} from './generateEvent.ts'
import { compact } from './wireFormat.ts'

/** The default catalogue "now": fixed, so a seed alone fixes every byte the mock serves. */
export const DEFAULT_CATALOGUE_NOW_MS = Date.UTC(2026, 5, 1)
export const DEFAULT_EVENT_COUNT = 3000

export interface CatalogueStoreOptions {
  seed: number
  /** Number of generated events (default 3000). */
  eventCount?: number | undefined
  /** The instant lifecycle flags (closed, live, ended) are drawn against; Unix ms. */
  nowMs?: number | undefined
}

/** The declared (non-index-signature) keys of a loose object type. */
type DeclaredKeys<T> = keyof {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K]
}

/**
 * Fields to set or replace on an event (shallow); `undefined` removes a field. Declared fields keep
 * their wire types; undeclared ones are allowed (to serve fields the spec does not list).
 */
export type EventPatch = { [K in Exclude<DeclaredKeys<EventDetail>, 'id'>]?: EventDetail[K] | undefined } & {
  [extra: string]: unknown
}

export interface CatalogueStore {
  readonly seed: number
  readonly nowMs: number
  readonly universe: CatalogueUniverse
  /** HMAC key of the keyset cursors, derived from the seed. */
  readonly cursorSecret: Buffer
  readonly size: number
  /** Every event, in insertion order (a snapshot). */
  events(): readonly StoredEvent[]
  getEvent(id: string): StoredEvent | undefined
  getEventBySlug(slug: string): StoredEvent | undefined
  /** Tags that share a topic with `tagId`. */
  relatedTagIds(tagId: string): readonly string[]
  /** The id of the tag with this slug. */
  tagIdBySlug(slug: string): string | undefined
  /**
   * Draws a new event (next id, random topic) and applies `overrides`; `overrides.id` picks the id.
   * @throws {RangeError} when the id or slug is taken.
   */
  addEvent(overrides?: (EventPatch & { id?: string | undefined }) | undefined): EventDetail
  /**
   * Replaces fields of event `id`.
   * @throws {RangeError} when there is no such event or the new slug is taken.
   */
  updateEvent(id: string, patch: EventPatch): EventDetail
  removeEvent(id: string): boolean
}

/** Builds the catalogue for `seed`. Same options → same catalogue. */
export function createCatalogueStore(options: CatalogueStoreOptions): CatalogueStore {
  const seed = options.seed
  const nowMs = options.nowMs ?? DEFAULT_CATALOGUE_NOW_MS
  const count = options.eventCount ?? DEFAULT_EVENT_COUNT
  const rng = seededRandom(seed)
  const universe = buildUniverse(rng, nowMs)
  const gen: EventGenerator = {
    rng,
    nowMs,
    universe,
    nextEventId: 16_000 + rng.int(0, 999),
    nextMarketId: 500_000 + rng.int(0, 9_999),
    nextImageId: 200_000,
    nextChatId: 1,
    slugs: new Set(),
    lastGame: undefined,
  }
  const byId = new Map<string, StoredEvent>()
  const bySlug = new Map<string, string>()
  const tagSlugs = new Map<string, string>()
  for (const t of universe.tags) if (t.slug && t.id) tagSlugs.set(t.slug, t.id)

  const index = (s: StoredEvent): void => {
    byId.set(s.event.id, s)
    if (s.event.slug) bySlug.set(s.event.slug, s.event.id)
  }
  // The events are drawn on the first read, not at construction: a dry run whose strategies read no
  // catalogue never pays for them (3,000 events: about a CPU-second of the bot's start). The universe
  // is drawn first either way, so the same seed gives the same catalogue.
  let drawn = false
  const store = (): Map<string, StoredEvent> => {
    if (!drawn) {
      drawn = true
      for (let i = 0; i < count; i++) index(generateEvent(gen, pickTopic(gen), allocateEventId(gen)))
    }
    return byId
  }

  const reslug = (
    id: string,
    oldSlug: string | null | undefined,
    newSlug: string | null | undefined,
  ): void => {
    if (oldSlug === newSlug) return
    if (newSlug && bySlug.has(newSlug)) throw new RangeError(`slug ${newSlug} is taken`)
    if (oldSlug) {
      bySlug.delete(oldSlug)
      gen.slugs.delete(oldSlug)
    }
    if (newSlug) {
      bySlug.set(newSlug, id)
      gen.slugs.add(newSlug)
    }
  }

  return {
    seed,
    nowMs,
    universe,
    cursorSecret: createHash('sha256').update(`perpbot-mock-catalogue-cursor:${seed}`).digest(),
    get size() {
      return store().size
    },
    events: () => [...store().values()],
    getEvent: (id) => store().get(id),
    getEventBySlug: (slug) => {
      const events = store()
      const id = bySlug.get(slug)
      return id === undefined ? undefined : events.get(id)
    },
    relatedTagIds: (tagId) => universe.relatedTagIds.get(tagId) ?? [],
    tagIdBySlug: (slug) => tagSlugs.get(slug),
    addEvent(overrides = {}) {
      const { id: wantedId, ...patch } = overrides
      store()
      if (wantedId !== undefined) {
        if (!/^\d+$/.test(wantedId))
          throw new RangeError(`event id must be a decimal integer, got ${wantedId}`)
        if (byId.has(wantedId)) throw new RangeError(`event ${wantedId} exists`)
        if (Number(wantedId) > gen.nextEventId) gen.nextEventId = Number(wantedId)
      }
      const id = wantedId ?? allocateEventId(gen)
      const drawn = generateEvent(gen, pickTopic(gen), id)
      const event = compact({ ...drawn.event, ...patch, id })
      gen.slugs.delete(drawn.event.slug ?? '')
      if (event.slug && (bySlug.has(event.slug) || gen.slugs.has(event.slug))) {
        throw new RangeError(`slug ${event.slug} is taken`)
      }
      if (event.slug) gen.slugs.add(event.slug)
      index({ ...drawn, event })
      return event
    },
    updateEvent(id, patch) {
      const stored = store().get(id)
      if (!stored) throw new RangeError(`no event ${id}`)
      const event = compact({ ...stored.event, ...patch, id })
      reslug(id, stored.event.slug, event.slug)
      byId.set(id, { ...stored, event })
      return event
    },
    removeEvent(id) {
      const stored = store().get(id)
      if (!stored) return false
      reslug(id, stored.event.slug, undefined)
      byId.delete(id)
      return true
    },
  }
}
