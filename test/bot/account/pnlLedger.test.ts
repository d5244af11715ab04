import { describe, expect, it } from 'vitest'
import {
  type LedgerFill,
  type LedgerPosition,
  PnlLedger,
  positionAfter,
} from '../../../src/bot/account/pnlLedger.ts'
import { addDecimal, subDecimal } from '../../../src/decimal.ts'
import { seededRandom } from '../../../src/random.ts'

const fill = (over: Partial<LedgerFill>): LedgerFill => ({
  tid: 1,
  oid: 10,
  iid: 1,
  side: 'long',
  p: '100.5',
  qty: '2',
  taker: false,
  fee: '-0.01',
  pnl: '0',
  ts: 1_000,
  ...over,
})

describe('PnL ledger', () => {
  it('sums fills exactly per instrument and for the account, once per trade', () => {
    const l = new PnlLedger()
    expect(l.applyFill(fill({}))).toBe(true)
    expect(l.applyFill(fill({}))).toBe(false) // the same trade from a later read
    l.applyFill(
      fill({
        tid: 2,
        side: 'short',
        p: '101.1',
        qty: '1',
        taker: true,
        fee: '0.0202',
        pnl: '0.6',
        ts: 2_000,
      }),
    )
    l.applyFill(fill({ tid: 3, iid: 2, p: '0.1', qty: '3', fee: '0.1', pnl: '-0.2', liq: true }))
    const s = l.snapshot()
    expect(s.instruments[1]).toMatchObject({
      fills: 2,
      makerFills: 1,
      volume: '302.1',
      realizedPnl: '0.6',
      fees: '0.0102',
      lastFillAt: 2_000,
    })
    expect(s.instruments[2]).toMatchObject({ fills: 1, liquidationFills: 1, volume: '0.3' })
    expect(s.account).toMatchObject({
      fills: 3,
      makerFills: 2,
      volume: '302.4',
      realizedPnl: '0.4',
      fees: '0.1102',
    })
    expect(s.account.makerShare).toBeCloseTo(2 / 3)
  })

  it('nets realized + unrealized − fees − funding, and flattens instruments the venue no longer lists', () => {
    const l = new PnlLedger()
    l.applyFill(fill({ pnl: '5', fee: '1' }))
    expect(l.applyFunding({ instrument_id: 1, funding: '0.5', timestamp: 3_600_000 })).toBe(true)
    expect(l.applyFunding({ instrument_id: 1, funding: '0.5', timestamp: 3_600_000 })).toBe(false)
    l.observePositions([{ instrument_id: 1, size: '-2', entry_price: '100', unrealized_pnl: '-1.25' }])
    expect(l.snapshot().instruments[1]).toMatchObject({
      position: '-2',
      entryPrice: '100',
      unrealizedPnl: '-1.25',
      funding: '0.5',
      netPnl: '2.25',
    })
    l.observePositions([], [1, 3])
    expect(l.snapshot().instruments[1]).toMatchObject({ position: '0', unrealizedPnl: '0', netPnl: '3.5' })
    expect(l.snapshot().instruments[3]).toMatchObject({ position: '0', fills: 0 })
    expect(l.snapshot().account.makerShare).toBe(1)
  })

  it('reports no maker share before any fill', () => {
    expect(new PnlLedger().snapshot().account.makerShare).toBeUndefined()
  })

  it('keeps the latest 50 fills, oldest first, without repeats', () => {
    const l = new PnlLedger()
    for (let k = 1; k <= 60; k++) l.applyFill(fill({ tid: k, ts: k }))
    l.applyFill(fill({ tid: 60, ts: 60 }))
    const recent = l.recentFills()
    expect(recent).toHaveLength(50)
    expect(recent[0]?.tid).toBe(11)
    expect(recent[49]?.tid).toBe(60)
  })
})

describe('PnL since start: the opening inventory', () => {
  const pos = (size: string, entry: string, upnl: string) => ({
    instrument_id: 1,
    size,
    entry_price: entry,
    unrealized_pnl: upnl,
  })

  it('a position held before the start shows net 0 at the start, not its history', () => {
    const l = new PnlLedger({ sinceStart: true })
    // 0.1 BTC bought at 53,000, marked 58,000 at the start: 500 unrealized that happened before us.
    l.observePositions([pos('0.1', '53000', '500')], [1])
    const s = l.snapshot()
    expect(s.account).toMatchObject({
      netPnl: '0',
      unrealizedPnl: '0',
      openingUnrealizedPnl: '500',
      fills: 0,
    })
    expect(s.instruments[1]).toMatchObject({ openingPosition: '0.1', position: '0.1', inventoryPnl: '0' })
  })

  it('its later change in value is shown apart, never in net (issue 33)', () => {
    const l = new PnlLedger({ sinceStart: true })
    l.observePositions([pos('0.1', '53000', '500')], [1])
    // The mark moves to 58,100: +10 on the opening inventory: holding, not trading.
    l.observePositions([pos('0.1', '53000', '510')], [1])
    expect(l.snapshot().account).toMatchObject({ netPnl: '0', unrealizedPnl: '10', inventoryPnl: '10' })
  })

  it('tells the opening inventory once, with its time; a stored one is carried instead', () => {
    const told: unknown[] = []
    const l = new PnlLedger({ sinceStart: true, onOpening: (o) => told.push(o), now: () => 1_000 })
    l.observePositions([pos('0.1', '53000', '500')], [1])
    l.observePositions([pos('0.1', '53000', '510')], [1])
    expect(told).toEqual([
      { at: 1_000, instruments: { 1: { size: '0.1', unrealized: '500', mark: '58000' } } },
    ])
    expect(l.snapshot().account.since).toBe(1_000)
    // A later start: history in the journal, the stored opening carried (not this start's positions).
    const again = new PnlLedger({
      sinceStart: true,
      onOpening: (o) => told.push(o),
      baseline: {
        instruments: {
          1: {
            fills: 1,
            makerFills: 1,
            liquidationFills: 0,
            volume: '1',
            realizedPnl: '0',
            fees: '0',
            funding: '0',
            lastFillAt: 1,
          },
        },
        recentFills: [],
        recentFunding: [],
        opening: { at: 1_000, instruments: { 1: { size: '0.1', unrealized: '500', mark: '58000' } } },
      },
    })
    again.observePositions([pos('0.1', '53000', '530')], [1])
    expect(told).toHaveLength(1)
    expect(again.snapshot().account).toMatchObject({ netPnl: '0', inventoryPnl: '30', since: 1_000 })
  })

  it('the fill line’s position is the one after the fill (the venue sends the one before)', () => {
    expect(positionAfter({ psz: '0.5', side: 'long', qty: '0.25' })).toBe('0.75')
    expect(positionAfter({ psz: '0.5', side: 'short', qty: '1' })).toBe('-0.5')
  })

  it('a fill whose ids a restarted venue reused (another time) is a new fill', () => {
    const l = new PnlLedger()
    expect(l.applyFill(fill({ ts: 1 }))).toBe(true)
    expect(l.applyFill(fill({ ts: 1 }))).toBe(false)
    expect(l.applyFill(fill({ ts: 2 }))).toBe(true)
  })

  it('closing the opening inventory nets only what accrued since the start', () => {
    const l = new PnlLedger({ sinceStart: true })
    l.observePositions([pos('0.1', '53000', '500')], [1])
    // Sold at 58,050: the venue realizes 505 against the entry; 5 of it is since the start.
    l.applyFill(fill({ side: 'short', p: '58050', qty: '0.1', pnl: '505', fee: '0' }))
    l.observePositions([], [1])
    // Flat: nothing unrealized; the 500 from before the start is inside the realized 505 (issue 33).
    expect(l.snapshot().account).toMatchObject({ netPnl: '5', realizedPnl: '505', unrealizedPnl: '0' })
  })

  it('a flat position the venue still lists (size 0) reads flat too: net counts the opening once', () => {
    const l = new PnlLedger({ sinceStart: true })
    l.observePositions([pos('0.1', '53000', '500')], [1])
    l.applyFill(fill({ side: 'short', p: '58050', qty: '0.1', pnl: '505', fee: '0' }))
    l.observePositions([pos('0', '0', '0')], [1])
    expect(l.snapshot().account).toMatchObject({ netPnl: '5', realizedPnl: '505', unrealizedPnl: '0' })
  })

  it('without sinceStart the venue unrealized PnL is reported as is', () => {
    const l = new PnlLedger()
    l.observePositions([pos('0.1', '53000', '500')], [1])
    expect(l.snapshot().account).toMatchObject({ netPnl: '500', unrealizedPnl: '500' })
  })

  it('keeps its snapshot between reads: the account is always the exact sum of the lines, read often or once', () => {
    const r = seededRandom(36)
    const often = new PnlLedger({ sinceStart: true, now: () => 1 })
    const once = new PnlLedger({ sinceStart: true, now: () => 1 })
    const held = new Map<number, LedgerPosition>()
    const amount = (): string => `${r.int(-300, 300) / 100}`
    for (let step = 0; step < 600; step++) {
      const iid = r.int(1, 12)
      const roll = r.next()
      const f = fill({ tid: step, iid, p: `${r.int(90, 110)}.5`, fee: amount(), pnl: amount(), ts: step })
      const funding = { instrument_id: iid, funding: amount(), timestamp: step }
      for (const l of [often, once]) {
        if (roll < 0.4) l.applyFill(f)
        else if (roll < 0.5) l.applyFunding(funding)
      }
      if (roll >= 0.5) {
        if (r.next() < 0.2) held.delete(iid)
        else
          held.set(iid, {
            instrument_id: iid,
            size: `${r.int(-3, 3)}`,
            entry_price: `${r.int(90, 110)}`,
            unrealized_pnl: amount(),
          })
        const positions = [...held.values()]
        often.observePositions(positions, [1, 2, 3])
        once.observePositions(positions, [1, 2, 3])
      }
      const s = often.snapshot()
      const lines = Object.values(s.instruments)
      for (const k of [
        'volume',
        'realizedPnl',
        'fees',
        'funding',
        'unrealizedPnl',
        'inventoryPnl',
        'netPnl',
      ] as const)
        expect(s.account[k]).toBe(lines.reduce((sum, line) => addDecimal(sum, line[k]), '0'))
      expect(s.account.fills).toBe(lines.reduce((n, line) => n + line.fills, 0))
      for (const line of lines) {
        const closed = line.position === '0' ? line.openingUnrealizedPnl : '0'
        const net = [line.inventoryPnl, line.fees, line.funding, closed].reduce(
          (x, y) => subDecimal(x, y),
          addDecimal(line.realizedPnl, line.unrealizedPnl),
        )
        expect(line.netPnl).toBe(net)
      }
    }
    expect(once.snapshot()).toEqual(often.snapshot())
  })
})
