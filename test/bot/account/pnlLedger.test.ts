import { describe, expect, it } from 'vitest'
import { type LedgerFill, PnlLedger } from '../../../src/bot/account/pnlLedger.ts'

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
