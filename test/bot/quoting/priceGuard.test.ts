import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { OrderPlan } from '../../../src/bot/quoting/orderPlan.ts'
import {
  guardPlan,
  implausibleIndex,
  priceBand,
  screenIndex,
  withinFraction,
} from '../../../src/bot/quoting/priceGuard.ts'
import { compareDecimal, fromTicks } from '../../../src/decimal.ts'

const plan = (over: Partial<OrderPlan> = {}): OrderPlan => ({ modify: [], create: [], cancel: [], ...over })
const bid = (p: string) => ({ iid: 7, buy: true, p, qty: '0.01' })

describe('implausibleIndex', () => {
  it('accepts ordinary positive decimals', () => {
    for (const p of ['50000', '50000.5', '0.000123', '1', '999999999999999', '0.000000000000000001']) {
      expect(implausibleIndex(p)).toBeUndefined()
    }
  })
  it('rejects absurd digits, non-decimals and non-positive values, without echoing a huge value', () => {
    const forty = '1234567890123456789012345678901234567890'
    expect(implausibleIndex(forty)).toBe(
      'index 123456789012345678901234…(40 chars) has more than 15 integer digits',
    )
    expect(implausibleIndex('1000000000000000')).toMatch(/more than 15 integer digits/)
    expect(implausibleIndex('0.0000000000000000001')).toMatch(/more than 18 fraction digits/)
    expect(implausibleIndex('0')).toMatch(/not positive/)
    expect(implausibleIndex('-5')).toMatch(/not positive/)
    expect(implausibleIndex('1e5')).toMatch(/not a decimal price/)
    expect(implausibleIndex('NaN')).toMatch(/not a decimal price/)
    expect(implausibleIndex('9'.repeat(1_000_000))).toMatch(
      /^index "9{24}…\(1000000 chars\)" is not a decimal price$/,
    )
  })
})

describe('withinFraction', () => {
  it('is exact at the edges', () => {
    expect(withinFraction('110', '100', '0.1')).toBe(true)
    expect(withinFraction('90', '100', '0.1')).toBe(true)
    expect(withinFraction('110.000000001', '100', '0.1')).toBe(false)
    expect(withinFraction('89.999999999', '100', '0.1')).toBe(false)
    expect(withinFraction('0.00011', '0.0001', '0.1')).toBe(true)
  })
})

describe('screenIndex', () => {
  const fresh = { lastGood: undefined, candidate: undefined }
  it('accepts the first plausible value and moves within the jump limit', () => {
    expect(screenIndex('50000', fresh, '0.1')).toEqual({ accepted: true, candidate: undefined })
    expect(screenIndex('54999', { lastGood: '50000', candidate: undefined }, '0.1').accepted).toBe(true)
  })
  it('holds back a jump until it is confirmed by updates in a row, then accepts the new level', () => {
    let state: { lastGood: string | undefined; candidate: { price: string; count: number } | undefined } = {
      lastGood: '50000',
      candidate: undefined,
    }
    const first = screenIndex('60000', state, '0.1')
    expect(first).toMatchObject({ accepted: false, candidate: { price: '60000', count: 1 } })
    if (first.accepted) throw new Error('unreachable')
    expect(first.reason).toBe(
      'index 60000 jumped 20.0% from the last good 50000 (max 0.1; 1/3 confirmations)',
    )
    state = { ...state, candidate: first.candidate }
    const second = screenIndex('60100', state, '0.1')
    expect(second).toMatchObject({ accepted: false, candidate: { price: '60100', count: 2 } })
    state = { ...state, candidate: second.accepted ? undefined : second.candidate }
    const third = screenIndex('60050', state, '0.1')
    expect(third).toMatchObject({ accepted: true, candidate: undefined })
    expect(third.accepted && third.note).toMatch(/held for 3 updates: accepted/)
  })
  it('forgets a glitch: a value back near the last good one is accepted and clears the candidate', () => {
    const glitch = screenIndex('5000000', { lastGood: '50000', candidate: undefined }, '0.1')
    expect(glitch.accepted).toBe(false)
    const back = screenIndex('50010', { lastGood: '50000', candidate: glitch.candidate }, '0.1')
    expect(back).toEqual({ accepted: true, candidate: undefined })
  })
  it('restarts confirmation when the jumped values disagree with each other', () => {
    const a = screenIndex('60000', { lastGood: '50000', candidate: undefined }, '0.1')
    const b = screenIndex('90000', { lastGood: '50000', candidate: a.candidate }, '0.1')
    expect(b).toMatchObject({ accepted: false, candidate: { price: '90000', count: 1 } })
  })
  it('never accepts an implausible value, even repeated; "0" disables only the jump check', () => {
    const forty = '9'.repeat(40)
    let candidate: { price: string; count: number } | undefined
    for (let i = 0; i < 5; i++) {
      const v = screenIndex(forty, { lastGood: '50000', candidate }, '0.1')
      expect(v.accepted).toBe(false)
      candidate = v.candidate
    }
    expect(screenIndex('500000', { lastGood: '50000', candidate: undefined }, '0').accepted).toBe(true)
    expect(screenIndex(forty, { lastGood: undefined, candidate: undefined }, '0').accepted).toBe(false)
  })
})

describe('guardPlan', () => {
  it('computes the band exactly', () => {
    expect(priceBand('50000', '0.05')).toEqual({ low: '47500', high: '52500' })
    expect(priceBand('0.00123', '0.1')).toEqual({ low: '0.001107', high: '0.001353' })
    expect(priceBand('50000', '0')).toBeUndefined()
  })
  it('passes a clean plan through untouched (same object)', () => {
    const p = plan({
      create: [bid('47500'), bid('52500')],
      modify: [{ oid: 1, p: '50000', qty: '1' }],
      cancel: [3],
    })
    const r = guardPlan(p, '50000', '0.05')
    expect(r.plan).toBe(p)
    expect(r.dropped).toEqual([])
  })
  it('drops creates outside the bounds and turns such modifies into cancels', () => {
    const p = plan({
      create: [bid('47499.9'), bid('49990'), { iid: 7, buy: false, p: '150000', qty: '0.01' }],
      modify: [
        { oid: 1, p: '25000', qty: '1' },
        { oid: 2, p: '50010', qty: '1' },
      ],
      cancel: [9],
    })
    const r = guardPlan(p, '50000', '0.05')
    expect(r.plan.create.map((c) => c.p)).toEqual(['49990'])
    expect(r.plan.modify.map((m) => m.oid)).toEqual([2])
    expect(r.plan.cancel).toEqual([9, 1])
    expect(r.dropped).toEqual([
      'create buy 0.01@47499.9: price 47499.9 below 47500',
      'create sell 0.01@150000: price 150000 above 52500',
      'modify 1 to 1@25000: price 25000 below 47500 (cancelled instead)',
    ])
  })
  it('drops every create and modify without a reference, keeps cancels', () => {
    const r = guardPlan(
      plan({ create: [bid('1')], modify: [{ oid: 1, p: '1', qty: '1' }], cancel: [2] }),
      undefined,
      '0.05',
    )
    expect(r.plan).toEqual(plan({ cancel: [2, 1] }))
    expect(r.dropped[0]).toMatch(/no index to check the price against/)
  })
  it('with unknown bounds ("0") checks only that prices are positive', () => {
    const r = guardPlan(plan({ create: [bid('1000000'), bid('0')] }), '50000', '0')
    expect(r.plan.create.map((c) => c.p)).toEqual(['1000000'])
  })
  it('property: whatever is quoted, only prices inside the band survive, and every such price does', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom('0.003', '0.01', '0.05', '0.5'),
        fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 16n }), fc.boolean()), { maxLength: 12 }),
        (refTicks, decimals, bounds, prices) => {
          const ref = fromTicks(refTicks, decimals)
          const items = prices.map(([t, buy]) => ({ iid: 1, buy, p: fromTicks(t, decimals), qty: '1' }))
          const modifies = prices.map(([t], i) => ({ oid: i + 1, p: fromTicks(t, decimals), qty: '1' }))
          const r = guardPlan(plan({ create: items, modify: modifies }), ref, bounds)
          const band = priceBand(ref, bounds)
          if (band === undefined) throw new Error('bounds are positive here')
          const inside = (p: string) =>
            compareDecimal(p, '0') > 0 &&
            compareDecimal(p, band.low) >= 0 &&
            compareDecimal(p, band.high) <= 0
          for (const c of r.plan.create) expect(inside(c.p)).toBe(true)
          for (const m of r.plan.modify) expect(inside(m.p)).toBe(true)
          expect(r.plan.create.length).toBe(items.filter((c) => inside(c.p)).length)
          expect(r.plan.modify.length + r.plan.cancel.length).toBe(modifies.length)
        },
      ),
      { numRuns: 300 },
    )
  })
})
