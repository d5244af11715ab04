/**
 * Parses and validates the query string of GET /events/keyset into an `EventQuery`, or the 422
 * message the venue would send. Wire rules: array params as repeated keys (comma-separated values are
 * split too), booleans as Go's strconv.ParseBool spellings, date-times as RFC 3339, empty values treated
 * as absent, unknown params ignored. Pure: no store access.
 */
import { type EventOrderField, isEventOrderField } from '../../catalogue/schemas/event.ts'
import { isOneOf } from '../../guards.ts'

export const LIMIT_MIN = 1
export const LIMIT_MAX = 500
export const LIMIT_DEFAULT = 20

export type TagMatch = 'any' | 'all'
export type Recurrence = 'daily' | 'weekly' | 'monthly'

export interface EventQuery {
  limit: number
  /** Undefined: the default order (id ascending). */
  order: readonly EventOrderField[] | undefined
  ascending: boolean
  afterCursor: string | undefined
  /** Canonical decimal strings. */
  ids: readonly string[] | undefined
  slugs: readonly string[] | undefined
  closed: boolean | undefined
  live: boolean | undefined
  featured: boolean | undefined
  cyom: boolean | undefined
  titleSearch: string | undefined
  liquidityMin: number | undefined
  liquidityMax: number | undefined
  volumeMin: number | undefined
  volumeMax: number | undefined
  /** Unix ms. */
  startDateMin: number | undefined
  startDateMax: number | undefined
  endDateMin: number | undefined
  endDateMax: number | undefined
  startTimeMin: number | undefined
  startTimeMax: number | undefined
  tagIds: readonly string[] | undefined
  tagSlug: string | undefined
  excludeTagIds: readonly string[] | undefined
  relatedTags: boolean
  tagMatch: TagMatch
  seriesIds: readonly string[] | undefined
  gameIds: readonly string[] | undefined
  /** UTC calendar date `YYYY-MM-DD` of the event_date param. */
  eventDate: string | undefined
  eventWeek: number | undefined
  featuredOrder: boolean
  recurrence: Recurrence | undefined
  createdBy: readonly string[] | undefined
  parentEventId: string | undefined
  includeChildren: boolean
  partnerSlug: string | undefined
  includeChat: boolean
  includeTemplate: boolean
  includeBestLines: boolean
  locale: string | undefined
}

export type ParsedQuery = { ok: true; query: EventQuery } | { ok: false; error: string }

/** Thrown inside the parser only; becomes `{ ok: false }`. */
class BadParam extends Error {}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False'])
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const INTEGER = /^[+-]?\d+$/
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

function scalar(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name)
  return v === null || v === '' ? undefined : v
}

function list(q: URLSearchParams, name: string): string[] | undefined {
  const values = q
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')
  return values.length > 0 ? values : undefined
}

/** A boolean query value in Go's strconv.ParseBool spellings; undefined when it is none of them. */
export function parseBoolValue(v: string): boolean | undefined {
  return TRUE.has(v) ? true : FALSE.has(v) ? false : undefined
}

function bool(q: URLSearchParams, name: string): boolean | undefined {
  const v = scalar(q, name)
  if (v === undefined) return undefined
  const b = parseBoolValue(v)
  if (b === undefined) throw new BadParam(`invalid value for ${name}: expected a boolean`)
  return b
}

function integer(q: URLSearchParams, name: string): number | undefined {
  const v = scalar(q, name)
  if (v === undefined) return undefined
  const n = Number(v)
  if (!INTEGER.test(v) || !Number.isSafeInteger(n))
    throw new BadParam(`invalid value for ${name}: expected an integer`)
  return n
}

function idValue(name: string, v: string): string {
  if (!/^\+?\d+$/.test(v)) throw new BadParam(`invalid value for ${name}: expected an integer`)
  return BigInt(v).toString()
}

function idList(q: URLSearchParams, name: string): string[] | undefined {
  return list(q, name)?.map((v) => idValue(name, v))
}

function number(q: URLSearchParams, name: string): number | undefined {
  const v = scalar(q, name)
  if (v === undefined) return undefined
  const n = Number(v)
  if (!NUMBER.test(v) || !Number.isFinite(n))
    throw new BadParam(`invalid value for ${name}: expected a number`)
  return n
}

function dateTime(q: URLSearchParams, name: string): number | undefined {
  const v = scalar(q, name)
  if (v === undefined) return undefined
  const ms = Date.parse(v)
  if (!RFC3339.test(v) || Number.isNaN(ms)) {
    throw new BadParam(`invalid value for ${name}: expected an RFC 3339 date-time`)
  }
  return ms
}

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/

/** A day as `YYYY-MM-DD`: a calendar date as sent (the official client's form), or a date-time's UTC day. */
function calendarDay(q: URLSearchParams, name: string): string | undefined {
  const v = scalar(q, name)
  if (v !== undefined && CALENDAR_DATE.test(v)) {
    if (Number.isNaN(Date.parse(`${v}T00:00:00Z`))) {
      throw new BadParam(`invalid value for ${name}: expected a calendar date or an RFC 3339 date-time`)
    }
    return v
  }
  const ms = dateTime(q, name)
  return ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10)
}

const TAG_MATCHES = ['any', 'all'] as const
const RECURRENCES = ['daily', 'weekly', 'monthly'] as const

function oneOf<const T extends readonly string[]>(
  q: URLSearchParams,
  name: string,
  allowed: T,
): T[number] | undefined {
  const v = scalar(q, name)
  if (v === undefined) return undefined
  if (isOneOf(allowed, v)) return v
  throw new BadParam(`${name} is invalid: expected one of ${allowed.join(', ')}`)
}

function orderFields(q: URLSearchParams): EventOrderField[] | undefined {
  const raw = scalar(q, 'order')
  if (raw === undefined) return undefined
  const fields = raw.split(',').map((f) => f.trim())
  const valid = fields.filter(isEventOrderField)
  const bad = fields.filter((f) => !isEventOrderField(f))
  if (bad.length > 0) throw new BadParam(`order fields are not valid: ${bad.map((f) => `"${f}"`).join(', ')}`)
  return valid
}

/** Validates the listing query. `offset` (any value) is the first thing rejected. */
export function parseEventQuery(q: URLSearchParams): ParsedQuery {
  if (q.has('offset')) return { ok: false, error: 'offset is not allowed on keyset endpoints' }
  try {
    const limit = integer(q, 'limit') ?? LIMIT_DEFAULT
    if (limit < LIMIT_MIN || limit > LIMIT_MAX) {
      throw new BadParam(`limit must be between ${LIMIT_MIN} and ${LIMIT_MAX}`)
    }
    const tagMatchRaw = oneOf(q, 'tag_match', TAG_MATCHES)
    const recurrenceRaw = oneOf(q, 'recurrence', RECURRENCES)
    const parentRaw = scalar(q, 'parent_event_id')
    const eventDate = calendarDay(q, 'event_date')
    const order = orderFields(q)
    const ascending = bool(q, 'ascending') ?? true
    const query: EventQuery = {
      limit,
      order,
      // Only meaningful with `order`: the default order is always id ascending.
      ascending: order === undefined ? true : ascending,
      afterCursor: scalar(q, 'after_cursor'),
      ids: idList(q, 'id'),
      slugs: list(q, 'slug'),
      closed: bool(q, 'closed'),
      live: bool(q, 'live'),
      featured: bool(q, 'featured'),
      cyom: bool(q, 'cyom'),
      titleSearch: scalar(q, 'title_search'),
      liquidityMin: number(q, 'liquidity_min'),
      liquidityMax: number(q, 'liquidity_max'),
      volumeMin: number(q, 'volume_min'),
      volumeMax: number(q, 'volume_max'),
      startDateMin: dateTime(q, 'start_date_min'),
      startDateMax: dateTime(q, 'start_date_max'),
      endDateMin: dateTime(q, 'end_date_min'),
      endDateMax: dateTime(q, 'end_date_max'),
      startTimeMin: dateTime(q, 'start_time_min'),
      startTimeMax: dateTime(q, 'start_time_max'),
      tagIds: idList(q, 'tag_id'),
      tagSlug: scalar(q, 'tag_slug'),
      excludeTagIds: idList(q, 'exclude_tag_id'),
      relatedTags: bool(q, 'related_tags') ?? false,
      tagMatch: tagMatchRaw ?? 'any',
      seriesIds: idList(q, 'series_id'),
      gameIds: idList(q, 'game_id'),
      eventDate,
      eventWeek: integer(q, 'event_week'),
      featuredOrder: bool(q, 'featured_order') ?? false,
      recurrence: recurrenceRaw,
      createdBy: list(q, 'created_by'),
      parentEventId: parentRaw === undefined ? undefined : idValue('parent_event_id', parentRaw),
      includeChildren: bool(q, 'include_children') ?? false,
      partnerSlug: scalar(q, 'partner_slug'),
      includeChat: bool(q, 'include_chat') ?? false,
      includeTemplate: bool(q, 'include_template') ?? false,
      includeBestLines: bool(q, 'include_best_lines') ?? false,
      locale: scalar(q, 'locale'),
    }
    const excluded = new Set(query.excludeTagIds ?? [])
    const overlap = (query.tagIds ?? []).filter((t) => excluded.has(t))
    if (overlap.length > 0) {
      throw new BadParam(`tag_id overlaps with exclude_tag_id: ${overlap.join(', ')}`)
    }
    return { ok: true, query }
  } catch (e) {
    if (e instanceof BadParam) return { ok: false, error: e.message }
    throw e
  }
}
