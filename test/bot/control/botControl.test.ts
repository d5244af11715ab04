/**
 * The control part with real holds and protections (no bot): pause and resume per instrument and for
 * all, idempotent; resume lifting a breach and saying when a notional cap halts again at once; every
 * command journaled as an info alert with where it came from; reload unavailable without a source.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../src/alerts/alert.ts'
import { createBotControl } from '../../../src/bot/control/botControl.ts'
import { createHolds } from '../../../src/bot/control/holds.ts'
import { createProtections } from '../../../src/bot/control/protections.ts'
import type { InstrumentEvent } from '../../../src/bot/instrument/instrument.machine.ts'
import { createSignal } from '../../../src/bot/shared/signal.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { PnlSnapshot } from '../../../src/pnlTypes.ts'
import { ProtectionSettings } from '../../../src/settings/protectionSettings.ts'
import { Settings } from '../../../src/settings/schema.ts'

function setup(configSource?: Parameters<typeof createBotControl>[0]['configSource']) {
  const clock = new SimulatedClock()
  clock.set(Date.UTC(2026, 11, 6, 12))
  const log = createLogger({ destination: { write: () => undefined }, pretty: 'never' })
  const instruments = [
    { id: 1, symbol: 'BTC-USDC', quoteAsset: 'USDC', strategy: 'index-peg', readsStatistics: false },
    { id: 2, symbol: 'ETH-USDC', quoteAsset: 'USDC', strategy: 'index-peg', readsStatistics: false },
  ]
  const routed: InstrumentEvent[] = []
  const reconfigured: number[] = []
  const actors = {
    instruments,
    restarted: createSignal<number>(),
    route: (_ids: readonly number[] | undefined, e: InstrumentEvent) => void routed.push(e),
    reconfigure: (id: number) => void reconfigured.push(id),
  }
  const holds = createHolds({ actors })
  const alerts: Alert[] = []
  const pnl = (): PnlSnapshot => {
    const line = {
      fills: 0,
      makerFills: 0,
      liquidationFills: 0,
      volume: '0',
      realizedPnl: '0',
      fees: '0',
      funding: '0',
      position: '0.2',
      entryPrice: undefined,
      unrealizedPnl: '0',
      openingPosition: '0',
      openingUnrealizedPnl: '0',
      inventoryPnl: '0',
      netPnl: '0',
      lastFillAt: undefined,
    }
    const { position: _p, entryPrice: _e, lastFillAt: _l, openingPosition: _o, ...account } = line
    return { instruments: { 1: line }, account: { ...account, makerShare: undefined } }
  }
  const protections = createProtections({
    settings: { protections: ProtectionSettings.parse({ maxInstrumentNotional: { 'BTC-USDC': 5000 } }) },
    clock,
    logger: log,
    alerts: { send: (a) => void alerts.push(a) },
    holds,
    account: { pnl },
    instruments,
    mark: () => '50000',
    flattener: { flatten: async () => [] },
    poll: false,
  })
  const cancels: (number | undefined)[] = []
  const control = createBotControl({
    settings: Settings.parse({ instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg' }] }),
    clock,
    log,
    alerts: { send: (a) => void alerts.push(a) },
    holds,
    protections,
    flattener: { flatten: async () => [] },
    orders: { gateway: { cancelAll: async (id) => void cancels.push(id) } },
    actors,
    strategies: [],
    configSource,
    admission: { admit: async () => [] },
  })
  return { control, holds, protections, alerts, routed, cancels, reconfigured }
}

const from = 'cli 127.0.0.1'

describe('the control part', () => {
  it('pauses and resumes, idempotently, and journals each command with where it came from', async () => {
    const t = setup()
    expect(await t.control.run({ command: 'pause', instrument: 'ETH-USDC', from })).toMatchObject({
      ok: true,
      changed: true,
      message: 'paused ETH-USDC: orders cancelled, no quotes until resume',
    })
    expect(await t.control.run({ command: 'pause', instrument: 'ETH-USDC', from })).toMatchObject({
      changed: false,
    })
    expect(t.routed).toEqual([{ type: 'HOLD', reason: 'paused by the operator' }])
    expect(await t.control.run({ command: 'pause', instrument: 'XRP-USDC', from })).toMatchObject({
      ok: false,
    })
    expect(await t.control.run({ command: 'resume', from })).toMatchObject({
      changed: true,
      message: 'resumed every instrument',
    })
    expect(await t.control.run({ command: 'cancel-all', from: 'telegram chat 42' })).toMatchObject({
      ok: true,
    })
    expect(t.cancels).toEqual([undefined])
    expect(await t.control.run({ command: 'reload', from })).toMatchObject({
      ok: false,
      message: 'reload is not available in this process',
    })
    expect(t.alerts.map((a) => [a.severity, a.title])).toEqual([
      ['info', 'Operator pause ETH-USDC (from cli 127.0.0.1)'],
      ['info', 'Operator pause ETH-USDC (from cli 127.0.0.1)'],
      ['info', 'Operator pause XRP-USDC (from cli 127.0.0.1)'],
      ['info', 'Operator resume (from cli 127.0.0.1)'],
      ['info', 'Operator cancel-all (from telegram chat 42)'],
      ['info', 'Operator reload (from cli 127.0.0.1)'],
    ])
  })

  it('resume lifts a breach and says when the notional cap halts again at once', async () => {
    const t = setup()
    expect(t.protections.check().map((b) => b.limit)).toEqual(['maxInstrumentNotional'])
    expect(t.holds.isHeld(1, 'protection')).toBe(true)
    const r = await t.control.run({ command: 'resume', from })
    expect(r.message).toBe('lifted protection halt(s): maxInstrumentNotional')
    expect(r.lines?.[0]).toBe(
      'halted again: BTC-USDC notional 10000 USDC (position 0.2 × mark 50000) exceeds protections.maxInstrumentNotional 5000 USDC (flatten, or raise the cap and restart)',
    )
    expect(t.holds.isHeld(1, 'protection')).toBe(true)
  })

  it('reload takes new protection limits and halts the instruments gone from the file', async () => {
    const settings = Settings.parse({
      instruments: [{ symbol: 'SOL-USDC', strategy: 'index-peg' }],
      protections: { maxDailyLoss: 10 },
    })
    const t = setup({ read: async () => ({ settings, strategies: [] }) })
    const r = await t.control.run({ command: 'reload', from })
    expect(r).toMatchObject({ ok: true, changed: true, message: 'configuration reloaded (0 instrument(s))' })
    expect(r.lines).toEqual([
      'BTC-USDC: removed: halted, orders cancelled',
      'ETH-USDC: removed: halted, orders cancelled',
      'protections: the new limits apply from the next check (active halts stay until resume)',
    ])
    expect(t.protections.view().limits.maxDailyLoss).toBe('10')
    expect((await t.control.run({ command: 'reload', from })).changed).toBe(false)
  })
})
