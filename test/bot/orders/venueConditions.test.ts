import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../src/alerts/alert.ts'
import type { Batcher, OrderCommand } from '../../../src/bot/orders/batcher.ts'
import { withVenueConditions } from '../../../src/bot/orders/venueConditions.ts'
import { EngineRestartingError, PostOnlyModeError } from '../../../src/errors.ts'
import { createLogger } from '../../../src/logging/logger.ts'

type Answer = { status: string; [k: string]: unknown }

/** A batcher answering from a script, recording each submit with the clock time it was sent at. */
function scriptedBatcher(clock: SimulatedClock, answers: (c: OrderCommand, n: number) => Answer) {
  const sent: { type: string; at: number }[] = []
  const submit = async (c: OrderCommand) => {
    sent.push({ type: c.type, at: clock.now() })
    return answers(c, sent.length)
  }
  const batcher = {
    submit,
    flush: () => {},
    state: () => ({}),
    stop: async () => {},
  } as unknown as Batcher
  return { batcher, sent }
}

function setup(answers: (c: OrderCommand, n: number) => Answer) {
  const clock = new SimulatedClock()
  const alerts: Alert[] = []
  const { batcher, sent } = scriptedBatcher(clock, answers)
  const logger = createLogger({ pretty: 'never', destination: { write: () => {} } })
  const wrapped = withVenueConditions(batcher, {
    clock,
    logger,
    alerts: { send: (a) => void alerts.push(a) },
  })
  /** Runs the timers until `p` settles (bounded). */
  const drive = async <T>(p: Promise<T>): Promise<T> => {
    let done = false
    void p.finally(() => {
      done = true
    })
    for (let i = 0; i < 200 && !done; i++) {
      for (let k = 0; k < 5; k++) await Promise.resolve()
      if (!done) clock.increment(50)
    }
    return p
  }
  return { clock, alerts, sent, wrapped, drive }
}

const cancel = { type: 'cancelOrders', iid: 1, oid: 9 } as const
const postOnlyCreate = {
  type: 'createOrders',
  order: { iid: 1, buy: true, p: '1', qty: '1', po: true },
} as const
const takerCreate = {
  type: 'createOrders',
  order: { iid: 1, buy: false, qty: '1', tif: 'ioc', ro: true },
} as const

describe('venue conditions in front of the batcher', () => {
  it('retries a cancel refused with order_in_flight after ~200 ms, until it goes through', async () => {
    const t = setup((_c, n) =>
      n < 3 ? { status: 'err', error: 'order_in_flight' } : { status: 'ok', oid: 9 },
    )
    const r = await t.drive(t.wrapped.submit(cancel))
    expect(r).toEqual({ status: 'ok', oid: 9 })
    expect(t.sent).toHaveLength(3)
    expect((t.sent[1]?.at ?? 0) - (t.sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(200)
    expect(t.wrapped.conditions().cancelRetries).toBe(2)
  })

  it('gives up after 3 tries, and never retries a final refusal', async () => {
    const t = setup(() => ({ status: 'err', error: 'order_in_flight' }))
    expect(await t.drive(t.wrapped.submit(cancel))).toMatchObject({ status: 'err', error: 'order_in_flight' })
    expect(t.sent).toHaveLength(3)
    const u = setup(() => ({ status: 'err', error: 'order_not_found' }))
    expect(await u.drive(u.wrapped.submit(cancel))).toMatchObject({ status: 'err' })
    expect(u.sent).toHaveLength(1)
  })

  it('425: holds every submit for the venue-given retryAfterMs, then sends the command again', async () => {
    const t = setup((_c, n) =>
      n === 1
        ? { status: 'failed', error: new EngineRestartingError('/v1/trade', 'engine_restarting', 2_000) }
        : { status: 'ok', oid: 5 },
    )
    const first = t.wrapped.submit(postOnlyCreate)
    const r = await t.drive(first)
    expect(r).toEqual({ status: 'ok', oid: 5 })
    expect((t.sent[1]?.at ?? 0) - (t.sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(2_000)
    expect(t.wrapped.conditions().engineRetries).toBe(1)
  })

  it('503 post-only: one alert, post-only quotes go on, other creates are skipped until it ends', async () => {
    let postOnly = true
    const t = setup((c) =>
      postOnly && c.type === 'createOrders' && c.order.po !== true
        ? { status: 'failed', error: new PostOnlyModeError('/v1/trade', 'post_only_mode', 10_000) }
        : { status: 'ok', oid: 1 },
    )
    expect(await t.drive(t.wrapped.submit(takerCreate))).toMatchObject({ status: 'failed' })
    expect(await t.drive(t.wrapped.submit(takerCreate))).toMatchObject({ status: 'failed' })
    expect(await t.drive(t.wrapped.submit(postOnlyCreate))).toEqual({ status: 'ok', oid: 1 })
    // The second taker create never reached the venue.
    expect(t.sent.map((s) => s.type)).toEqual(['createOrders', 'createOrders'])
    expect(t.wrapped.conditions().skippedCreates).toBe(1)
    expect(t.alerts.map((a) => [a.key, a.title])).toEqual([['venue-post-only', 'venue in post-only mode']])
    // The mode ends: the next taker create goes out and the episode is resolved.
    postOnly = false
    t.clock.increment(10_000)
    expect(await t.drive(t.wrapped.submit(takerCreate))).toEqual({ status: 'ok', oid: 1 })
    expect(t.alerts.at(-1)).toMatchObject({ key: 'venue-post-only', resolved: true })
  })
})
