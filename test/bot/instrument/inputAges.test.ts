/**
 * Input ages renewed without events (issue 36): the stream routes' change filter keeps when it last saw
 * each instrument's BBO and margin, changed or not, and the actor reads it (`InputAges`) when it judges
 * their age. On the stepped clock: a feed that repeats its value keeps the actor quoting with one event;
 * a silent one halts it within its staleness bound; the value after the silence is an event that re-plans.
 */
import { describe, expect, it } from 'vitest'
import { botChangeFilter, filterKey } from '../../../src/bot/inputs/streams/streamRoutes.ts'
import { type Harness, harness, margin, nothing, risk } from './helpers.ts'

const BBO = { bid: { price: '49990', qty: '1' }, ask: { price: '50010', qty: '1' } }

/** The venue's 1 s tick, through the bot's change filter: only what it lets through reaches the actor. */
function feed(h: Harness, f: ReturnType<typeof botChangeFilter>, sent: string[], o: { margin: boolean }) {
  const now = h.clock.now()
  if (f.classify(filterKey('index', 7), '50000', 'index') !== 'hold') {
    sent.push('INDEX')
    h.actor.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
  }
  if (f.classify(filterKey('bbo', 7), 'touch', 'bbo') !== 'hold') {
    sent.push('BBO')
    h.actor.send({ type: 'BBO', bbo: BBO, receivedAt: now })
  }
  if (o.margin && f.classify(filterKey('margin', 7), 'm', 'margin') !== 'hold') {
    sent.push('ACCOUNT')
    h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
  }
}

/** Runs the 1 s tick for `seconds`, the clock stepped 100 ms at a time. */
function tick(h: Harness, f: ReturnType<typeof botChangeFilter>, sent: string[], seconds: number, m = true) {
  for (let s = 0; s < seconds; s++) {
    feed(h, f, sent, { margin: m })
    for (let i = 0; i < 10; i++) h.clock.increment(100)
  }
}

const count = (sent: string[], type: string): number => sent.filter((t) => t === type).length

describe('instrument machine: input ages renewed without events', () => {
  it('a repeated BBO and margin keep the actor quoting on one event each; the strategy sees their renewed age', () => {
    let f: ReturnType<typeof botChangeFilter> | undefined
    const h = harness(nothing, {
      revisitAt: (s) => s.now + 5_000,
      ages: { seenAt: (k, id) => f?.seenAt(k, id) },
    })
    f = botChangeFilter(() => h.clock.now(), risk)
    const sent: string[] = []
    h.feedAll()
    tick(h, f, sent, 120) // four margin staleness bounds (30 s)
    expect(h.value()).toMatchObject({ active: expect.anything() })
    expect(count(sent, 'BBO')).toBe(1)
    expect(count(sent, 'ACCOUNT')).toBe(1)
    // The index is not silent (its repeats confirm a jumped value): refreshed at a third of 15 s.
    expect(count(sent, 'INDEX')).toBe(24)
    const last = h.snapshots.at(-1)
    expect(last?.bbo?.receivedAt).toBeGreaterThanOrEqual((last?.now ?? 0) - 1_000) // the last push, not the first
    expect(h.logs.some((l) => l.includes('stale'))).toBe(false)
  })

  it('a margin feed that goes silent halts within its bound; the same value after the silence re-plans', () => {
    let f: ReturnType<typeof botChangeFilter> | undefined
    const h = harness(nothing, { revisitAt: () => undefined, ages: { seenAt: (k, id) => f?.seenAt(k, id) } })
    f = botChangeFilter(() => h.clock.now(), risk)
    const sent: string[] = []
    h.feedAll()
    tick(h, f, sent, 40)
    const lastSeen = f.seenAt('margin', 7) ?? 0
    expect(lastSeen).toBe(h.clock.now() - 1_000)
    // Silent from here: the index and the BBO go on.
    while (h.clock.now() < lastSeen + risk.staleMarginMs) tick(h, f, sent, 1, false)
    expect(h.value()).toMatchObject({ active: expect.anything() })
    tick(h, f, sent, 1, false)
    expect(h.value()).toMatchObject({ halted: expect.anything() })
    expect(h.logs.some((l) => /risk mode .* → halted: margin stale/.test(l))).toBe(true)
    const plans = h.snapshots.length
    const accounts = count(sent, 'ACCOUNT')
    tick(h, f, sent, 1) // the feed is back with the same value: an event after the silence
    expect(count(sent, 'ACCOUNT')).toBe(accounts + 1)
    expect(h.value()).toMatchObject({ active: expect.anything() })
    expect(h.snapshots.length).toBeGreaterThan(plans)
  })

  it('without ages (the backtest, polling) the actor judges by the events alone, as before', () => {
    const h = harness(nothing, { revisitAt: () => undefined })
    const f = botChangeFilter(() => h.clock.now(), risk)
    const sent: string[] = []
    h.feedAll()
    tick(h, f, sent, 32)
    expect(h.value()).toMatchObject({ halted: expect.anything() })
  })
})
