/**
 * GET /events/keyset (listEventsKeyset): one page of events. Params are camelCase and validated before
 * any request, so what the server would answer with 422 fails here as `InputValidationError`.
 * Wire encoding (protocol-notes §e): arrays as repeated keys, booleans `true`/`false`, date-times as ISO
 * strings. `offset` is rejected by the server on this endpoint and is not representable here.
 *
 * @see spec "Catalogue: GET /events/keyset"
 */
import { z } from 'zod'
import { entriesOf } from '../../guards.ts'
import { type CallContext, callJson } from '../../http/callJson.ts'
import { EVENT_ORDER_FIELDS, type Event, type EventOrderField, isEventOrderField } from '../schemas/event.ts'
import { EventsKeysetResponseSchema } from '../schemas/responses.ts'
import { type CatalogueCallOptions, parseCatalogueErrorBody, parseInput } from './catalogueCall.ts'

// ---------------------------------------------------------------------------------------------------
// Params
// ---------------------------------------------------------------------------------------------------

export const KEYSET_LIMIT_MIN = 1
export const KEYSET_LIMIT_MAX = 500
const LIMIT_MESSAGE = `limit must be an integer from ${KEYSET_LIMIT_MIN} to ${KEYSET_LIMIT_MAX}`

/** A non-negative integer id, as a number or a decimal string; normalized to its canonical decimal string. */
export const IntegerIdParam = z
  .union([z.number(), z.string()])
  .refine((v) => (typeof v === 'number' ? Number.isSafeInteger(v) && v >= 0 : /^\d+$/.test(v)), {
    error: 'must be a non-negative integer',
  })
  .transform((v) => BigInt(v).toString())

const IdList = z.array(IntegerIdParam).readonly()
const StringList = z.array(z.string().min(1, { error: 'must not be empty' })).readonly()

/** A `Date` or an ISO 8601 date-time string with a zone (`Z` or an offset); sent as an ISO string. */
export const DateTimeParam = z
  .union([z.date(), z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a zone' })], {
    error: (iss) =>
      iss.input instanceof Date ? 'must be a valid date' : 'must be an ISO 8601 date-time with a zone',
  })
  .transform((v) => (typeof v === 'string' ? v : v.toISOString()))

/**
 * `event_date`: a calendar date (`2026-06-01`, the form the official client sends) or anything
 * `DateTimeParam` takes; sent as given (the venue matches the UTC day).
 */
const EVENT_DATE_MESSAGE = 'must be a calendar date (YYYY-MM-DD) or an ISO 8601 date-time with a zone'
export const EventDateParam = z.union([z.iso.date({ error: EVENT_DATE_MESSAGE }), DateTimeParam], {
  error: (iss) => (iss.input instanceof Date ? 'must be a valid date' : EVENT_DATE_MESSAGE),
})

/** Hint for the common mistake of snake_case order names (the venue answers 422 to them). */
function orderFieldMessage(input: unknown): string {
  const name = String(input)
  const camel = name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
  if (camel !== name && isEventOrderField(camel)) {
    return `order field "${name}" is not valid: use the camelCase Event field name "${camel}"`
  }
  return `order field "${name}" is not a sortable camelCase Event field name`
}

/** The message for a bad `order` value (a field name or a list of them). */
function orderMessage(input: unknown): string {
  if (typeof input === 'string') return orderFieldMessage(input)
  if (Array.isArray(input)) {
    if (input.length === 0) return 'order must name a field'
    const bad = input.find((f) => typeof f !== 'string' || !isEventOrderField(f))
    return orderFieldMessage(bad)
  }
  return 'order must be an Event field name or a list of them'
}

const OrderField = z.enum(EVENT_ORDER_FIELDS)

const FiniteNumber = z.number({ error: 'must be a finite number' })
const Bool = z.boolean({ error: 'must be a boolean' })

export const ListEventsKeysetParamsSchema = z
  .strictObject(
    {
      /** Page size, 1 to 500 (server default 20). */
      limit: z
        .number()
        .int({ error: LIMIT_MESSAGE })
        .min(KEYSET_LIMIT_MIN, { error: LIMIT_MESSAGE })
        .max(KEYSET_LIMIT_MAX, { error: LIMIT_MESSAGE })
        .optional(),
      /** camelCase Event fields to order by (sent comma-separated); the server breaks ties by id. */
      order: z
        .union([OrderField, z.array(OrderField).min(1, { error: 'order must name a field' }).readonly()], {
          error: (iss) => orderMessage(iss.input),
        })
        .transform((v): readonly EventOrderField[] => (typeof v === 'string' ? [v] : v))
        .optional(),
      /** Default true on the server; only meaningful with `order`. */
      ascending: Bool.optional(),
      /** The previous page's `nextCursor` (wire: after_cursor). */
      afterCursor: z.string().min(1, { error: 'afterCursor must not be empty' }).optional(),
      /** Event ids (wire: id). */
      ids: IdList.optional(),
      /** Event slugs (wire: slug). */
      slugs: StringList.optional(),
      closed: Bool.optional(),
      live: Bool.optional(),
      featured: Bool.optional(),
      cyom: Bool.optional(),
      /** Case-insensitive substring of the title. */
      titleSearch: z.string().optional(),
      liquidityMin: FiniteNumber.optional(),
      liquidityMax: FiniteNumber.optional(),
      volumeMin: FiniteNumber.optional(),
      volumeMax: FiniteNumber.optional(),
      startDateMin: DateTimeParam.optional(),
      startDateMax: DateTimeParam.optional(),
      endDateMin: DateTimeParam.optional(),
      endDateMax: DateTimeParam.optional(),
      startTimeMin: DateTimeParam.optional(),
      startTimeMax: DateTimeParam.optional(),
      /** Wire: tag_id. Must not overlap `excludeTagIds`. */
      tagIds: IdList.optional(),
      tagSlug: z.string().min(1, { error: 'tagSlug must not be empty' }).optional(),
      /** Wire: exclude_tag_id. */
      excludeTagIds: IdList.optional(),
      /** Also match tags related to the requested ones. */
      relatedTags: Bool.optional(),
      /** How several tagIds combine. */
      tagMatch: z.enum(['any', 'all'], { error: 'tagMatch must be "any" or "all"' }).optional(),
      /** Wire: series_id. */
      seriesIds: IdList.optional(),
      /** Wire: game_id. */
      gameIds: IdList.optional(),
      eventDate: EventDateParam.optional(),
      eventWeek: z.number().int({ error: 'eventWeek must be an integer' }).optional(),
      featuredOrder: Bool.optional(),
      /** Recurrence of the event's series. */
      recurrence: z
        .enum(['daily', 'weekly', 'monthly'], { error: 'recurrence must be "daily", "weekly" or "monthly"' })
        .optional(),
      /** Wire: created_by. */
      createdBy: StringList.optional(),
      parentEventId: IntegerIdParam.optional(),
      includeChildren: Bool.optional(),
      /** Attaches `external_partners` for this partner to the returned events. */
      partnerSlug: z.string().min(1, { error: 'partnerSlug must not be empty' }).optional(),
      includeChat: Bool.optional(),
      includeTemplate: Bool.optional(),
      includeBestLines: Bool.optional(),
      locale: z.string().min(1, { error: 'locale must not be empty' }).optional(),
    },
    {
      error: (iss) => {
        if (iss.code !== 'unrecognized_keys') return undefined
        return iss.keys.includes('offset')
          ? 'offset is not allowed on keyset endpoints: page with afterCursor'
          : `unknown parameter(s): ${iss.keys.join(', ')}`
      },
    },
  )
  .superRefine((p, ctx) => {
    const excluded = new Set(p.excludeTagIds ?? [])
    const overlap = (p.tagIds ?? []).filter((t) => excluded.has(t))
    if (overlap.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['excludeTagIds'],
        message: `tagIds and excludeTagIds must not overlap (both contain ${overlap.join(', ')})`,
      })
    }
  })

/** Parameters of `listEventsKeyset`; every field is optional. */
export type ListEventsKeysetParams = z.input<typeof ListEventsKeysetParamsSchema>
type ValidParams = z.output<typeof ListEventsKeysetParamsSchema>

/** camelCase param → wire name, in the order the spec lists them (so query strings are stable). */
const WIRE_NAMES: { readonly [K in keyof ValidParams]-?: string } = {
  limit: 'limit',
  order: 'order',
  ascending: 'ascending',
  afterCursor: 'after_cursor',
  ids: 'id',
  slugs: 'slug',
  closed: 'closed',
  live: 'live',
  featured: 'featured',
  cyom: 'cyom',
  titleSearch: 'title_search',
  liquidityMin: 'liquidity_min',
  liquidityMax: 'liquidity_max',
  volumeMin: 'volume_min',
  volumeMax: 'volume_max',
  startDateMin: 'start_date_min',
  startDateMax: 'start_date_max',
  endDateMin: 'end_date_min',
  endDateMax: 'end_date_max',
  startTimeMin: 'start_time_min',
  startTimeMax: 'start_time_max',
  tagIds: 'tag_id',
  tagSlug: 'tag_slug',
  excludeTagIds: 'exclude_tag_id',
  relatedTags: 'related_tags',
  tagMatch: 'tag_match',
  seriesIds: 'series_id',
  gameIds: 'game_id',
  eventDate: 'event_date',
  eventWeek: 'event_week',
  featuredOrder: 'featured_order',
  recurrence: 'recurrence',
  createdBy: 'created_by',
  parentEventId: 'parent_event_id',
  includeChildren: 'include_children',
  partnerSlug: 'partner_slug',
  includeChat: 'include_chat',
  includeTemplate: 'include_template',
  includeBestLines: 'include_best_lines',
  locale: 'locale',
}

/**
 * Validates `params` and encodes them as the wire query string.
 * @throws {InputValidationError} when the server would reject the params with 422.
 */
export function toKeysetQuery(params: ListEventsKeysetParams): URLSearchParams {
  const p = parseInput('listEventsKeyset', ListEventsKeysetParamsSchema, params)
  const query = new URLSearchParams()
  for (const [key, wire] of entriesOf(WIRE_NAMES)) {
    const value = p[key]
    if (value === undefined) continue
    if (key === 'order') query.append(wire, (p.order ?? []).join(','))
    else if (Array.isArray(value)) for (const v of value) query.append(wire, String(v))
    else query.append(wire, String(value))
  }
  return query
}

// ---------------------------------------------------------------------------------------------------
// Call
// ---------------------------------------------------------------------------------------------------

export const EVENTS_KEYSET_PATH = '/events/keyset'

export interface EventsKeysetPage {
  events: Event[]
  /** Pass as `afterCursor` for the next page; undefined on the last page. */
  nextCursor: string | undefined
}

/**
 * Fetches one page of events.
 * @throws {InputValidationError} bad params, before any request.
 * @throws {RequestRejectedError} non-2xx; `code` is the body's `type` (422 "validation error",
 *   500 "internal error", 503 "service unavailable").
 * @throws {UnexpectedResponseError} a 2xx body that does not match the schema.
 * @throws {TransportError} no answer.
 */
export async function listEventsKeyset(
  ctx: CallContext,
  params: ListEventsKeysetParams = {},
  opts: CatalogueCallOptions = {},
): Promise<EventsKeysetPage> {
  const query = toKeysetQuery(params)
  const body = await callJson(ctx, {
    request: { method: 'GET', path: EVENTS_KEYSET_PATH, query, signal: opts.signal },
    schema: EventsKeysetResponseSchema,
    parseErrorBody: parseCatalogueErrorBody,
    retry: opts.retry,
  })
  return { events: body.events, nextCursor: body.next_cursor ?? undefined }
}
