/**
 * The protections on the stepped clock: the pure rules (daily loss, drawdown, notional caps, a
 * cooldown after a realized loss, the next UTC day), and the part holding instruments halted,
 * alerting with the figures, flattening on a breach, resuming, and keeping a halt across a restart.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../src/alerts/alert.ts'
import type { StateStore } from '../../../src/bot/account/supervision/stateStore.ts'
import { createFlattener, flattenPrice } from '../../../src/bot/control/flatten.ts'
import { createHolds } from '../../../src/bot/control/holds.ts'
import {
  evaluateProtections,
  initialProtectionState,
  type ProtectionInputs,
  resumeProtections,
} from '../../../src/bot/control/protectionRules.ts'
import { createProtections } from '../../../src/bot/control/protections.ts'
import type { InstrumentEvent } from '../../../src/bot/instrument/instrument.machine.ts'
import { createSignal } from '../../../src/bot/shared/signal.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { CreateOrderInput } from '../../../src/perps/schemas/orders.ts'
import type { PnlSnapshot } from '../../../src/pnlTypes.ts'
import { ProtectionSettings } from '../../../src/settings/protectionSettings.ts'

const T0 = Date.UTC(2026, 11, 6, 22, 0, 0)
const cfg = (o: Record<string, unknown>) => ProtectionSettings.parse(o)
const inputs = (now: number, net: string, extra: Partial<ProtectionInputs> = {}): ProtectionInputs => ({
  now,
  netPnl: net,
  currency: 'USDC',
  instruments: [],
  ...extra,
})

describe('protection rules', () => {
  it('breaches the daily loss at its limit, once, with the figures', () => {
    const c = cfg({ maxDailyLoss: 100 })
    let s = evaluateProtections(initialProtectionState(), inputs(T0, '50'), c)
    expect(s.breached).toEqual([])
    s = evaluateProtections(s.state, inputs(T0 + 1_000, '-49.99'), c)
    expect(s.breached).toEqual([])
    s = evaluateProtections(s.state, inputs(T0 + 2_000, '-50'), c)
    expect(s.breached).toMatchObject([
      { limit: 'maxDailyLoss', value: '100', threshold: '100', until: undefined },
    ])
    expect(s.breached[0]?.message).toBe(
      "daily loss 100 USDC reached protections.maxDailyLoss 100 USDC (net PnL 50 USDC at the day's start, -50 USDC now)",
    )
    // Still breached: no second breach while the first holds.
    expect(evaluateProtections(s.state, inputs(T0 + 3_000, '-80'), c).breached).toEqual([])
  })

  it('counts the day from 00:00 UTC; with resume: next-utc-day the halt ends there', () => {
    const c = cfg({ maxDailyLoss: '10', resume: 'next-utc-day' })
    let s = evaluateProtections(initialProtectionState(), inputs(T0, '0'), c)
    s = evaluateProtections(s.state, inputs(T0 + 60_000, '-10'), c)
    const midnight = Date.UTC(2026, 11, 7)
    expect(s.breached[0]?.until).toBe(midnight)
    s = evaluateProtections(s.state, inputs(midnight - 1, '-15'), c)
    expect(s.state.breaches).toHaveLength(1)
    s = evaluateProtections(s.state, inputs(midnight, '-15'), c)
    expect(s.expired).toHaveLength(1)
    expect(s.state.breaches).toEqual([])
    // The new day starts at -15: a further loss of 9 is within the limit.
    expect(evaluateProtections(s.state, inputs(midnight + 1_000, '-24'), c).breached).toEqual([])
  })

  it('measures the drawdown from the highest net PnL', () => {
    const c = cfg({ maxDrawdown: '30' })
    let s = evaluateProtections(initialProtectionState(), inputs(T0, '0'), c)
    s = evaluateProtections(s.state, inputs(T0 + 1, '45'), c)
    s = evaluateProtections(s.state, inputs(T0 + 2, '16'), c)
    expect(s.figures.drawdown).toBe('29')
    expect(s.breached).toEqual([])
    s = evaluateProtections(s.state, inputs(T0 + 3, '15'), c)
    expect(s.breached).toMatchObject([{ limit: 'maxDrawdown', value: '30' }])
  })

  it('caps notional per instrument (one or per symbol) and for the account', () => {
    const c = cfg({ maxInstrumentNotional: { 'BTC-USDC': '5000' }, maxAccountNotional: 6000 })
    const inst = (btc: string, eth: string) => ({
      instruments: [
        { id: 1, symbol: 'BTC-USDC', position: btc, mark: '50000', realizedPnl: '0' },
        { id: 2, symbol: 'ETH-USDC', position: eth, mark: '2000', realizedPnl: '0' },
      ],
    })
    let s = evaluateProtections(initialProtectionState(), inputs(T0, '0', inst('0.1', '-0.5')), c)
    expect(s.figures).toMatchObject({ accountNotional: '6000', instrumentNotional: { 'BTC-USDC': '5000' } })
    expect(s.breached).toEqual([])
    s = evaluateProtections(s.state, inputs(T0 + 1, '0', inst('-0.11', '-0.5')), c)
    expect(s.breached.map((b) => [b.limit, b.symbol, b.value])).toEqual([
      ['maxInstrumentNotional', 'BTC-USDC', '5500'],
      ['maxAccountNotional', undefined, '6500'],
    ])
  })

  it('starts a cooldown when the realized PnL falls, and ends it', () => {
    const c = cfg({ cooldownAfterLossMs: 60_000 })
    const at = (realized: string) => ({
      instruments: [{ id: 1, symbol: 'BTC-USDC', position: '0', mark: '1', realizedPnl: realized }],
    })
    let s = evaluateProtections(initialProtectionState(), inputs(T0, '0', at('5')), c)
    s = evaluateProtections(s.state, inputs(T0 + 1_000, '0', at('7')), c)
    expect(s.cooldownsStarted).toEqual([])
    s = evaluateProtections(s.state, inputs(T0 + 2_000, '0', at('4.5')), c)
    expect(s.cooldownsStarted).toEqual([{ id: 1, symbol: 'BTC-USDC', loss: '2.5', until: T0 + 62_000 }])
    s = evaluateProtections(s.state, inputs(T0 + 61_999, '0', at('4.5')), c)
    expect(s.cooldownsEnded).toEqual([])
    s = evaluateProtections(s.state, inputs(T0 + 62_000, '0', at('4.5')), c)
    expect(s.cooldownsEnded).toEqual([1])
  })

  it('resume re-bases the daily loss and drawdown to now', () => {
    const c = cfg({ maxDailyLoss: '10' })
    let s = evaluateProtections(initialProtectionState(), inputs(T0, '0'), c)
    s = evaluateProtections(s.state, inputs(T0 + 1, '-12'), c)
    const r = resumeProtections(s.state, '-12')
    expect(r.resumed).toHaveLength(1)
    expect(evaluateProtections(r.state, inputs(T0 + 2, '-21'), c).breached).toEqual([])
    expect(evaluateProtections(r.state, inputs(T0 + 2, '-22'), c).breached).toHaveLength(1)
  })

  it('refuses bad amounts in the configuration', () => {
    expect(ProtectionSettings.safeParse({ maxDailyLoss: -5 }).success).toBe(false)
    expect(ProtectionSettings.safeParse({ maxDailyLoss: '1e3' }).success).toBe(false)
    expect(ProtectionSettings.safeParse({ maxDailyLoss: 0 }).success).toBe(false)
    expect(ProtectionSettings.parse({ maxDailyLoss: 250.5 }).maxDailyLoss).toBe('250.5')
  })

  it('bounds a flatten price through the mark, rounded inward to decimals and 5 figures', () => {
    expect(flattenPrice('50000', false, 50, 1)).toBe('49750')
    expect(flattenPrice('50000', true, 50, 1)).toBe('50250')
    expect(flattenPrice('137.03', false, 50, 3)).toBe('136.35')
    expect(flattenPrice('137.03', true, 50, 3)).toBe('137.71')
  })
})

function bot(settings: Record<string, unknown>, o: { store?: StateStore } = {}) {
  const clock = new SimulatedClock()
  clock.set(T0)
  const logger = createLogger({ destination: { write: () => undefined }, pretty: 'never' })
  const routed: { ids: readonly number[] | undefined; event: InstrumentEvent }[] = []
  const actors = {
    instruments: [
      { id: 1, symbol: 'BTC-USDC' },
      { id: 2, symbol: 'ETH-USDC' },
    ],
    restarted: createSignal<number>(),
    route: (ids: readonly number[] | undefined, event: InstrumentEvent) => void routed.push({ ids, event }),
  }
  const holds = createHolds({ actors })
  const alerts: Alert[] = []
  let net = '0'
  const positions: Record<number, string> = { 1: '0.2', 2: '0' }
  const realized: Record<number, string> = { 1: '0', 2: '0' }
  const pnl = (): PnlSnapshot => {
    const line = (position: string, realizedPnl = '0') => ({
      fills: 0,
      makerFills: 0,
      liquidationFills: 0,
      volume: '0',
      realizedPnl,
      fees: '0',
      funding: '0',
      position,
      entryPrice: undefined,
      unrealizedPnl: '0',
      openingPosition: '0',
      openingUnrealizedPnl: '0',
      inventoryPnl: '0',
      netPnl: '0',
      lastFillAt: undefined,
    })
    const { position: _p, entryPrice: _e, lastFillAt: _l, openingPosition: _o, ...account } = line('0')
    return {
      instruments: { 1: line(positions[1] ?? '0', realized[1]), 2: line(positions[2] ?? '0', realized[2]) },
      account: { ...account, netPnl: net, makerShare: undefined },
    }
  }
  const sent: CreateOrderInput[][] = []
  const instruments = [
    { id: 1, symbol: 'BTC-USDC', quoteAsset: 'USDC', priceDecimals: 1 },
    { id: 2, symbol: 'ETH-USDC', quoteAsset: 'USDC', priceDecimals: 2 },
  ]
  const flattener = createFlattener({
    perps: {
      createOrders: async (orders) => {
        sent.push([...orders])
        return orders.map((_, k) => ({ status: 'ok' as const, oid: 900 + k }))
      },
    },
    instruments,
    position: (id) => positions[id],
    mark: (id) => (id === 1 ? '50000' : '2000'),
    slippageBps: 50,
    logger,
  })
  const protections = createProtections({
    settings: { protections: ProtectionSettings.parse(settings) },
    clock,
    logger,
    alerts: { send: (a) => void alerts.push(a) },
    holds,
    account: { pnl },
    instruments,
    mark: (id) => (id === 1 ? '50000' : '2000'),
    flattener,
    store: o.store,
    storeName: 'protections-test',
  })
  /** Moves the clock a second at a time, letting the poller's promises settle at each. */
  const tick = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 1_000) {
      clock.increment(Math.min(1_000, ms - t))
      for (let k = 0; k < 5; k++) await Promise.resolve()
    }
  }
  return {
    tick,
    clock,
    holds,
    alerts,
    routed,
    sent,
    protections,
    setNet: (v: string) => {
      net = v
    },
    setRealized: (id: number, v: string) => {
      realized[id] = v
    },
    held: () => routed.filter((r) => r.event.type === 'HOLD'),
  }
}

function memoryStore(): StateStore {
  const m = new Map<string, unknown>()
  return {
    read: (n) => {
      const v = m.get(n)
      return v === undefined ? undefined : JSON.parse(JSON.stringify(v))
    },
    write: (n, v) => void m.set(n, v),
  }
}

describe('the protections part on the stepped clock', () => {
  it('halts every instrument on a daily loss, alerts critical with the figures, and resumes', async () => {
    const b = bot({ maxDailyLoss: 100 })
    await b.tick(1_000)
    b.setNet('-99')
    await b.tick(1_000)
    expect(b.alerts).toEqual([])
    b.setNet('-100.5')
    await b.tick(1_000)
    expect(b.alerts).toHaveLength(1)
    expect(b.alerts[0]).toMatchObject({
      severity: 'critical',
      title: 'Protection maxDailyLoss breached: every instrument halted',
      details: { limit: 'maxDailyLoss', value: '100.5', threshold: '100', currency: 'USDC' },
    })
    expect(b.alerts[0]?.message).toContain('halted until `perpbot resume`')
    expect(b.holds.snapshot().map((h) => h.symbol)).toEqual(['BTC-USDC', 'ETH-USDC'])
    expect(b.held().map((r) => r.event)).toEqual([
      { type: 'HOLD', reason: 'halted by protections.maxDailyLoss until perpbot resume' },
      { type: 'HOLD', reason: 'halted by protections.maxDailyLoss until perpbot resume' },
    ])
    // Held until resumed, however long.
    await b.tick(3_600_000)
    expect(b.holds.snapshot()).toHaveLength(2)
    expect(b.protections.resume().map((x) => x.limit)).toEqual(['maxDailyLoss'])
    expect(b.holds.snapshot()).toEqual([])
    expect(b.alerts.at(-1)).toMatchObject({ resolved: true, title: 'Protection maxDailyLoss — resumed' })
    expect(b.protections.resume()).toEqual([])
    expect(b.protections.history()).toHaveLength(1)
  })

  it('halts only the instrument over its notional cap, and flattens it with a bounded reduce-only IOC', async () => {
    const b = bot({ maxInstrumentNotional: '9000', flattenOnBreach: true })
    await b.tick(1_000)
    await Promise.resolve()
    expect(b.holds.snapshot().map((h) => h.symbol)).toEqual(['BTC-USDC'])
    expect(b.sent).toEqual([
      [{ iid: 1, buy: false, qty: '0.2', p: '49750', tif: 'ioc', ro: true, po: false, coid: undefined }],
    ])
    await Promise.resolve()
    expect(b.alerts.map((a) => a.title)).toEqual([
      'Protection maxInstrumentNotional breached: BTC-USDC halted',
      'Protection flatten (maxInstrumentNotional)',
    ])
    expect(b.alerts[1]?.message).toBe(
      'BTC-USDC: sent, sell 0.2 reduce-only IOC, limit 49750 (what the book does not fill at the limit is cancelled: see the fills)',
    )
  })

  it("keeps a halt across a restart (a live run's store)", async () => {
    const store = memoryStore()
    const first = bot({ maxDrawdown: 10 }, { store })
    await first.tick(1_000)
    first.setNet('-10')
    await first.tick(1_000)
    expect(first.holds.snapshot()).toHaveLength(2)
    await first.protections.stop()
    const second = bot({ maxDrawdown: 10 }, { store })
    expect(second.holds.snapshot()).toHaveLength(2)
    expect(second.protections.view().breaches.map((x) => x.limit)).toEqual(['maxDrawdown'])
    await second.protections.stop()
  })

  it('cools an instrument down after a loss and lets it quote again', async () => {
    const b = bot({ cooldownAfterLossMs: 30_000 })
    await b.tick(1_000)
    b.setRealized(2, '-3.5')
    await b.tick(1_000)
    expect(b.holds.snapshot()).toEqual([
      {
        id: 2,
        symbol: 'ETH-USDC',
        reasons: [{ source: 'cooldown', reason: 'cooling down after a realized loss of 3.5 USDC' }],
      },
    ])
    await b.tick(29_000)
    expect(b.holds.snapshot()).toHaveLength(1)
    await b.tick(1_000)
    expect(b.holds.snapshot()).toEqual([])
    expect(b.held().map((r) => r.event)).toEqual([
      { type: 'HOLD', reason: 'cooling down after a realized loss of 3.5 USDC' },
      { type: 'HOLD', reason: undefined },
    ])
    expect(b.alerts).toEqual([])
    await b.protections.stop()
  })
})
