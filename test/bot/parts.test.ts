import { describe, expect, it, vi } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../src/alerts/alert.ts'
import { createPollerHealth } from '../../src/bot/inputs/pollerHealth.ts'
import { createCountWindow } from '../../src/bot/limiter/botLimiter.ts'
import { createOpenOrderBook, type OpenOrdersUpdate } from '../../src/bot/orders/openOrderBook.ts'
import { createSignal } from '../../src/bot/shared/signal.ts'
import { runStopSequence, type StopParts } from '../../src/bot/startup/stopSequence.ts'
import { UnexpectedResponseError } from '../../src/errors.ts'
import { createLogger } from '../../src/logging/logger.ts'
import type { PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import type { Order } from '../../src/perps/schemas/orders.ts'
import { restingOrder } from '../helpers/orders.ts'

const order = (oid: number, iid: number): Order => restingOrder(oid, { iid })

describe('signal', () => {
  it('delivers to every subscriber even when one throws, and unsubscribes', () => {
    const s = createSignal<number>()
    const got: number[] = []
    s.subscribe(() => {
      throw new Error('listener bug')
    })
    const off = s.subscribe((v) => void got.push(v))
    s.emit(1)
    off()
    s.emit(2)
    expect(got).toEqual([1])
  })
})

describe('count window', () => {
  it('counts only what the cumulative counter gained within the window', () => {
    const clock = new SimulatedClock()
    let total = 0
    const count = createCountWindow(clock, 60_000, () => total)
    total = 2
    expect(count()).toBe(2)
    clock.increment(30_000)
    total = 5
    expect(count()).toBe(5)
    clock.increment(40_000) // 70 s: the samples at 0 s fall out, the one at 30 s is the baseline
    total = 6
    expect(count()).toBe(4)
    clock.increment(120_000)
    expect(count()).toBe(0)
  })
})

describe('open-order book', () => {
  function setup() {
    const clock = new SimulatedClock()
    const reads: (number | undefined)[] = []
    const venue = [order(1, 10), order(2, 11), order(3, 99)]
    const perps = {
      getOpenOrders: vi.fn(async (p?: { instrumentId?: number }) => {
        reads.push(p?.instrumentId)
        return p?.instrumentId === undefined ? venue : venue.filter((o) => o.iid === p.instrumentId)
      }),
    } as Pick<PerpsClient, 'getOpenOrders'>
    const book = createOpenOrderBook({ perps, clock, instrumentIds: [10, 11, 12] })
    return { clock, reads, book }
  }

  it('reads everything once, publishes every tracked instrument (empty ones too) and keeps the snapshot', async () => {
    const { book, reads, clock } = setup()
    clock.increment(5)
    const updates: OpenOrdersUpdate[] = []
    book.subscribe((u) => void updates.push(u))
    expect(book.snapshot().reconciledAt).toBeUndefined()
    await book.reconcile()
    expect(reads).toEqual([undefined])
    expect([...(updates[0]?.byInstrument.keys() ?? [])]).toEqual([10, 11, 12])
    expect(updates[0]?.byInstrument.get(12)).toEqual([])
    expect(book.snapshot()).toMatchObject({ reconciledAt: 5 })
    expect(book.snapshot().orders).toHaveLength(3)
  })

  it('reads a few instruments one by one (cheaper) without replacing the full snapshot', async () => {
    const { book, reads } = setup()
    const updates: OpenOrdersUpdate[] = []
    book.subscribe((u) => void updates.push(u))
    await book.reconcile([11])
    expect(reads).toEqual([11])
    expect([...(updates[0]?.byInstrument.entries() ?? [])]).toEqual([[11, [order(2, 11)]]])
    expect(book.snapshot().reconciledAt).toBeUndefined()
  })

  it('resolves only after every subscriber has taken the update', async () => {
    const { book } = setup()
    let taken = false
    book.subscribe(async () => {
      await new Promise<void>((r) => setImmediate(r))
      taken = true
    })
    await book.reconcile()
    expect(taken).toBe(true)
  })
})

describe('stop sequence', () => {
  const logger = () => {
    const lines: string[] = []
    return {
      lines,
      log: createLogger({ pretty: 'never', destination: { write: (l: string) => void lines.push(l) } }),
    }
  }
  const parts = (steps: string[], over: Partial<StopParts> = {}): StopParts => ({
    inputs: [{ stop: async () => void steps.push('inputs') }],
    stopPlanning: () => void steps.push('planning'),
    finishOrders: async () => void steps.push('orders'),
    cancelAll: async () => void steps.push('cancelAll'),
    disarm: async (clear) => void steps.push(clear ? 'disarm' : 'keep-armed'),
    lastOrders: () => [order(7, 10)],
    releaseLimiter: async () => void steps.push('limiter'),
    flushAlerts: async () => void steps.push('alerts'),
    close: [() => void steps.push('close')],
    ...over,
  })

  it('runs the steps in order and cancels everything under cancel-all', async () => {
    const steps: string[] = []
    const { log } = logger()
    const report = await runStopSequence({
      parts: parts(steps),
      exitPolicy: 'cancel-all',
      clock: new SimulatedClock(),
      logger: log,
      reason: 'test',
    })
    expect(steps).toEqual([
      'inputs',
      'planning',
      'orders',
      'cancelAll',
      'disarm',
      'limiter',
      'alerts',
      'close',
    ])
    expect(report.cancelAllFailed).toBe(false)
  })

  it('leaves orders under leave-orders', async () => {
    const steps: string[] = []
    const { log } = logger()
    await runStopSequence({
      parts: parts(steps),
      exitPolicy: 'leave-orders',
      clock: new SimulatedClock(),
      logger: log,
      reason: 't',
    })
    expect(steps).not.toContain('cancelAll')
  })

  it('reports a failed cancel-all, names the orders that may remain, and still releases everything', async () => {
    const steps: string[] = []
    const { log, lines } = logger()
    const report = await runStopSequence({
      parts: parts(steps, {
        cancelAll: async () => {
          throw new Error('venue down')
        },
      }),
      exitPolicy: 'cancel-all',
      clock: new SimulatedClock(),
      logger: log,
      reason: 't',
    })
    expect(report.cancelAllFailed).toBe(true)
    // The dead-man switch stays armed: the venue cancels what we could not.
    expect(steps.slice(-4)).toEqual(['keep-armed', 'limiter', 'alerts', 'close'])
    const failure = lines.find((l) => l.includes('cancel-all failed'))
    expect(failure).toContain('"oid":7')
  })
})

describe('poller health', () => {
  it('degrades only the feed whose answers stop matching, with one alert naming the path, resolved on recovery', () => {
    const alerts: Alert[] = []
    const health = createPollerHealth({
      alerts: { send: (a) => void alerts.push(a) },
      clock: new SimulatedClock(),
    })
    const bad = new UnexpectedResponseError('/v1/account/credentials', ['keys.0.expiry: expected number'], {
      fieldPaths: ['keys.0.expiry'],
    })
    health.failed('credentials', bad)
    health.failed('credentials', bad)
    health.failed('index:BTC', new Error('timeout'))
    expect(alerts).toHaveLength(1)
    expect(alerts[0]).toMatchObject({ key: 'feed-shape:credentials', severity: 'warning' })
    expect(alerts[0]?.message).toContain('keys.0.expiry')
    health.succeeded('index:BTC')
    expect(alerts).toHaveLength(1)
    health.succeeded('credentials')
    expect(alerts[1]).toMatchObject({ key: 'feed-shape:credentials', resolved: true })
    expect(health.counts()).toEqual({ credentials: 2, 'index:BTC': 1 })
  })
})
