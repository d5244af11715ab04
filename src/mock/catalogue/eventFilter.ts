/**
 * The listing filters of GET /events/keyset as one predicate over stored events. Semantics the spec
 * leaves open (written down in the report): array filters match any listed value; a range excludes
 * events whose field is null; tag_match decides whether any or all requested tags must be present;
 * related_tags widens each requested tag (tag_id and tag_slug) to the tags sharing a topic with it;
 * featured_order keeps events that have a featuredOrder; recurrence matches the event's series;
 * parent_event_id keeps that event's children (and the parent too with include_children).
 */
import type { Event } from '../../catalogue/schemas/event.ts'
import type { CatalogueStore } from './catalogueStore.ts'
import type { EventQuery } from './eventQuery.ts'
import type { StoredEvent } from './generateEvent.ts'

type Check = (e: Event) => boolean

function inRange(v: number | null, min: number | undefined, max: number | undefined): boolean {
  if (min === undefined && max === undefined) return true
  if (v === null) return false
  return (min === undefined || v >= min) && (max === undefined || v <= max)
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

function dateMs(v: unknown): number | null {
  if (typeof v !== 'string') return null
  const ms = Date.parse(v)
  return Number.isNaN(ms) ? null : ms
}

/** Builds the predicate for `q` (tag expansions are resolved once here, not per event). */
export function compileEventFilter(store: CatalogueStore, q: EventQuery): (s: StoredEvent) => boolean {
  const checks: Check[] = []
  const flag = (value: boolean | undefined, read: (e: Event) => unknown): void => {
    if (value !== undefined) checks.push((e) => (read(e) === true) === value)
  }
  const oneOf = (values: readonly string[] | undefined, read: (e: Event) => readonly unknown[]): void => {
    if (values === undefined) return
    const set = new Set(values)
    checks.push((e) => read(e).some((v) => typeof v === 'string' && set.has(v)))
  }

  oneOf(q.ids, (e) => [e.id])
  oneOf(q.slugs, (e) => [e.slug])
  flag(q.closed, (e) => e.closed)
  flag(q.live, (e) => e.live)
  flag(q.featured, (e) => e.featured)
  flag(q.cyom, (e) => e.cyom)
  if (q.titleSearch !== undefined) {
    const needle = q.titleSearch.toLowerCase()
    checks.push((e) => (e.title ?? '').toLowerCase().includes(needle))
  }
  checks.push((e) => inRange(num(e.liquidity), q.liquidityMin, q.liquidityMax))
  checks.push((e) => inRange(num(e.volume), q.volumeMin, q.volumeMax))
  checks.push((e) => inRange(dateMs(e.startDate), q.startDateMin, q.startDateMax))
  checks.push((e) => inRange(dateMs(e.endDate), q.endDateMin, q.endDateMax))
  checks.push((e) => inRange(dateMs(e.startTime), q.startTimeMin, q.startTimeMax))

  // Tags: each requested tag is a group of acceptable ids (itself, plus related ones on request).
  const group = (id: string): ReadonlySet<string> =>
    new Set(q.relatedTags ? [id, ...store.relatedTagIds(id)] : [id])
  const tagIdsOf = (e: Event): Set<string> => new Set((e.tags ?? []).flatMap((t) => (t.id ? [t.id] : [])))
  if (q.tagIds !== undefined) {
    const groups = q.tagIds.map(group)
    const hit = (ids: Set<string>, g: ReadonlySet<string>): boolean => [...g].some((id) => ids.has(id))
    checks.push((e) => {
      const ids = tagIdsOf(e)
      return q.tagMatch === 'all' ? groups.every((g) => hit(ids, g)) : groups.some((g) => hit(ids, g))
    })
  }
  if (q.tagSlug !== undefined) {
    const id = store.tagIdBySlug(q.tagSlug)
    const g = id === undefined ? new Set<string>() : group(id)
    checks.push((e) => [...tagIdsOf(e)].some((t) => g.has(t)))
  }
  if (q.excludeTagIds !== undefined) {
    const excluded = new Set(q.excludeTagIds)
    checks.push((e) => ![...tagIdsOf(e)].some((t) => excluded.has(t)))
  }

  oneOf(q.seriesIds, (e) => (e.series ?? []).map((s) => s.id))
  oneOf(q.gameIds, (e) => (e.markets ?? []).map((m) => m.gameId))
  oneOf(q.createdBy, (e) => [e.createdBy])
  if (q.eventDate !== undefined) {
    const day = q.eventDate
    checks.push((e) => typeof e.eventDate === 'string' && e.eventDate.slice(0, 10) === day)
  }
  if (q.eventWeek !== undefined) checks.push((e) => e.eventWeek === q.eventWeek)
  if (q.featuredOrder) checks.push((e) => typeof e.featuredOrder === 'number')
  if (q.recurrence !== undefined) {
    const r = q.recurrence
    checks.push((e) => (e.series ?? []).some((s) => s.recurrence === r))
  }
  if (q.parentEventId !== undefined) {
    const parent = q.parentEventId
    checks.push((e) => e.parentEvent === parent || (q.includeChildren && e.id === parent))
  }

  return (s) => checks.every((c) => c(s.event))
}
