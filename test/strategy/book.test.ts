import { describe, expect, it } from 'vitest'
import { behindBookTicks, bookLimitTicks, freshBbo, keepBehindBook } from '../../src/strategy/book.ts'
import type { StrategyBbo } from '../../src/strategy/strategy.ts'
import { makeSnapshot, NOW } from './fixtures.ts'

const bbo = (bid: string | undefined, ask: string | undefined): StrategyBbo => ({
  bid: bid === undefined ? undefined : { price: bid, qty: '1' },
  ask: ask === undefined ? undefined : { price: ask, qty: '1' },
})

describe('freshBbo', () => {
  const snap = (age: number) => makeSnapshot({ bbo: { ...bbo('99', '101'), receivedAt: NOW - age } })

  it('is the snapshot BBO up to the age bound, and undefined past it', () => {
    expect(freshBbo(snap(5_000), 5_000)?.bid?.price).toBe('99')
    expect(freshBbo(snap(5_001), 5_000)).toBeUndefined()
  })

  it('takes any age when the bound is 0, and nothing without a BBO', () => {
    expect(freshBbo(snap(86_400_000), 0)?.ask?.price).toBe('101')
    expect(freshBbo(makeSnapshot(), 0)).toBeUndefined()
  })
})

describe('bookLimitTicks', () => {
  it('bids one tick below the ask, asks one tick above the bid', () => {
    expect(bookLimitTicks(bbo('99.5', '100.5'), 2)).toEqual({ maxBid: 10_049n, minAsk: 9_951n })
  })

  it('rounds a touch finer than the tick outward, so the limit stays strictly behind it', () => {
    // ask 100.505 at 2 decimals: 100.50 is already below it; bid 99.505: 99.51 is above it.
    expect(bookLimitTicks(bbo('99.505', '100.505'), 2)).toEqual({ maxBid: 10_050n, minAsk: 9_951n })
  })

  it('limits nothing on a missing side or without a BBO', () => {
    expect(bookLimitTicks(bbo(undefined, '100'), 0)).toEqual({ maxBid: 99n, minAsk: undefined })
    expect(bookLimitTicks(bbo('100', undefined), 0)).toEqual({ maxBid: undefined, minAsk: 101n })
    expect(bookLimitTicks(undefined, 2)).toEqual({ maxBid: undefined, minAsk: undefined })
  })
})

describe('behindBookTicks', () => {
  const limits = bookLimitTicks(bbo('99.5', '100.5'), 2)

  it('moves a bid at or above the best ask to one tick below it', () => {
    expect(behindBookTicks(10_050n, 'buy', limits, 2)).toBe(10_049n)
    expect(behindBookTicks(20_000n, 'buy', limits, 2)).toBe(10_049n)
    expect(behindBookTicks(10_049n, 'buy', limits, 2)).toBe(10_049n)
  })

  it('moves an ask at or below the best bid to one tick above it', () => {
    expect(behindBookTicks(9_950n, 'sell', limits, 2)).toBe(9_951n)
    expect(behindBookTicks(1n, 'sell', limits, 2)).toBe(9_951n)
    expect(behindBookTicks(9_951n, 'sell', limits, 2)).toBe(9_951n)
  })

  it('rounds a moved price to a valid one away from the book (5 figures; integers exempt)', () => {
    // ask 123456.7 (1 decimal): 123456.6 has 7 figures; the next valid price down is the integer 123456.
    const l = bookLimitTicks(bbo('123000', '123456.7'), 1)
    expect(behindBookTicks(1_300_000n, 'buy', l, 1)).toBe(1_234_560n)
    const l2 = bookLimitTicks(bbo('123456.7', '124000'), 1)
    expect(behindBookTicks(1_200_000n, 'sell', l2, 1)).toBe(1_234_570n)
    // 1.23456 at 5 decimals: a bid below an ask of 1.234567 must round down to 1.2345.
    const l3 = bookLimitTicks(bbo('1', '1.234567'), 6)
    expect(behindBookTicks(2_000_000n, 'buy', l3, 6)).toBe(1_234_500n)
  })

  it('gives 0 for a bid behind an ask of one tick (no valid bid)', () => {
    expect(behindBookTicks(5n, 'buy', bookLimitTicks(bbo(undefined, '0.01'), 2), 2)).toBe(0n)
  })
})

describe('keepBehindBook', () => {
  const quotes = [
    { side: 'buy' as const, price: '100', qty: '1', tag: 'bid-0' },
    { side: 'buy' as const, price: '98', qty: '2', tag: 'bid-1' },
    { side: 'sell' as const, price: '99', qty: '1', tag: 'ask-0' },
  ]

  it('moves only the crossing quotes, keeping sizes, tags and order', () => {
    expect(keepBehindBook(quotes, bbo('99.5', '99.8'), 2)).toEqual([
      { side: 'buy', price: '99.79', qty: '1', tag: 'bid-0' },
      { side: 'buy', price: '98', qty: '2', tag: 'bid-1' },
      { side: 'sell', price: '99.51', qty: '1', tag: 'ask-0' },
    ])
  })

  it('changes nothing without a BBO, and drops a bid with no positive price left', () => {
    expect(keepBehindBook(quotes, undefined, 2)).toEqual(quotes)
    expect(keepBehindBook(quotes, bbo(undefined, '1'), 0).map((q) => q.side)).toEqual(['sell'])
  })
})
