/**
 * The timeline: pure sampling of the parts' snapshots (quotes, index and mark, position, PnL, margin,
 * weights; the board of fills and alerts), the bounded ring, and the sampling timer on a simulated
 * clock (one sample per interval, board sent only when it changed, nothing after stop).
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../src/alerts/alert.ts'
import { openEpisodes } from '../../../src/alerts/episodes.ts'
import { AccountWatch } from '../../../src/bot/account/accountWatch.ts'
import { PnlLedger } from '../../../src/bot/account/pnlLedger.ts'
import { type InstrumentContext, initialContext } from '../../../src/bot/instrument/context.ts'
import type { InstrumentView } from '../../../src/bot/observe/statusView.ts'
import { Ring, startTimeline, timelineCapacity } from '../../../src/bot/observe/timeline.ts'
import {
  BOARD_ROWS,
  bestQuotes,
  boardOf,
  openAlerts,
  sampleTimeline,
  sampleTimelineInSlices,
  type TimelineInputs,
} from '../../../src/bot/observe/timelineSample.ts'
import { SLICE } from '../../../src/bot/shared/slices.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type {
  TimelineBoard,
  TimelineSample,
  TimelineUpdate,
} from '../../../src/ops/dashboard/timelineTypes.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { marginPortfolio as margin, WATCH } from '../../helpers/accountFixtures.ts'

const T0 = 1_767_000_000_000

const order = (oid: number, buy: boolean, p: string): Order => ({
  oid,
  iid: 1,
  buy,
  p,
  qty: '0.01',
  tif: 'gtc',
  po: true,
  ro: false,
  rest: '0.01',
  fill: '0',
  cts: T0,
  uts: T0,
  status: 'open',
})

function context(id: number, symbol: string): InstrumentContext {
  return initialContext({
    instrument: {
      id,
      symbol,
      priceDecimals: 1,
      quantityDecimals: 3,
      priceBounds: '0.05',
      minNotional: '1',
      maxOrderCount: 200,
    },
    deps: {
      clock: { now: () => T0 },
      logger: createLogger({ destination: { write: () => undefined }, pretty: 'never' }),
      plan: () => ({ modify: [], create: [], cancel: [] }),
      risk: {
        widenAtMarginRatio: 0.5,
        reduceOnlyAtMarginRatio: 0.7,
        haltAtMarginRatio: 0.9,
        widenAtLiquidationDistance: 0.15,
        reduceOnlyAtLiquidationDistance: 0.08,
        hysteresis: 0.05,
        minModeDwellMs: 10_000,
        staleIndexMs: 15_000,
        staleStatisticsMs: 180_000,
        staleMarginMs: 30_000,
      },
      recheckMs: 1_000,
      minRepriceIntervalMs: 250,
      rejectBackoffMs: 1_000,
      maxOrderAgeMs: 60_000,
      guard: { maxIndexJump: '0.1', degradeAfter: 3 },
    },
  })
}

const alert = (key: string, at: number, extra: Partial<Alert> = {}): Alert => ({
  key,
  severity: 'warning',
  title: `title ${key}`,
  message: `message ${key}`,
  at,
  ...extra,
})

function inputs(): TimelineInputs {
  const btc = context(1, 'BTC-USDC')
  // The index input may carry a mark (an optional field another part adds): the sample reads it.
  const indexWithMark = { price: '70000.5', ts: T0, mark: '70010' }
  btc.index = indexWithMark
  btc.openOrders = [
    order(1, true, '69990'),
    order(2, true, '69995.5'),
    order(3, false, '70020'),
    order(4, false, '70030'),
  ]
  btc.assessment = {
    mode: 'normal',
    reason: 'margin and liquidation distance within limits',
    transient: false,
  }
  btc.mode = { mode: 'normal', since: T0, transient: false }
  const eth = context(2, 'ETH-USDC')
  eth.index = { price: '3400', ts: T0 }
  eth.position = { size: '-0.6', entryPrice: '3390', liquidationPrice: '5000' }
  const instruments: InstrumentView[] = [
    {
      id: 1,
      symbol: 'BTC-USDC',
      strategy: 'mm',
      actor: { value: { active: { risk: 'normal', work: 'quoting' } }, context: btc },
    },
    { id: 2, symbol: 'ETH-USDC', strategy: 'mm', actor: { value: 'syncing', context: eth } },
    { id: 3, symbol: 'SOL-USDC', strategy: 'mm', actor: undefined },
  ]
  const ledger = new PnlLedger()
  ledger.applyFill({
    tid: 1,
    oid: 1,
    iid: 1,
    side: 'long',
    p: '70000',
    qty: '0.01',
    taker: false,
    fee: '0.05',
    pnl: '0',
    ts: T0,
  })
  ledger.applyFill({
    tid: 2,
    oid: 3,
    iid: 1,
    side: 'short',
    p: '70100',
    qty: '0.01',
    taker: true,
    fee: '0.1',
    pnl: '1',
    ts: T0 + 1,
  })
  ledger.applyFunding({ instrument_id: 1, funding: '0.25', timestamp: T0 })
  ledger.observePositions(
    [{ instrument_id: 1, size: '0.03', entry_price: '70000', unrealized_pnl: '2.5' }],
    [1, 2, 3],
  )
  return {
    mode: 'dry-run',
    now: T0 + 10_000,
    venueNow: T0 + 10_000,
    instruments,
    account: { marginRatio: 0.125 },
    pnl: ledger.snapshot(),
    limiter: { request: { used: 120, limit: 900 }, action: { used: 8, limit: 4500 } },
    ...withAlerts([
      alert('a', T0),
      alert('b', T0 + 1),
      alert('a', T0 + 2, { resolved: true }),
      alert('c', T0 + 3),
    ]),
  }
}

/** The run's alerts, and the episodes the hub's book holds open after them. */
const withAlerts = (alerts: Alert[]): Pick<TimelineInputs, 'alerts' | 'openEpisodes'> => ({
  alerts,
  openEpisodes: openEpisodes(alerts),
})

describe('timeline sampling (pure)', () => {
  it('our best quotes: the highest bid and the lowest ask, null on an empty side', () => {
    expect(
      bestQuotes([
        order(1, true, '10'),
        order(2, true, '10.5'),
        order(3, false, '11'),
        order(4, false, '10.9'),
      ]),
    ).toEqual({
      bid: 10.5,
      ask: 10.9,
    })
    expect(bestQuotes([order(1, false, '11')])).toEqual({ bid: null, ask: 11 })
    expect(bestQuotes([])).toEqual({ bid: null, ask: null })
  })

  it('samples every instrument (state, reason, index, mark, quotes, position), the account and the weights', () => {
    const s = sampleTimeline(inputs())
    expect(s.at).toBe(T0 + 10_000)
    expect(s.instruments).toEqual([
      {
        id: 1,
        symbol: 'BTC-USDC',
        state: 'active.normal.quoting',
        reason: 'margin and liquidation distance within limits',
        mode: 'normal',
        index: 70000.5,
        mark: 70010,
        bid: 69995.5,
        ask: 70020,
        // The venue's position (ledger) first.
        position: 0.03,
        openOrders: 4,
        priceDecimals: 1,
        quantityDecimals: 3,
      },
      {
        id: 2,
        symbol: 'ETH-USDC',
        state: 'syncing',
        reason: 'syncing',
        mode: 'halted',
        index: 3400,
        mark: null,
        bid: null,
        ask: null,
        // Flat per the venue's portfolio, which the ledger saw.
        position: 0,
        openOrders: 0,
        priceDecimals: 1,
        quantityDecimals: 3,
      },
      {
        id: 3,
        symbol: 'SOL-USDC',
        state: 'stopped',
        reason: 'actor stopped',
        mode: 'halted',
        index: null,
        mark: null,
        bid: null,
        ask: null,
        position: 0,
        openOrders: 0,
      },
    ])
    expect(s.account).toEqual({
      realizedPnl: 1,
      unrealizedPnl: 2.5,
      fees: 0.15,
      funding: 0.25,
      netPnl: 3.1,
      marginRatio: 0.125,
    })
    expect(s.limiter).toEqual({ request: { used: 120, capacity: 900 }, action: { used: 8, capacity: 4500 } })
  })

  it('many instruments are sampled a slice at a time, with turns between, into the same sample', async () => {
    const base = inputs()
    const many = Array.from({ length: 2 * SLICE + 7 }, (_, k) => ({
      ...(base.instruments[k % base.instruments.length] as InstrumentView),
      id: k + 1,
      symbol: `I${k + 1}-USDC`,
    }))
    const s = { ...base, instruments: many }
    let turns = 0
    const ticker = (): void => {
      turns++
      if (turns < 50) setImmediate(ticker)
    }
    setImmediate(ticker)
    const sliced = await sampleTimelineInSlices(s)
    expect(sliced).toEqual(sampleTimeline(s))
    expect(sliced.instruments).toHaveLength(2 * SLICE + 7)
    // Two turns between the three slices: other ready work ran while the sample was made.
    expect(turns).toBeGreaterThanOrEqual(2)
    // One slice's worth is made in the same turn.
    let ran = false
    setImmediate(() => {
      ran = true
    })
    await sampleTimelineInSlices(base)
    expect(ran).toBe(false)
  })

  it('position falls back to the actor when the ledger has none; an infinite margin ratio is null', () => {
    const i = inputs()
    const s = sampleTimeline({
      ...i,
      pnl: new PnlLedger().snapshot(),
      account: { marginRatio: Number.POSITIVE_INFINITY },
    })
    expect(s.instruments[1]?.position).toBe(-0.6)
    expect(s.account.marginRatio).toBeNull()
  })

  it('open alerts are the episodes whose latest alert is not a resolution, newest first', () => {
    expect(openAlerts(inputs().alerts).map((a) => a.key)).toEqual(['c', 'b'])
  })

  it('after critical → warning the board shows the margin episode open at warning, as /status does', () => {
    const watch = new AccountWatch(WATCH)
    const alerts = ['0.55', '0.85', '0.74'].flatMap((mm, k) => watch.observePortfolio(margin(mm), T0 + k))
    expect(watch.snapshot().marginLevel).toBe('warning')
    const b = boardOf({ ...inputs(), ...withAlerts(alerts) }, [])
    expect(b.openAlerts).toEqual([
      {
        key: 'margin',
        severity: 'warning',
        title: 'Margin ratio below critical',
        message:
          'Margin ratio 74% is back below the critical threshold 80% (still above the warning threshold 50%).',
        at: T0 + 2,
        resolved: false,
      },
    ])
    // The recent list shows the message as sent.
    expect(b.recentAlerts[0]).toMatchObject({ key: 'margin', severity: 'critical', resolved: true })
    const normal = [...alerts, ...watch.observePortfolio(margin('0.1'), T0 + 3)]
    expect(boardOf({ ...inputs(), ...withAlerts(normal) }, []).openAlerts).toEqual([])
  })

  it('the board lists the latest fills and alerts newest first, bounded', () => {
    const i = inputs()
    const b = boardOf(i, [
      {
        tid: 1,
        oid: 1,
        iid: 1,
        side: 'long',
        p: '70000',
        qty: '0.01',
        taker: false,
        fee: '0.05',
        pnl: '0',
        ts: T0,
      },
      {
        tid: 2,
        oid: 9,
        iid: 9,
        side: 'short',
        p: '1',
        qty: '2',
        taker: true,
        fee: '0.1',
        pnl: '1',
        liq: true,
        ts: T0 + 5,
      },
    ])
    expect(b.botMode).toBe('dry-run')
    expect(b.fills).toEqual([
      {
        at: T0 + 5,
        symbol: '#9',
        side: 'short',
        price: '1',
        qty: '2',
        fee: '0.1',
        pnl: '1',
        maker: false,
        liquidation: true,
        closes: true,
      },
      {
        at: T0,
        symbol: 'BTC-USDC',
        side: 'long',
        price: '70000',
        qty: '0.01',
        fee: '0.05',
        pnl: '0',
        maker: true,
        liquidation: false,
        // Opened a position: no realized PnL to show.
        closes: false,
      },
    ])
    // Amounts carry the instruments' quote asset as the venue names it.
    expect(b.currency).toBeUndefined()
    const quoted = { ...i, instruments: i.instruments.map((x) => ({ ...x, quoteAsset: 'USDC' })) }
    expect(boardOf(quoted, []).currency).toBe('USDC')
    expect(b.openAlerts.map((a) => a.key)).toEqual(['c', 'b'])
    expect(b.recentAlerts.map((a) => [a.key, a.resolved])).toEqual([
      ['c', false],
      ['a', true],
      ['b', false],
      ['a', false],
    ])
    const many = Array.from({ length: 50 }, (_, k) => alert(`k${k}`, T0 + k))
    const big = boardOf({ ...i, ...withAlerts(many) }, [])
    expect(big.recentAlerts).toHaveLength(BOARD_ROWS)
    expect(big.recentAlerts[0]?.key).toBe('k49')
    expect(big.openAlerts).toHaveLength(BOARD_ROWS)
  })
})

describe('Ring', () => {
  it('keeps the last `capacity` items, oldest first', () => {
    const r = new Ring<number>(3)
    expect(r.toArray()).toEqual([])
    for (let k = 1; k <= 2; k++) r.push(k)
    expect(r.toArray()).toEqual([1, 2])
    for (let k = 3; k <= 7; k++) r.push(k)
    expect(r.toArray()).toEqual([5, 6, 7])
    expect(r.size).toBe(3)
    expect(() => new Ring(0)).toThrow(RangeError)
  })
})

describe('timelineCapacity', () => {
  it('keeps 30 minutes for up to 50 instruments, less beyond, never under 30 samples', () => {
    expect(timelineCapacity(0)).toBe(900)
    expect(timelineCapacity(3)).toBe(900)
    expect(timelineCapacity(50)).toBe(900)
    expect(timelineCapacity(100)).toBe(450)
    expect(timelineCapacity(1_000)).toBe(45)
    expect(timelineCapacity(10_000)).toBe(30)
  })
})

describe('startTimeline (simulated clock)', () => {
  const flush = async (): Promise<void> => {
    for (let k = 0; k < 10; k++) await Promise.resolve()
  }
  const board = (fills: number): TimelineBoard => ({
    botMode: 'dry-run',
    fills: Array.from({ length: fills }, (_, k) => ({
      at: k,
      symbol: 'X',
      side: 'long',
      price: '1',
      qty: '1',
      fee: '0',
      pnl: '0',
      maker: true,
      liquidation: false,
    })),
    openAlerts: [],
    recentAlerts: [],
  })

  it('samples once per interval into a bounded ring, tells subscribers, sends the board only when it changed', async () => {
    const clock = new SimulatedClock()
    clock.set(T0)
    let fills = 0
    const reads: number[] = []
    const timeline = startTimeline({
      clock,
      intervalMs: 2_000,
      capacity: 4,
      read: () => {
        reads.push(clock.now())
        const sample: TimelineSample = {
          at: clock.now(),
          instruments: [],
          account: { realizedPnl: 0, unrealizedPnl: 0, fees: 0, funding: 0, netPnl: 0, marginRatio: null },
          limiter: { request: { used: 0, capacity: 1 }, action: { used: 0, capacity: 1 } },
        }
        return { sample, board: board(fills) }
      },
    })
    await flush()
    // The first sample at once.
    expect(reads).toEqual([T0])
    const updates: TimelineUpdate[] = []
    const unsubscribe = timeline.subscribe((u) => updates.push(u))

    clock.increment(1_999)
    await flush()
    expect(reads).toHaveLength(1)
    clock.increment(1)
    await flush()
    expect(reads).toEqual([T0, T0 + 2_000])
    expect(updates).toHaveLength(1)
    // Same board as the one already sent: not repeated.
    expect(updates[0]?.board).toBeUndefined()

    fills = 2
    clock.increment(2_000)
    await flush()
    expect(updates[1]?.board?.fills).toHaveLength(2)
    expect(timeline.snapshot().board.fills).toHaveLength(2)

    for (let k = 0; k < 5; k++) {
      clock.increment(2_000)
      await flush()
    }
    const snap = timeline.snapshot()
    expect(snap).toMatchObject({ intervalMs: 2_000, capacity: 4 })
    expect(snap.samples.map((s) => s.at)).toEqual([T0 + 8_000, T0 + 10_000, T0 + 12_000, T0 + 14_000])
    expect(updates).toHaveLength(7)

    unsubscribe()
    clock.increment(2_000)
    await flush()
    expect(updates).toHaveLength(7)

    await timeline.stop()
    const n = reads.length
    clock.increment(10_000)
    await flush()
    expect(reads).toHaveLength(n)
  })

  it('a throwing subscriber or read is reported and sampling goes on', async () => {
    const clock = new SimulatedClock()
    clock.set(T0)
    const errors: unknown[] = []
    let fail = true
    const timeline = startTimeline({
      clock,
      intervalMs: 1_000,
      read: () => {
        if (fail) {
          fail = false
          throw new Error('snapshot bug')
        }
        return {
          sample: {
            at: clock.now(),
            instruments: [],
            account: { realizedPnl: 0, unrealizedPnl: 0, fees: 0, funding: 0, netPnl: 0, marginRatio: null },
            limiter: { request: { used: 0, capacity: 1 }, action: { used: 0, capacity: 1 } },
          },
          board: board(0),
        }
      },
      onError: (e) => errors.push(e),
    })
    await flush()
    expect(errors).toHaveLength(1)
    const seen: number[] = []
    timeline.subscribe(() => {
      throw new Error('listener bug')
    })
    timeline.subscribe((u) => seen.push(u.sample.at))
    // The poller backs off after a failure (2 × 1 s).
    clock.increment(2_000)
    await flush()
    expect(seen).toEqual([T0 + 2_000])
    expect(errors.map((e) => (e as Error).message)).toEqual(['snapshot bug', 'listener bug'])
    await timeline.stop()
  })
})
