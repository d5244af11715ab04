/**
 * The catalogue client object: binds a transport, clock and random source to the endpoint functions.
 * It is a thin delegator; each endpoint lives in its own file and can be called directly with a
 * `CallContext`.
 */
import type { Clock } from '../../clock.ts'
import type { CallContext } from '../../http/callJson.ts'
import type { HttpTransport } from '../../http/transport.ts'
import type { Random } from '../../random.ts'
import type { Event, EventDetail } from '../schemas/event.ts'
import type { Tag } from '../schemas/resources.ts'
import type { CatalogueCallOptions } from './catalogueCall.ts'
import { type GetEventBySlugOptions, getEventBySlug } from './getEventBySlug.ts'
import { getEventTags } from './getEventTags.ts'
import { type EventsKeysetPage, type ListEventsKeysetParams, listEventsKeyset } from './listEventsKeyset.ts'
import { iterateEvents, type PaginateEventsOptions, paginateEvents } from './paginateEvents.ts'

export interface CatalogueClientDeps {
  /** Points at `{catalogue_url}` (the real Gamma origin or the mock). */
  transport: HttpTransport
  /** Drives retry backoff. */
  clock: Clock
  /** Retry jitter. */
  random: Random
}

export interface CatalogueClient {
  listEventsKeyset(params?: ListEventsKeysetParams, opts?: CatalogueCallOptions): Promise<EventsKeysetPage>
  paginateEvents(
    params?: ListEventsKeysetParams,
    opts?: PaginateEventsOptions,
  ): AsyncGenerator<EventsKeysetPage, void, undefined>
  iterateEvents(
    params?: ListEventsKeysetParams,
    opts?: PaginateEventsOptions,
  ): AsyncGenerator<Event, void, undefined>
  getEventBySlug(slug: string, opts?: GetEventBySlugOptions): Promise<EventDetail>
  getEventTags(id: string | number, opts?: CatalogueCallOptions): Promise<Tag[]>
}

export function createCatalogueClient(deps: CatalogueClientDeps): CatalogueClient {
  const ctx: CallContext = { transport: deps.transport, clock: deps.clock, random: () => deps.random.next() }
  return {
    listEventsKeyset: (params, opts) => listEventsKeyset(ctx, params, opts),
    paginateEvents: (params, opts) => paginateEvents(ctx, params, opts),
    iterateEvents: (params, opts) => iterateEvents(ctx, params, opts),
    getEventBySlug: (slug, opts) => getEventBySlug(ctx, slug, opts),
    getEventTags: (id, opts) => getEventTags(ctx, id, opts),
  }
}
