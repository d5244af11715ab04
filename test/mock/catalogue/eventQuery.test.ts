import { describe, expect, it } from 'vitest'
import { parseEventQuery } from '../../../src/mock/catalogue/eventQuery.ts'

const parse = (qs: string) => parseEventQuery(new URLSearchParams(qs))
const error = (qs: string): string | undefined => {
  const r = parse(qs)
  return r.ok ? undefined : r.error
}

describe('parseEventQuery', () => {
  it('applies defaults: limit 20, ascending, tag_match any, no order', () => {
    const r = parse('')
    expect(r.ok && r.query).toMatchObject({
      limit: 20,
      ascending: true,
      tagMatch: 'any',
      order: undefined,
      relatedTags: false,
      includeChat: false,
    })
  })

  it('rejects offset with any value, even empty', () => {
    expect(error('offset=0')).toBe('offset is not allowed on keyset endpoints')
    expect(error('offset=')).toBe('offset is not allowed on keyset endpoints')
  })

  it.each([
    ['limit=0', 'limit must be between 1 and 500'],
    ['limit=501', 'limit must be between 1 and 500'],
    ['limit=2.5', 'invalid value for limit: expected an integer'],
    ['limit=ten', 'invalid value for limit: expected an integer'],
    ['order=start_date', 'order fields are not valid: "start_date"'],
    ['order=volume,bogus', 'order fields are not valid: "bogus"'],
    ['order=published_at', 'order fields are not valid: "published_at"'],
    ['tag_id=1&tag_id=2&exclude_tag_id=2', 'tag_id overlaps with exclude_tag_id: 2'],
    ['recurrence=yearly', 'recurrence is invalid: expected one of daily, weekly, monthly'],
    ['tag_match=most', 'tag_match is invalid: expected one of any, all'],
    ['closed=maybe', 'invalid value for closed: expected a boolean'],
    ['id=abc', 'invalid value for id: expected an integer'],
    ['series_id=-1', 'invalid value for series_id: expected an integer'],
    ['volume_min=1e', 'invalid value for volume_min: expected a number'],
    ['liquidity_max=Infinity', 'invalid value for liquidity_max: expected a number'],
    ['start_date_min=2026-01-01', 'invalid value for start_date_min: expected an RFC 3339 date-time'],
    ['event_date=tomorrow', 'invalid value for event_date: expected an RFC 3339 date-time'],
    ['event_week=1.5', 'invalid value for event_week: expected an integer'],
    ['parent_event_id=x', 'invalid value for parent_event_id: expected an integer'],
  ])('422 for %s', (qs, message) => {
    expect(error(qs)).toBe(message)
  })

  it('reads arrays from repeated keys and from comma-separated values, canonicalizing ids', () => {
    const r = parse('id=3&id=007,9&slug=a&slug=b&created_by=x')
    expect(r.ok && r.query.ids).toEqual(['3', '7', '9'])
    expect(r.ok && r.query.slugs).toEqual(['a', 'b'])
    expect(r.ok && r.query.createdBy).toEqual(['x'])
  })

  it('accepts ParseBool spellings and treats empty values as absent', () => {
    const r = parse('closed=0&live=T&featured=&cyom=FALSE')
    expect(r.ok && [r.query.closed, r.query.live, r.query.featured, r.query.cyom]).toEqual([
      false,
      true,
      undefined,
      false,
    ])
  })

  it('parses date-times to ms and event_date to its UTC day', () => {
    const r = parse(
      'start_date_min=2026-01-01T00:00:00Z&end_date_max=2026-01-01T02:00:00%2B02:00&event_date=2026-03-01T23:30:00-01:00',
    )
    expect(r.ok && r.query.startDateMin).toBe(Date.UTC(2026, 0, 1))
    expect(r.ok && r.query.endDateMax).toBe(Date.UTC(2026, 0, 1))
    expect(r.ok && r.query.eventDate).toBe('2026-03-02')
  })

  it('takes event_date as a calendar date too (the official client sends one)', () => {
    const r = parse('event_date=2026-03-02')
    expect(r.ok && r.query.eventDate).toBe('2026-03-02')
    expect(parse('event_date=2026-03').ok).toBe(false)
  })

  it('ignores unknown params (as the venue does)', () => {
    expect(parse('active=true&archived=false&bogus=1').ok).toBe(true)
  })
})
