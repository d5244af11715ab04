/** The liquidation watch (pure): which portfolios make the account read its fills over REST at once. */
import { describe, expect, it } from 'vitest'
import { LiquidationWatch, type WatchedPortfolio } from '../../../src/bot/account/liquidationWatch.ts'

const p = (
  positions: Record<number, string>,
  o: { liq?: boolean; value?: string } = {},
): WatchedPortfolio => ({
  in_liquidation: o.liq ?? false,
  margin: { total_account_value: o.value ?? '1000' },
  positions: Object.entries(positions).map(([iid, size]) => ({ instrument_id: Number(iid), size })),
})

describe('LiquidationWatch', () => {
  it('reads while the venue flags the account in liquidation (at most once a second) and once when it ends', () => {
    const w = new LiquidationWatch()
    expect(w.observePortfolio(p({ 1: '3' }), 0)).toBeUndefined()
    expect(w.observePortfolio(p({ 1: '3' }, { liq: true }), 1_000)).toBe('in liquidation')
    expect(w.observePortfolio(p({ 1: '3' }, { liq: true }), 1_500)).toBeUndefined()
    expect(w.observePortfolio(p({ 1: '2.25' }, { liq: true }), 2_000)).toBe('in liquidation')
    expect(w.observePortfolio(p({ 1: '1.7' }), 3_000)).toBe('liquidation ended')
    expect(w.observePortfolio(p({ 1: '1.7' }), 4_000)).toBeUndefined()
  })

  it('reads when a position moved with no fill of ours on that instrument, once a later portfolio still has none', () => {
    const w = new LiquidationWatch()
    w.observePortfolio(p({ 1: '1', 2: '-2' }), 0)
    w.observeFill(1)
    expect(w.observePortfolio(p({ 1: '1.5', 2: '-2' }), 1_000)).toBeUndefined()
    // Instrument 2 closed by the venue (a liquidation whose flag fell between two reads)...
    expect(w.observePortfolio(p({ 1: '1.5' }), 2_000)).toBeUndefined()
    // ...and no fill of ours explains it by a later portfolio a second on.
    expect(w.observePortfolio(p({ 1: '1.5' }), 2_500)).toBeUndefined()
    expect(w.observePortfolio(p({ 1: '1.5' }), 3_000)).toBe('position moved without our fills')
    expect(w.observePortfolio(p({ 1: '1.5' }), 4_000)).toBeUndefined()
  })

  it('a fill push that trails the portfolio showing it asks for no read', () => {
    const w = new LiquidationWatch()
    w.observePortfolio(p({ 1: '1' }), 0)
    expect(w.observePortfolio(p({ 1: '1.2' }), 1_000)).toBeUndefined()
    w.observeFill(1)
    expect(w.observePortfolio(p({ 1: '1.2' }), 3_000)).toBeUndefined()
    expect(w.observePortfolio(p({ 1: '1.2' }), 6_000)).toBeUndefined()
  })

  it('reads once when the account value falls to zero (margin exhausted)', () => {
    const w = new LiquidationWatch()
    w.observePortfolio(p({}), 0)
    expect(w.observePortfolio(p({}, { value: '0' }), 1_000)).toBe('margin exhausted')
    expect(w.observePortfolio(p({}, { value: '0' }), 2_000)).toBeUndefined()
    expect(w.observePortfolio(p({}, { value: '10' }), 3_000)).toBeUndefined()
    expect(w.observePortfolio(p({}, { value: '-1' }), 4_000)).toBe('margin exhausted')
  })
})
