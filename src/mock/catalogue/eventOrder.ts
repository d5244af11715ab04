/**
 * The listing's total order: the requested Event fields, then `id` as the tie-breaker, all in the
 * `ascending` direction. Nulls (and absent fields) sort after every value when ascending and before
 * when descending, as in PostgreSQL. A key is the tuple of sort values, which is also what the cursor
 * carries, so paging resumes strictly after the last row served even if the store changed meanwhile.
 */
import { EVENT_FIELDS, type Event, type EventOrderField } from '../../catalogue/schemas/event.ts'

/** number: numeric, date-time (as Unix ms) and boolean (0/1) fields; string: text; id: numeric string. */
export type SortKind = 'id' | 'string' | 'number'
export type SortValue = string | number | null

const NUMERIC_FIELDS: ReadonlySet<string> = new Set<string>([
  ...EVENT_FIELDS.number,
  ...EVENT_FIELDS.integer,
  ...EVENT_FIELDS.boolean,
  ...EVENT_FIELDS.dateTime,
])
const DATE_FIELDS: ReadonlySet<string> = new Set<string>(EVENT_FIELDS.dateTime)
const BOOLEAN_FIELDS: ReadonlySet<string> = new Set<string>(EVENT_FIELDS.boolean)

export function sortKind(field: EventOrderField): SortKind {
  if (field === 'id') return 'id'
  return NUMERIC_FIELDS.has(field) ? 'number' : 'string'
}

/** The sort value of one field of `event`. */
export function sortValue(event: Event, field: EventOrderField): SortValue {
  const v: unknown = event[field]
  if (v === null || v === undefined) return null
  if (DATE_FIELDS.has(field)) {
    const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN
    return Number.isNaN(ms) ? null : ms
  }
  if (BOOLEAN_FIELDS.has(field)) return v === true ? 1 : 0
  if (field === 'id') return String(v)
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  return typeof v === 'string' ? v : null
}

/** The columns of a listing order: the requested fields plus the `id` tie-breaker. */
export function orderColumns(order: readonly EventOrderField[] | undefined): EventOrderField[] {
  const cols = [...(order ?? [])]
  if (!cols.includes('id')) cols.push('id')
  return cols
}

export function sortKey(event: Event, columns: readonly EventOrderField[]): SortValue[] {
  return columns.map((c) => sortValue(event, c))
}

function compareIds(a: string, b: string): number {
  // Canonical decimal ids: a shorter string is a smaller number.
  if (a.length !== b.length) return a.length - b.length
  return a < b ? -1 : a > b ? 1 : 0
}

function compareValue(kind: SortKind, a: SortValue, b: SortValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1
  if (kind === 'id' && typeof a === 'string' && typeof b === 'string') return compareIds(a, b)
  if (typeof a === 'number' && typeof b === 'number') return a - b
  const sa = String(a)
  const sb = String(b)
  return sa < sb ? -1 : sa > sb ? 1 : 0
}

/** Compares two keys in listing order (negative: `a` comes first). */
export function compareKeys(
  kinds: readonly SortKind[],
  a: readonly SortValue[],
  b: readonly SortValue[],
  ascending: boolean,
): number {
  for (let i = 0; i < kinds.length; i++) {
    const c = compareValue(kinds[i] as SortKind, a[i] ?? null, b[i] ?? null)
    if (c !== 0) return ascending ? c : -c
  }
  return 0
}
