import { describe, expect, it, vi } from 'vitest'
import { SimulatedClock } from 'xstate'
import { createPollerHealth } from '../../../src/bot/inputs/pollerHealth.ts'
import { startPollers } from '../../../src/bot/inputs/pollers.ts'
import { botChangeFilter } from '../../../src/bot/inputs/streams/streamRoutes.ts'
import type { InstrumentEvent } from '../../../src/bot/instrument/instrument.machine.ts'
import { createOpenOrderBook } from '../../../src/bot/orders/openOrderBook.ts'
import { createSignal } from '../../../src/bot/shared/signal.ts'
import type { CatalogueClient } from '../../../src/catalogue/client/createCatalogueClient.ts'
import { OffsetClock } from '../../../src/clock.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { PerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import type { Portfolio } from '../../../src/perps/schemas/account.ts'
import type { Kline, StatisticsItem } from '../../../src/perps/schemas/info.ts'
import { PollingSettings } from '../../../src/settings/schema.ts'

const kline = (i: number): Kline => [i * 60_000, '1', '1', '1', '1', '1', 1]

function setup(opts: {
  assets: number
  klinesKept: number
  indexWeightPerMinute?: number
  /** Which instruments' strategies read statistics (default: all). */
  readsStatistics?: (id: number) => boolean
  /** Instruments a reload adds: pushed to `instruments`, then published here. */
  joined?: ReturnType<typeof createSignal<(typeof instrumentsType)[number]>> | undefined
  /** Polled portfolios through the bot's change filter (as startBot shares it with the streams). */
  changes?: boolean
}) {
  const sent: {
    ids?: readonly number[] | undefined
    event: { type: string; statistics?: { klines: unknown[] } }
  }[] = []
  const logs: string[] = []
  const instruments = Array.from({ length: opts.assets }, (_, i) => ({
    id: i + 1,
    symbol: `A${i}-USDC`,
    asset: `A${i}`,
    strategy: 'index-peg',
    catalogueQuery: undefined,
    readsStatistics: opts.readsStatistics?.(i + 1) ?? true,
  }))
  const stats: StatisticsItem[] = instruments.map((i) => ({
    instrument_id: i.id,
    symbol: i.symbol,
    volume: '1',
    open_price: '1',
    klines: Array.from({ length: 300 }, (_, k) => kline(k)),
  }))
  const positions: Portfolio['positions'] = []
  const perps = {
    getTickers: vi.fn(async () =>
      instruments.map((i) => ({
        instrument_id: i.id,
        symbol: i.symbol,
        index_price: '1',
        mark_price: '1.01',
        last_price: '1',
        mid_price: '1',
        open_interest: '0',
        funding_rate: '0',
        next_funding: 0,
      })),
    ),
    // As the client does with `newestKlines`: only the newest klines of each row.
    getStatistics: vi.fn(async (_p?: unknown, o?: { newestKlines?: number | undefined }) =>
      stats.map((r) => ({
        ...r,
        klines: o?.newestKlines === 0 ? [] : r.klines.slice(-(o?.newestKlines ?? 0)),
      })),
    ),
    getPortfolio: vi.fn(async () => ({
      positions: positions.slice(),
      margin: {
        total_account_value: '1',
        total_initial_margin: '0',
        total_maintenance_margin: '0',
        total_position_value: '0',
      },
      withdrawable: '1',
      in_liquidation: false,
      timestamp: 0,
    })),
    getOpenOrders: vi.fn(async () => []),
  } as unknown as PerpsClient
  const clock = new SimulatedClock()
  const changes = opts.changes
    ? botChangeFilter(() => clock.now(), { staleIndexMs: 15_000, staleMarginMs: 30_000 })
    : undefined
  const restarted = createSignal<number>()
  // The recorder stands in for the actors' routing.
  const route = (ids: readonly number[] | undefined, event: InstrumentEvent): void =>
    void sent.push({ ids, event: event as (typeof sent)[number]['event'] })
  const feeds = startPollers({
    perps,
    catalogue: {} as CatalogueClient,
    clock,
    venueClock: new OffsetClock(clock),
    logger: createLogger({ pretty: 'never', destination: { write: (l: string) => void logs.push(l) } }),
    actors: { route, instruments, restarted, joined: opts.joined },
    openOrders: createOpenOrderBook({ perps, clock, instrumentIds: instruments.map((i) => i.id) }),
    account: { observePortfolio: () => undefined, observeClockSkew: () => undefined },
    health: createPollerHealth(),
    polling: PollingSettings.parse({}),
    indexWeightPerMinute: opts.indexWeightPerMinute ?? 255,
    klinesKept: opts.klinesKept,
    staleIndexMs: 15_000,
    staleStatisticsMs: 180_000,
    changes,
  })
  return { feeds, sent, logs, perps, instruments, stats, clock, changes, positions, restarted }
}

/** The shape of the harness's instruments (for the `joined` signal's type). */
const instrumentsType: {
  id: number
  symbol: string
  asset: string
  strategy: string
  catalogueQuery: undefined
  readsStatistics: boolean
}[] = []

describe('feeds', () => {
  it('routes statistics to every instrument with only the newest klines', async () => {
    const { feeds, sent } = setup({ assets: 25, klinesKept: 120 })
    await vi.waitFor(() => expect(sent.filter((s) => s.event.type === 'STATISTICS')).toHaveLength(25))
    const st = sent.filter((s) => s.event.type === 'STATISTICS')
    expect(st.map((s) => s.ids?.[0])).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    const klines = st[0]?.event.statistics?.klines as Kline[]
    expect(klines).toHaveLength(120)
    expect(klines[0]?.[0]).toBe(180 * 60_000)
    await feeds.stop()
  })

  it('reads and routes statistics only for the instruments whose strategy reads them', async () => {
    const { feeds, sent, perps } = setup({ assets: 10, klinesKept: 5, readsStatistics: (id) => id % 2 === 0 })
    await vi.waitFor(() => expect(sent.filter((s) => s.event.type === 'STATISTICS')).toHaveLength(5))
    expect(sent.filter((s) => s.event.type === 'STATISTICS').map((s) => s.ids?.[0])).toEqual([2, 4, 6, 8, 10])
    await feeds.stop()
    const none = setup({ assets: 10, klinesKept: 5, readsStatistics: () => false })
    await vi.waitFor(() => expect(none.sent.filter((s) => s.event.type === 'INDEX')).toHaveLength(10))
    expect(none.perps.getStatistics).not.toHaveBeenCalled()
    expect(perps.getStatistics).toHaveBeenCalled()
    await none.feeds.stop()
  })

  it('warns at startup when index polling cannot keep inputs fresh', async () => {
    const few = setup({ assets: 3, klinesKept: 0 })
    // One tickers read serves every asset: only a budget too small for even that one read warns.
    const many = setup({ assets: 40, klinesKept: 0 })
    const starved = setup({ assets: 40, klinesKept: 0, indexWeightPerMinute: 4 })
    expect(few.logs.some((l) => l.includes('longer than quoting.staleIndexMs'))).toBe(false)
    expect(many.logs.some((l) => l.includes('longer than quoting.staleIndexMs'))).toBe(false)
    expect(starved.logs.some((l) => l.includes('longer than quoting.staleIndexMs'))).toBe(true)
    await Promise.all([few.feeds.stop(), many.feeds.stop(), starved.feeds.stop()])
  })

  it('routes index and mark of every instrument from one tickers read', async () => {
    const { feeds, sent, perps } = setup({ assets: 40, klinesKept: 0 })
    await vi.waitFor(() => expect(sent.filter((s) => s.event.type === 'INDEX')).toHaveLength(40))
    expect(perps.getTickers).toHaveBeenCalledTimes(1)
    const first = sent.find((s) => s.event.type === 'INDEX')?.event as unknown as {
      index: { price: string; mark: string }
    }
    expect(first.index).toMatchObject({ price: '1', mark: '1.01' })
    await feeds.stop()
  })

  it('an instrument a reload adds is read at once, its statistics poller started for it', async () => {
    const joined = createSignal<(typeof instrumentsType)[number]>()
    const t = setup({ assets: 2, klinesKept: 5, readsStatistics: () => false, joined })
    await vi.waitFor(() => expect(t.sent.filter((s) => s.event.type === 'INDEX')).toHaveLength(2))
    expect(t.perps.getStatistics).not.toHaveBeenCalled()
    const added = {
      ...instrumentsType[0],
      id: 3,
      symbol: 'A2-USDC',
      asset: 'A2',
      strategy: 'vol-spread',
      catalogueQuery: undefined,
      readsStatistics: true,
    }
    t.instruments.push(added)
    t.stats.push({ instrument_id: 3, symbol: 'A2-USDC', volume: '1', open_price: '1', klines: [kline(1)] })
    joined.emit(added)
    // Read now, not at the next interval: the triggers are due at once (a step of 0 ms).
    t.clock.increment(0)
    await vi.waitFor(() => {
      expect(t.sent.filter((s) => s.event.type === 'STATISTICS').map((s) => s.ids)).toEqual([[3]])
      expect(t.sent.filter((s) => s.event.type === 'INDEX' && s.ids?.[0] === 3)).toHaveLength(1)
      expect(t.sent.filter((s) => s.event.type === 'ACCOUNT' && s.ids?.[0] === 3)).toHaveLength(1)
    })
    await t.feeds.stop()
  })

  it('through the change filter, an unchanged polled portfolio renews the margin age without events', async () => {
    const t = setup({ assets: 3, klinesKept: 0, readsStatistics: () => false, changes: true })
    const accounts = () => t.sent.filter((s) => s.event.type === 'ACCOUNT').map((s) => s.ids?.[0])
    await vi.waitFor(() => expect(accounts()).toEqual([1, 2, 3]))
    // Time moves on (half a second per look) until the next reads.
    const stepUntil = (check: () => void) =>
      vi.waitFor(() => {
        t.clock.increment(500)
        check()
      })
    // The next read, the same portfolio: no event, the age renewed where the actors read it.
    await stepUntil(() => expect(t.changes?.seenAt('margin', 2)).toBeGreaterThanOrEqual(3_000))
    expect(vi.mocked(t.perps.getPortfolio).mock.calls.length).toBeGreaterThanOrEqual(2)
    expect(accounts()).toEqual([1, 2, 3])
    // A position opens on instrument 2: only its actor hears of it.
    t.positions.push({
      instrument_id: 2,
      symbol: 'A1-USDC',
      size: '1',
      entry_price: '1',
      leverage: 1,
      cross: true,
      initial_margin: '0.1',
      maintenance_margin: '0.05',
      position_value: '1',
      liquidation_price: '0.5',
      unrealized_pnl: '0',
      return_on_equity: '0',
      cumulative_funding: '0',
    })
    await stepUntil(() => expect(accounts()).toEqual([1, 2, 3, 2]))
    // A restarted actor lost its inputs: the reads it triggers route them to it as new.
    t.restarted.emit(1)
    await stepUntil(() => expect(accounts()).toEqual([1, 2, 3, 2, 1]))
    await t.feeds.stop()
  })
})
