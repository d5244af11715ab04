/**
 * Keyset paging over GET /events/keyset: follows `next_cursor` as `after_cursor` until it is absent.
 * Pages are yielded one at a time and never accumulated, so memory stays bounded by one page.
 */
import { TransportError, UnexpectedResponseError } from '../../errors.ts'
import type { CallContext } from '../../http/callJson.ts'
import type { Event } from '../schemas/event.ts'
import type { CatalogueCallOptions } from './catalogueCall.ts'
import {
  EVENTS_KEYSET_PATH,
  type EventsKeysetPage,
  type ListEventsKeysetParams,
  listEventsKeyset,
  toKeysetQuery,
} from './listEventsKeyset.ts'

export interface PaginateEventsOptions extends CatalogueCallOptions {
  /** Stop after this many pages (requests). The last yielded page's `nextCursor` resumes from there. */
  maxPages?: number | undefined
}

/**
 * Yields every page of a listing, starting at `params.afterCursor` (or the beginning). The last page
 * may be empty: the server sends a cursor whenever a page is full.
 * @throws {InputValidationError} bad params, before any request.
 * @throws {TransportError} aborted through `opts.signal` (reason "aborted"), or no answer.
 * @throws {RequestRejectedError} / {UnexpectedResponseError} as `listEventsKeyset`; also when the
 *   server hands back the cursor it was just given (paging would never end).
 */
export async function* paginateEvents(
  ctx: CallContext,
  params: ListEventsKeysetParams = {},
  opts: PaginateEventsOptions = {},
): AsyncGenerator<EventsKeysetPage, void, undefined> {
  toKeysetQuery(params) // validate up front, so a bad input fails on the first next() with no request
  const maxPages = opts.maxPages ?? Number.POSITIVE_INFINITY
  let cursor = params.afterCursor
  for (let pages = 0; pages < maxPages; pages++) {
    if (opts.signal?.aborted) {
      throw new TransportError(EVENTS_KEYSET_PATH, 'aborted', {
        cause: opts.signal.reason,
        maybeDelivered: false,
      })
    }
    const page = await listEventsKeyset(
      ctx,
      { ...params, afterCursor: cursor },
      { signal: opts.signal, retry: opts.retry },
    )
    yield page
    if (page.nextCursor === undefined) return
    if (page.nextCursor === cursor) {
      throw new UnexpectedResponseError(EVENTS_KEYSET_PATH, ['next_cursor: did not advance'])
    }
    cursor = page.nextCursor
  }
}

/** Yields the events of every page in order (see `paginateEvents`). */
export async function* iterateEvents(
  ctx: CallContext,
  params: ListEventsKeysetParams = {},
  opts: PaginateEventsOptions = {},
): AsyncGenerator<Event, void, undefined> {
  for await (const page of paginateEvents(ctx, params, opts)) yield* page.events
}
