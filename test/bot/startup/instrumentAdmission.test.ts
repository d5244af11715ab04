/**
 * Admission of instruments a reload adds (the actors faked): one the venue does not list, one already
 * traded, one with no room under the account's open-order cap, one whose leverage the venue refuses:
 * each gets a line and changes nothing; the rest start, trimmed to the room left when the cap says so,
 * with their configured leverage applied first.
 */
import { describe, expect, it } from 'vitest'
import type { AddedInstrument } from '../../../src/bot/actors/instrumentActors.ts'
import type { RunningSlots } from '../../../src/bot/quoting/orderSlots.ts'
import { createInstrumentAdmission } from '../../../src/bot/startup/instrumentAdmission.ts'
import { RequestRejectedError } from '../../../src/errors.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import { DEFAULT_INSTRUMENTS, instrumentToWire } from '../../../src/mock/perps/instruments.ts'
import { Settings } from '../../../src/settings/schema.ts'
import { loadStrategies } from '../../../src/strategy/registry.ts'

const silent = createLogger({ destination: { write: () => undefined }, pretty: 'never' })
const listed = DEFAULT_INSTRUMENTS.map(instrumentToWire)

async function setup(
  o: { cap?: number; refuseLeverage?: boolean; listFails?: boolean; euroQuoted?: string } = {},
) {
  const rows = listed.map((l) => (l.symbol === o.euroQuoted ? { ...l, quote_asset: 'EURC' } : l))
  const registry = await loadStrategies()
  const peg = registry.resolve('index-peg', { size: '0.01', positionCap: '0.2' })
  const instruments = [{ id: 1, symbol: 'BTC-USDC' }]
  const demands: RunningSlots[] = [
    { id: 1, symbol: 'BTC-USDC', wants: peg.maxOrders, venueMax: 0, share: undefined },
  ]
  const added: AddedInstrument[] = []
  const leverage: unknown[] = []
  const admission = createInstrumentAdmission({
    perps: {
      getInstruments: async () => {
        if (o.listFails) throw new Error('venue down')
        return rows
      },
      getAccountConfig: async () => [],
      updateLeverage: async (params) => {
        if (o.refuseLeverage) throw new RequestRejectedError('/v1/account/leverage', 422, 'invalid_leverage')
        leverage.push(params)
        return {
          status: 'ok',
          instrument_id: params.instrumentId,
          leverage: params.leverage,
          cross: params.cross,
        }
      },
    },
    actors: {
      instruments,
      add: (a) => {
        added.push(a)
        instruments.push({ id: a.listed.instrument_id, symbol: a.listed.symbol })
        demands.push({
          id: a.listed.instrument_id,
          symbol: a.listed.symbol,
          wants: a.strategy.maxOrders,
          venueMax: a.listed.max_order_count,
          share: a.share,
        })
        return 'added'
      },
      slotDemands: () => demands,
    },
    logger: silent,
  })
  const settings = (entries: { symbol: string; leverage?: number }[]) =>
    Settings.parse({
      instruments: entries.map((e) => ({ ...e, strategy: 'index-peg' })),
      quoting: { accountOpenOrderCap: o.cap ?? 1000 },
    })
  return { admission, peg, added, leverage, settings }
}

describe('instrument admission', () => {
  it('starts a listed instrument with its leverage; refuses an unknown and an already traded one', async () => {
    const t = await setup()
    const s = t.settings([
      { symbol: 'BTC-USDC' },
      { symbol: 'ETH-USDC', leverage: 3 },
      { symbol: 'DOGE-USDC' },
    ])
    const lines = await t.admission.admit(s, [
      { symbol: 'ETH-USDC', strategy: t.peg },
      { symbol: 'DOGE-USDC', strategy: t.peg },
      { symbol: 'BTC-USDC', strategy: t.peg },
    ])
    expect(lines.map((l) => [l.symbol, l.admitted])).toEqual([
      ['ETH-USDC', true],
      ['DOGE-USDC', false],
      ['BTC-USDC', false],
    ])
    expect(lines[0]?.line).toBe(
      "ETH-USDC: added: index-peg with the file's parameters, quoting once its inputs arrive",
    )
    expect(lines[1]?.line).toMatch(
      /^DOGE-USDC: not added: the venue does not list it \(it lists BTC-USDC, .*\); nothing changed$/,
    )
    expect(lines[2]?.line).toBe('BTC-USDC: already traded')
    expect(t.added.map((a) => [a.listed.symbol, a.share])).toEqual([['ETH-USDC', undefined]])
    expect(t.leverage).toEqual([expect.objectContaining({ instrumentId: 2, leverage: 3 })])
  })

  it('trims to the room the cap leaves, and refuses once there is none', async () => {
    const t = await setup({ cap: 5 })
    const s = t.settings([{ symbol: 'ETH-USDC' }, { symbol: 'SOL-USDC' }])
    const lines = await t.admission.admit(s, [
      { symbol: 'ETH-USDC', strategy: t.peg },
      { symbol: 'SOL-USDC', strategy: t.peg },
    ])
    // index-peg at its defaults rests 2 orders: BTC 2, ETH 2, SOL the 1 left.
    expect(t.peg.maxOrders).toBe(2)
    expect(lines.map((l) => l.admitted)).toEqual([true, true])
    expect(lines[1]?.line).toContain(
      'its ladder trimmed to 1 order(s): the running ladders rest up to 4 of the account',
    )
    expect(t.added.map((a) => a.share)).toEqual([undefined, 1])
    const more = await t.admission.admit(t.settings([{ symbol: 'NVDA-USDC' }]), [
      { symbol: 'NVDA-USDC', strategy: t.peg },
    ])
    expect(more[0]).toMatchObject({ admitted: false })
    expect(more[0]?.line).toMatch(
      /^NVDA-USDC: not added: the running ladders may rest 5 order\(s\), the account's cap is 5 .*; nothing changed$/,
    )
    expect(t.added).toHaveLength(2)
  })

  it('changes nothing when the venue refuses its leverage or cannot list its instruments', async () => {
    const t = await setup({ refuseLeverage: true })
    const s = t.settings([{ symbol: 'BTC-USDC' }, { symbol: 'ETH-USDC', leverage: 50 }])
    const [line] = await t.admission.admit(s, [{ symbol: 'ETH-USDC', strategy: t.peg }])
    expect(line?.admitted).toBe(false)
    expect(line?.line).toMatch(
      /^ETH-USDC: not added: its leverage could not be set \(instruments\[1\]\.leverage \/ marginMode: ETH-USDC: .* refused .*invalid_leverage\)\); nothing changed$/,
    )
    expect(t.added).toHaveLength(0)
    const down = await setup({ listFails: true })
    const [l2] = await down.admission.admit(s, [{ symbol: 'ETH-USDC', strategy: t.peg }])
    expect(l2?.line).toBe(
      "ETH-USDC: not added: the venue's instruments could not be read (Error: venue down); nothing changed",
    )
  })

  it('refuses an instrument quoted in another asset than the running ones (totals are one currency)', async () => {
    const t = await setup({ euroQuoted: 'ETH-USDC' })
    const s = t.settings([{ symbol: 'BTC-USDC' }, { symbol: 'ETH-USDC' }, { symbol: 'SOL-USDC' }])
    const lines = await t.admission.admit(s, [
      { symbol: 'ETH-USDC', strategy: t.peg },
      { symbol: 'SOL-USDC', strategy: t.peg },
    ])
    expect(lines.map((l) => l.admitted)).toEqual([false, true])
    expect(lines[0]?.line).toBe(
      'ETH-USDC: not added: it quotes in EURC, the running instruments in USDC (BTC-USDC); totals are summed in one currency; nothing changed',
    )
    expect(t.added.map((a) => a.listed.symbol)).toEqual(['SOL-USDC'])
  })
})
