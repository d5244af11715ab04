/**
 * GET /events/slug/{slug}: one event in the single-event form (with `liquidityAmm` and the markets'
 * AMM fields), including its markets, series, categories, collections, tags, creators, chats and
 * templates.
 *
 * @see spec "Catalogue: GET /events/slug/{slug}"
 */
import { z } from 'zod'
import { type CallContext, callJson } from '../../http/callJson.ts'
import { type EventDetail, EventDetailSchema } from '../schemas/event.ts'
import { type CatalogueCallOptions, parseCatalogueErrorBody, parseInput } from './catalogueCall.ts'

export interface GetEventBySlugOptions extends CatalogueCallOptions {
  includeChat?: boolean | undefined
  includeTemplate?: boolean | undefined
  includeBestLines?: boolean | undefined
  locale?: string | undefined
}

const SlugParam = z.string().min(1, { error: 'slug must not be empty' })

/** The request path for `slug` (URL-encoded, so `/` and `?` stay inside the segment). */
export function eventBySlugPath(slug: string): string {
  return `/events/slug/${encodeURIComponent(slug)}`
}

/**
 * Fetches one event by slug.
 * @throws {InputValidationError} empty slug, before any request.
 * @throws {RequestRejectedError} non-2xx (the mock answers 404 "not found" for an unknown slug).
 * @throws {UnexpectedResponseError} / {TransportError} as every call.
 */
export async function getEventBySlug(
  ctx: CallContext,
  slug: string,
  opts: GetEventBySlugOptions = {},
): Promise<EventDetail> {
  const valid = parseInput('getEventBySlug', SlugParam, slug)
  const query = new URLSearchParams()
  if (opts.includeChat !== undefined) query.append('include_chat', String(opts.includeChat))
  if (opts.includeTemplate !== undefined) query.append('include_template', String(opts.includeTemplate))
  if (opts.includeBestLines !== undefined) query.append('include_best_lines', String(opts.includeBestLines))
  if (opts.locale !== undefined) query.append('locale', opts.locale)
  return callJson(ctx, {
    request: { method: 'GET', path: eventBySlugPath(valid), query, signal: opts.signal },
    schema: EventDetailSchema,
    parseErrorBody: parseCatalogueErrorBody,
    retry: opts.retry,
  })
}
