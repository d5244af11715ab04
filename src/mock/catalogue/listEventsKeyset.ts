/**
 * The core of GET /events/keyset: validate the query, filter the store, sort by (order fields…, id),
 * resume strictly after the cursor's key, and cut a page. The cursor carries the last row's key, not a
 * position, so inserts, updates and removals between pages never shift what comes next (an event
 * whose sort key moves across the cursor is the one case keyset paging cannot see).
 */
import { json, type MockResponse } from '../mockHttp.ts'
import { validationError } from './catalogueErrors.ts'
import type { CatalogueStore } from './catalogueStore.ts'
import { compileEventFilter } from './eventFilter.ts'
import { compareKeys, orderColumns, type SortValue, sortKey, sortKind } from './eventOrder.ts'
import { parseEventQuery } from './eventQuery.ts'
import { decodeCursor, encodeCursor } from './keysetCursor.ts'
import { renderListingEvent } from './renderEvent.ts'

/** What the live venue puts in `$schema` (clients must tolerate it). */
export const KEYSET_RESPONSE_SCHEMA_URL =
  'https://gamma-api.polymarket.com/schemas/EventsKeysetListResponse.json'

export function listEventsKeysetCore(store: CatalogueStore, params: URLSearchParams): MockResponse {
  const parsed = parseEventQuery(params)
  if (!parsed.ok) return validationError(parsed.error)
  const q = parsed.query
  const columns = orderColumns(q.order)
  const kinds = columns.map(sortKind)
  const orderName = columns.join(',')

  let after: readonly SortValue[] | undefined
  if (q.afterCursor !== undefined) {
    const cursor = decodeCursor(store.cursorSecret, q.afterCursor)
    if (
      !cursor ||
      cursor.order !== orderName ||
      cursor.asc !== q.ascending ||
      cursor.keys.length !== columns.length
    ) {
      return validationError('invalid cursor')
    }
    after = cursor.keys
  }

  const matches = compileEventFilter(store, q)
  const rows = store
    .events()
    .filter(matches)
    .map((s) => ({ s, key: sortKey(s.event, columns) }))
    .filter((r) => after === undefined || compareKeys(kinds, r.key, after, q.ascending) > 0)
    .sort((a, b) => compareKeys(kinds, a.key, b.key, q.ascending))
  const page = rows.slice(0, q.limit)

  const includes = {
    chat: q.includeChat,
    template: q.includeTemplate,
    bestLines: q.includeBestLines,
    partnerSlug: q.partnerSlug,
  }
  const body: Record<string, unknown> = {
    $schema: KEYSET_RESPONSE_SCHEMA_URL,
    events: page.map((r) => renderListingEvent(r.s, includes)),
  }
  const last = page[page.length - 1]
  // Full page → cursor (even if nothing follows, as the spec says); short page → the end.
  if (last && page.length === q.limit) {
    body.next_cursor = encodeCursor(store.cursorSecret, {
      order: orderName,
      asc: q.ascending,
      keys: last.key,
    })
  }
  return json(200, body)
}
