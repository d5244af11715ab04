import { describe, expect, it } from 'vitest'
import { EVENT_FIELDS, EventDetailSchema, MARKET_FIELDS } from '../../../src/catalogue/schemas/event.ts'
import { createCatalogueStore } from '../../../src/mock/catalogue/catalogueStore.ts'

// A fifth of the default size keeps this file fast and still covers every generated field.
const store = createCatalogueStore({ seed: 3, eventCount: 600 })
const events = store.events().map((s) => s.event)
const markets = events.flatMap((e) => e.markets ?? [])

describe('generated catalogue', () => {
  it('validates against the client single-event schema', () => {
    expect(store.size).toBe(600)
    const failures = events.flatMap((e) => {
      const r = EventDetailSchema.safeParse(e)
      return r.success ? [] : [`${e.id}: ${r.error.message}`]
    })
    expect(failures).toEqual([])
  })

  it('is deterministic per seed and differs across seeds', () => {
    const again = createCatalogueStore({ seed: 3, eventCount: 120 })
    const same = createCatalogueStore({ seed: 3, eventCount: 120 })
    const other = createCatalogueStore({ seed: 4, eventCount: 120 })
    const dump = (s: typeof again) => JSON.stringify(s.events())
    expect(dump(again)).toBe(dump(same))
    expect(dump(again)).not.toBe(dump(other))
    expect(again.cursorSecret.equals(same.cursorSecret)).toBe(true)
    expect(again.cursorSecret.equals(other.cursorSecret)).toBe(false)
  })

  it('uses realistic ids and encodings', () => {
    // Violations are collected and asserted once (an expect per field would dominate the run time).
    const bad: string[] = []
    const check = (ok: boolean, what: string): void => {
      if (!ok) bad.push(what)
    }
    for (const e of events) check(/^[1-9]\d*$/.test(e.id), `event id ${e.id}`)
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length)
    expect(new Set(events.map((e) => e.slug)).size).toBe(events.length)
    for (const m of markets) {
      check(/^[1-9]\d*$/.test(m.id), `market id ${m.id}`)
      check(/^0x[0-9a-f]{64}$/.test(m.conditionId ?? ''), `conditionId ${m.conditionId}`)
      check(/^0x[0-9a-f]{64}$/.test(m.questionID ?? ''), `questionID ${m.questionID}`)
      check(/^\["\d{77}", "\d{77}"\]$/.test(m.clobTokenIds ?? ''), `clobTokenIds ${m.clobTokenIds}`)
      const outcomes = JSON.parse(m.outcomes ?? '') as string[]
      const prices = JSON.parse(m.outcomePrices ?? '') as string[]
      check(outcomes.length === 2 && prices.length === 2, `outcomes ${m.outcomes} / ${m.outcomePrices}`)
      check(
        prices.every((p) => /^(0(\.\d{1,3})?|1)$/.test(p)),
        `outcomePrices ${m.outcomePrices}`,
      )
      // Prices are complementary, checked in integer thousandths.
      const milli = prices.map((p) => Math.round(Number(p) * 1000))
      check((milli[0] ?? 0) + (milli[1] ?? 0) === 1000, `outcomePrices sum ${m.outcomePrices}`)
      check(m.volume === String(m.volumeNum), `volume ${m.volume} vs ${m.volumeNum}`)
    }
    expect(bad).toEqual([])
    expect(markets.length).toBeGreaterThan(events.length)
  })

  it('writes date-times as ISO strings', () => {
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/
    const bad = events.flatMap((e) => [
      ...(['startDate', 'endDate', 'createdAt', 'updatedAt', 'creationDate'] as const)
        .filter((f) => !iso.test(e[f] ?? ''))
        .map((f) => `${e.id}.${f}=${e[f]}`),
      ...(e.eventDate != null && !/^\d{4}-\d{2}-\d{2}$/.test(e.eventDate) ? [`${e.id}.eventDate`] : []),
    ])
    expect(bad).toEqual([])
  })

  it('always sends the fields the venue always sends', () => {
    const always = [
      'id',
      'ticker',
      'slug',
      'title',
      'description',
      'startDate',
      'creationDate',
      'endDate',
      'image',
      'icon',
      'active',
      'closed',
      'archived',
      'new',
      'featured',
      'restricted',
      'liquidity',
      'volume',
      'openInterest',
      'createdAt',
      'updatedAt',
      'volume24hr',
      'enableOrderBook',
      'negRisk',
      'commentCount',
      'markets',
      'series',
      'tags',
      'eventCreators',
      'cyom',
    ]
    const marketAlways = [
      'id',
      'question',
      'conditionId',
      'slug',
      'outcomes',
      'outcomePrices',
      'clobTokenIds',
      'active',
      'closed',
    ]
    const missing = [
      ...events.flatMap((e) => always.filter((f) => e[f] === undefined).map((f) => `${e.id}.${f}`)),
      ...markets.flatMap((m) =>
        marketAlways.filter((f) => m[f] === undefined).map((f) => `market ${m.id}.${f}`),
      ),
    ]
    expect(missing).toEqual([])
  })

  it('sends every spec field somewhere, and leaves optional ones null or absent elsewhere', () => {
    const present = (rows: readonly Record<string, unknown>[], f: string) => rows.some((r) => r[f] != null)
    const missing = (rows: readonly Record<string, unknown>[], f: string) => rows.some((r) => r[f] == null)
    // Fields no generated topic fills (no data model behind them in the mock).
    const neverEvent = new Set([
      'subEvents',
      'estimatedValue',
      'scheduledDeploymentTimestamp',
      'disqusThread',
    ])
    const neverMarket = new Set([
      'sponsorName',
      'sponsorImage',
      'xAxisValue',
      'yAxisValue',
      'denominationToken',
      'lowerBound',
      'upperBound',
      'lowerBoundDate',
      'upperBoundDate',
      'mailchimpTag',
      'disqusThread',
      'pastSlugs',
      'chartColor',
      'groupItemRange',
      'scheduledDeploymentTimestamp',
      'oneYearPriceChange',
    ])
    const eventGaps = Object.values(EVENT_FIELDS)
      .flat()
      .filter((f) => !neverEvent.has(f) && !present(events, f))
    const marketGaps = Object.values(MARKET_FIELDS)
      .flat()
      .filter((f) => !neverMarket.has(f) && !present(markets, f))
    expect(eventGaps).toEqual([])
    expect(marketGaps).toEqual([])
    expect(missing(events, 'subtitle')).toBe(true)
    expect(events.some((e) => e.updatedBy === null)).toBe(true)
  })

  it('has open and closed, live and featured, child and series events', () => {
    const count = (p: (e: (typeof events)[number]) => boolean) => events.filter(p).length
    expect(count((e) => e.closed === true)).toBeGreaterThan(0)
    expect(count((e) => e.closed === false)).toBeGreaterThan(50)
    expect(count((e) => e.live === true)).toBeGreaterThan(0)
    expect(count((e) => e.featured === true)).toBeGreaterThan(0)
    expect(count((e) => e.parentEvent != null)).toBeGreaterThan(0)
    expect(count((e) => (e.series ?? []).length > 0)).toBeGreaterThan(events.length / 2)
    for (const r of ['daily', 'weekly', 'monthly']) {
      expect(count((e) => (e.series ?? []).some((s) => s.recurrence === r))).toBeGreaterThan(0)
    }
  })
})

describe('store mutation', () => {
  it('adds events with the next id or a chosen one, applying overrides', () => {
    const s = createCatalogueStore({ seed: 8, eventCount: 50 })
    const maxId = Math.max(...s.events().map((e) => Number(e.event.id)))
    const added = s.addEvent({ title: 'Custom', volume: 123 })
    expect(Number(added.id)).toBeGreaterThan(maxId)
    expect(s.getEvent(added.id)?.event).toMatchObject({ title: 'Custom', volume: 123 })
    expect(s.getEventBySlug(added.slug ?? '')?.event.id).toBe(added.id)
    const chosen = s.addEvent({ id: '5' })
    expect(chosen.id).toBe('5')
    expect(s.size).toBe(52)
    expect(() => s.addEvent({ id: '5' })).toThrow(/exists/)
    expect(() => s.addEvent({ id: 'x' })).toThrow(/decimal integer/)
    expect(() => s.addEvent({ slug: added.slug })).toThrow(/taken/)
  })

  it('updates fields (undefined removes one) and re-indexes a changed slug', () => {
    const s = createCatalogueStore({ seed: 8, eventCount: 50 })
    const e = s.events()[0]!.event
    const updated = s.updateEvent(e.id, { title: 'Renamed', slug: 'renamed', subtitle: undefined })
    expect(updated).toMatchObject({ id: e.id, title: 'Renamed', slug: 'renamed' })
    expect(updated).not.toHaveProperty('subtitle')
    expect(s.getEventBySlug('renamed')?.event.id).toBe(e.id)
    expect(s.getEventBySlug(e.slug ?? '')).toBeUndefined()
    expect(() => s.updateEvent('1', { title: 'x' })).toThrow(/no event/)
    const other = s.events()[1]!.event
    expect(() => s.updateEvent(other.id, { slug: 'renamed' })).toThrow(/taken/)
  })

  it('removes events', () => {
    const s = createCatalogueStore({ seed: 8, eventCount: 50 })
    const e = s.events()[0]!.event
    expect(s.removeEvent(e.id)).toBe(true)
    expect(s.removeEvent(e.id)).toBe(false)
    expect(s.getEvent(e.id)).toBeUndefined()
    expect(s.getEventBySlug(e.slug ?? '')).toBeUndefined()
    expect(s.size).toBe(49)
  })
})
