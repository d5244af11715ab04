/**
 * GET /events/{id}/tags: the tags of one event.
 *
 * @see spec "Catalogue: GET /events/{id}/tags"
 */
import { type CallContext, callJson } from '../../http/callJson.ts'
import type { Tag } from '../schemas/resources.ts'
import { EventTagsResponseSchema } from '../schemas/responses.ts'
import { type CatalogueCallOptions, parseCatalogueErrorBody, parseInput } from './catalogueCall.ts'
import { IntegerIdParam } from './listEventsKeyset.ts'

/** The request path for event `id` (an integer id, already canonical). */
export function eventTagsPath(id: string): string {
  return `/events/${encodeURIComponent(id)}/tags`
}

/**
 * Fetches the tags of event `id` (a non-negative integer, as a number or a decimal string).
 * @throws {InputValidationError} a non-integer id, before any request.
 * @throws {RequestRejectedError} non-2xx (the mock answers 404 "not found" for an unknown event).
 * @throws {UnexpectedResponseError} / {TransportError} as every call.
 */
export async function getEventTags(
  ctx: CallContext,
  id: string | number,
  opts: CatalogueCallOptions = {},
): Promise<Tag[]> {
  const valid = parseInput('getEventTags', IntegerIdParam, id)
  return callJson(ctx, {
    request: { method: 'GET', path: eventTagsPath(valid), signal: opts.signal },
    schema: EventTagsResponseSchema,
    parseErrorBody: parseCatalogueErrorBody,
    retry: opts.retry,
  })
}
