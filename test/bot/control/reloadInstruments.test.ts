/**
 * `reload` with instruments added and removed, on the stepped clock with the real holds, protections
 * and control parts (the actors and the admission faked): an admitted instrument is started with the
 * file's strategy and held at once by a pause of every instrument and an account-wide protection
 * halt that stand; a refused one changes nothing; a strategy left as it was is not re-applied, so the
 * same file twice changes nothing.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../src/alerts/alert.ts'
import type { ResolvedInstrumentConfig } from '../../../src/bot/actors/instrumentActors.ts'
import { createBotControl } from '../../../src/bot/control/botControl.ts'
import { createHolds } from '../../../src/bot/control/holds.ts'
import { createProtections } from '../../../src/bot/control/protections.ts'
import type { InstrumentAdmitter } from '../../../src/bot/control/reloadConfig.ts'
import type { InstrumentEvent } from '../../../src/bot/instrument/instrument.machine.ts'
import { createSignal } from '../../../src/bot/shared/signal.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { PnlSnapshot } from '../../../src/pnlTypes.ts'
import { Settings } from '../../../src/settings/schema.ts'
import { loadStrategies } from '../../../src/strategy/registry.ts'

const from = 'dashboard 127.0.0.1'
const silent = createLogger({ destination: { write: () => undefined }, pretty: 'never' })

interface Traded {
  id: number
  symbol: string
  quoteAsset: string
}

async function setup(o: { net?: () => string; positions?: Record<number, string> } = {}) {
  const clock = new SimulatedClock()
  clock.set(Date.UTC(2026, 11, 6, 12))
  const registry = await loadStrategies()
  const peg = registry.resolve('index-peg', { size: '0.01', positionCap: '0.2' })
  const vol = registry.resolve('vol-spread', { size: '0.2', positionCap: '4' })
  const settings = Settings.parse({ instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg' }] })
  const instruments: Traded[] = [{ id: 1, symbol: 'BTC-USDC', quoteAsset: 'USDC' }]
  const joined = createSignal<Traded>()
  const routed: { ids: readonly number[] | undefined; event: InstrumentEvent }[] = []
  const reconfigured: [number, string][] = []
  const actors = {
    instruments,
    restarted: createSignal<number>(),
    joined,
    route: (ids: readonly number[] | undefined, event: InstrumentEvent) => void routed.push({ ids, event }),
    reconfigure: (id: number, s: { name: string }) => void reconfigured.push([id, s.name]),
  }
  const ids: Record<string, number> = { 'ETH-USDC': 2, 'SOL-USDC': 3 }
  const admitted: string[] = []
  const admission: InstrumentAdmitter = {
    admit: async (_settings, added) =>
      added.map((r) => {
        const id = ids[r.symbol]
        if (id === undefined)
          return {
            symbol: r.symbol,
            admitted: false,
            line: `${r.symbol}: not added: unknown; nothing changed`,
          }
        admitted.push(r.symbol)
        instruments.push({ id, symbol: r.symbol, quoteAsset: 'USDC' })
        joined.emit({ id, symbol: r.symbol, quoteAsset: 'USDC' })
        return { symbol: r.symbol, admitted: true, line: `${r.symbol}: added` }
      }),
  }
  const holds = createHolds({ actors })
  const alerts: Alert[] = []
  const zero = {
    fills: 0,
    makerFills: 0,
    liquidationFills: 0,
    volume: '0',
    realizedPnl: '0',
    fees: '0',
    funding: '0',
  }
  const line = (position: string) => ({
    ...zero,
    position,
    entryPrice: undefined,
    unrealizedPnl: '0',
    openingPosition: '0',
    openingUnrealizedPnl: '0',
    inventoryPnl: '0',
    netPnl: '0',
    lastFillAt: undefined,
  })
  const pnl = (): PnlSnapshot => ({
    instruments: Object.fromEntries(Object.entries(o.positions ?? {}).map(([id, p]) => [id, line(p)])),
    account: {
      ...zero,
      unrealizedPnl: '0',
      openingUnrealizedPnl: '0',
      inventoryPnl: '0',
      netPnl: o.net?.() ?? '0',
      makerShare: undefined,
    },
  })
  const protections = createProtections({
    settings,
    clock,
    logger: silent,
    alerts: { send: (a) => void alerts.push(a) },
    holds,
    account: { pnl },
    instruments,
    joined,
    mark: () => '100',
    flattener: { flatten: async () => [] },
    poll: false,
  })
  let file: ResolvedInstrumentConfig[] = [{ symbol: 'BTC-USDC', strategy: peg }]
  let fileSettings = settings
  const control = createBotControl({
    settings,
    clock,
    log: silent,
    alerts: { send: (a) => void alerts.push(a) },
    holds,
    protections,
    flattener: { flatten: async () => [] },
    orders: { gateway: { cancelAll: async () => undefined } },
    actors,
    strategies: [{ symbol: 'BTC-USDC', strategy: peg }],
    configSource: { read: async () => ({ settings: fileSettings, strategies: file }) },
    admission,
  })
  const reload = () => control.run({ command: 'reload', from })
  const setFile = (f: ResolvedInstrumentConfig[], s?: Record<string, unknown>): void => {
    file = f
    fileSettings = Settings.parse({
      instruments: f.map((x) => ({ symbol: x.symbol, strategy: x.strategy.name })),
      ...s,
    })
  }
  return {
    control,
    holds,
    protections,
    routed,
    reconfigured,
    admitted,
    alerts,
    peg,
    vol,
    setFile,
    reload,
    instruments,
  }
}

describe('reload: instruments added and removed', () => {
  it('starts the added ones, refuses the unknown, and is idempotent', async () => {
    const t = await setup()
    t.setFile([
      { symbol: 'BTC-USDC', strategy: t.peg },
      { symbol: 'ETH-USDC', strategy: t.vol },
      { symbol: 'DOGE-USDC', strategy: t.peg },
    ])
    const r = await t.reload()
    expect(r).toMatchObject({
      ok: false,
      changed: true,
      message: 'configuration reloaded (3 instrument(s)); 1 added instrument(s) not started',
    })
    expect(r.lines).toEqual([
      'BTC-USDC: unchanged',
      'ETH-USDC: added',
      'DOGE-USDC: not added: unknown; nothing changed',
    ])
    expect(t.reconfigured).toEqual([])
    expect(t.admitted).toEqual(['ETH-USDC'])

    const again = await t.reload()
    expect(again).toMatchObject({ ok: false, changed: false })
    expect(again.lines).toEqual([
      'BTC-USDC: unchanged',
      'ETH-USDC: unchanged',
      'DOGE-USDC: not added: unknown; nothing changed',
    ])
    expect(t.admitted).toEqual(['ETH-USDC'])

    // New parameters for one: applied to it alone.
    t.setFile([
      { symbol: 'BTC-USDC', strategy: t.vol },
      { symbol: 'ETH-USDC', strategy: t.vol },
    ])
    const changed = await t.reload()
    expect(changed.ok).toBe(true)
    expect(changed.lines).toEqual(["BTC-USDC: vol-spread with the file's parameters", 'ETH-USDC: unchanged'])
    expect(t.reconfigured).toEqual([[1, 'vol-spread']])
    expect(t.alerts.filter((a) => a.title === `Operator reload (from ${from})`)).toHaveLength(3)
  })

  it('removes one (held halted), brings it back, and holds an added one under a pause of every instrument', async () => {
    const t = await setup()
    t.setFile([{ symbol: 'ETH-USDC', strategy: t.peg }])
    expect((await t.reload()).lines).toEqual([
      'BTC-USDC: removed: halted, orders cancelled',
      'ETH-USDC: added',
    ])
    expect(t.holds.isHeld(1, 'removed')).toBe(true)
    expect(t.holds.isHeld(2)).toBe(false)

    await t.control.run({ command: 'pause', from })
    t.setFile([
      { symbol: 'BTC-USDC', strategy: t.peg },
      { symbol: 'ETH-USDC', strategy: t.peg },
      { symbol: 'SOL-USDC', strategy: t.peg },
    ])
    const back = await t.reload()
    expect(back.lines).toEqual([
      'BTC-USDC: back in the configuration: quoting again (unchanged)',
      'ETH-USDC: unchanged',
      'SOL-USDC: added',
    ])
    // The pause of every instrument stands: the added one is held from its first moment.
    expect(t.holds.isHeld(3, 'pause')).toBe(true)
    expect(t.routed.filter((r) => r.ids?.[0] === 3).map((r) => r.event)).toEqual([
      { type: 'HOLD', reason: 'paused by the operator' },
    ])
    await t.control.run({ command: 'resume', from })
    expect(t.holds.snapshot()).toEqual([])
  })

  it('an account-wide protection halt holds an added instrument at once', async () => {
    let net = '0'
    const t = await setup({ net: () => net })
    t.setFile([{ symbol: 'BTC-USDC', strategy: t.peg }], { protections: { maxDailyLoss: 10 } })
    await t.reload()
    t.protections.check()
    net = '-10'
    expect(t.protections.check().map((b) => b.limit)).toEqual(['maxDailyLoss'])
    expect(t.holds.isHeld(1, 'protection')).toBe(true)
    t.setFile(
      [
        { symbol: 'BTC-USDC', strategy: t.peg },
        { symbol: 'ETH-USDC', strategy: t.peg },
      ],
      { protections: { maxDailyLoss: 10 } },
    )
    expect((await t.reload()).lines).toContain('ETH-USDC: added')
    expect(t.holds.isHeld(2, 'protection')).toBe(true)
  })

  it("an added instrument's notional cap from the same file holds it alone", async () => {
    const t = await setup({ positions: { 2: '1' } })
    t.setFile(
      [
        { symbol: 'BTC-USDC', strategy: t.peg },
        { symbol: 'ETH-USDC', strategy: t.peg },
      ],
      { protections: { maxInstrumentNotional: { 'ETH-USDC': 50 } } },
    )
    expect((await t.reload()).lines).toEqual([
      'BTC-USDC: unchanged',
      'ETH-USDC: added',
      'protections: the new limits apply from the next check (active halts stay until resume)',
    ])
    // 1 ETH at the mark 100 is 100 USDC, over its cap of 50: it halts, BTC-USDC quotes on.
    expect(t.protections.check().map((b) => [b.limit, b.symbol])).toEqual([
      ['maxInstrumentNotional', 'ETH-USDC'],
    ])
    expect(t.holds.isHeld(2, 'protection')).toBe(true)
    expect(t.holds.isHeld(1)).toBe(false)
  })
})
