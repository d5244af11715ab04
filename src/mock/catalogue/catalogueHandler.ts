/**
 * The mock catalogue's HTTP handler: routes GET /events/keyset, /events/slug/{slug} and
 * /events/{id}/tags to the pure core over a `CatalogueStore`. Every other path answers 404 and other
 * methods 405, both with the catalogue's `{type, error}` body. Fault injection is a single hook asked
 * once per request.
 */
import type { MockHandler, MockResponse } from '../mockHttp.ts'
import { json } from '../mockHttp.ts'
import {
  catalogueError,
  internalError,
  notFound,
  serviceUnavailable,
  validationError,
} from './catalogueErrors.ts'
import type { CatalogueStore } from './catalogueStore.ts'
import { parseBoolValue } from './eventQuery.ts'
import { listEventsKeysetCore } from './listEventsKeyset.ts'
import { renderDetailEvent } from './renderEvent.ts'
import { compact } from './wireFormat.ts'

export type CatalogueEndpoint = 'listEventsKeyset' | 'getEventBySlug' | 'getEventTags'

export type CatalogueRoute =
  | { endpoint: 'listEventsKeyset' }
  | { endpoint: 'getEventBySlug'; slug: string }
  | { endpoint: 'getEventTags'; id: string }

export interface CatalogueFaults {
  /** Asked once per routed request: 500 or 503 makes that request fail with the spec's body. */
  shouldFail(endpoint: CatalogueEndpoint): 500 | 503 | undefined
}

export interface CatalogueHandlerOptions {
  /** False: GET /events/keyset answers 503 "keyset pagination is not configured". Default true. */
  keysetEnabled?: boolean | undefined
  faults?: CatalogueFaults | undefined
}

/** The catalogue route of `path` (still percent-encoded, as `MockRequest.path` is), if it is one. */
export function matchCatalogue(path: string): CatalogueRoute | undefined {
  const parts = path.split('/')
  if (parts[0] !== '' || parts[1] !== 'events') return undefined
  try {
    if (parts.length === 3 && parts[2] === 'keyset') return { endpoint: 'listEventsKeyset' }
    if (parts.length === 4 && parts[2] === 'slug' && parts[3]) {
      return { endpoint: 'getEventBySlug', slug: decodeURIComponent(parts[3]) }
    }
    if (parts.length === 4 && parts[3] === 'tags' && parts[2]) {
      return { endpoint: 'getEventTags', id: decodeURIComponent(parts[2]) }
    }
  } catch {
    return undefined // malformed percent-encoding
  }
  return undefined
}

/** Reads an optional boolean query param; a string result is the 422 message. */
function optionalBool(q: URLSearchParams, name: string): boolean | undefined | string {
  const v = q.get(name)
  if (v === null || v === '') return undefined
  return parseBoolValue(v) ?? `invalid value for ${name}: expected a boolean`
}

function getEventBySlug(store: CatalogueStore, slug: string, q: URLSearchParams): MockResponse {
  const chat = optionalBool(q, 'include_chat')
  const template = optionalBool(q, 'include_template')
  const bestLines = optionalBool(q, 'include_best_lines')
  for (const v of [chat, template, bestLines]) if (typeof v === 'string') return validationError(v)
  const stored = store.getEventBySlug(slug)
  if (!stored) return notFound(`event not found: ${slug}`)
  // The single-event form carries chats and templates unless a flag explicitly says false.
  return json(
    200,
    renderDetailEvent(stored, {
      chat: chat !== false,
      template: template !== false,
      bestLines: bestLines === true,
    }),
  )
}

function getEventTags(store: CatalogueStore, id: string): MockResponse {
  if (!/^\d+$/.test(id)) return validationError('id must be an integer')
  const stored = store.getEvent(BigInt(id).toString())
  if (!stored) return notFound(`event not found: ${id}`)
  return json(
    200,
    (stored.event.tags ?? []).map((t) => compact(t)),
  )
}

/** The handler for the catalogue routes of `store`. Same store state + same requests → same bytes. */
export function createCatalogueHandler(
  store: CatalogueStore,
  options: CatalogueHandlerOptions = {},
): MockHandler {
  const keysetEnabled = options.keysetEnabled ?? true
  return (req) => {
    const route = matchCatalogue(req.path)
    if (!route) return notFound(`no route for ${req.method} ${req.path}`)
    if (req.method !== 'GET')
      return catalogueError(405, 'method not allowed', `${req.method} is not allowed here`)
    const fault = options.faults?.shouldFail(route.endpoint)
    if (fault === 500) return internalError('database failure (injected)')
    if (fault === 503) return serviceUnavailable('service unavailable (injected)')
    switch (route.endpoint) {
      case 'listEventsKeyset':
        if (!keysetEnabled) return serviceUnavailable('keyset pagination is not configured')
        return listEventsKeysetCore(store, req.query)
      case 'getEventBySlug':
        return getEventBySlug(store, route.slug, req.query)
      case 'getEventTags':
        return getEventTags(store, route.id)
    }
  }
}
