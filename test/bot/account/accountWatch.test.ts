import { describe, expect, it } from 'vitest'
import { AccountWatch } from '../../../src/bot/account/accountWatch.ts'
import { liquidationDistance, marginRatio } from '../../../src/bot/account/marginRatio.ts'
import { WATCH as cfg, marginPortfolio as portfolio, withdrawalRow } from '../../helpers/accountFixtures.ts'

describe('marginRatio', () => {
  it('is maintenance over equity, 0 without positions, infinite without equity', () => {
    expect(marginRatio(portfolio('50', '100'))).toBe(0.5)
    expect(marginRatio(portfolio('0', '100'))).toBe(0)
    expect(marginRatio(portfolio('10', '0'))).toBe(Number.POSITIVE_INFINITY)
    expect(liquidationDistance(100, '90')).toBeCloseTo(0.1)
    expect(liquidationDistance(100, '0')).toBeUndefined()
  })
})

describe('AccountWatch', () => {
  it('alerts in_liquidation once per episode and resolves once', () => {
    const w = new AccountWatch(cfg)
    expect(w.snapshot().portfolioAt).toBeUndefined()
    const first = w.observePortfolio(portfolio('120', '100', true), 1)
    expect(first.filter((a) => a.key === 'liquidation')).toEqual([
      expect.objectContaining({ severity: 'critical', title: 'Account in liquidation' }),
    ])
    expect(
      w.observePortfolio(portfolio('120', '100', true), 2).filter((a) => a.key === 'liquidation'),
    ).toEqual([])
    const end = w.observePortfolio(portfolio('0', '100', false), 3).filter((a) => a.key === 'liquidation')
    // /status `account.updatedAt`: the last portfolio seen.
    expect(w.snapshot().portfolioAt).toBe(3)
    expect(end).toEqual([expect.objectContaining({ resolved: true })])
  })

  it('walks margin levels with hysteresis and one alert per crossing', () => {
    const w = new AccountWatch(cfg)
    const seq = ['0.3', '0.55', '0.52', '0.48', '0.56', '0.85', '0.78', '0.74', '0.40'].map((mm, i) =>
      w
        .observePortfolio(portfolio(mm, '1'), i)
        .map((a) => `${a.resolved ? 'resolved' : a.severity}:${a.title}`),
    )
    expect(seq).toEqual([
      [],
      ['warning:Margin ratio warning'],
      [],
      [], // 0.48 is inside the hysteresis band (> 0.45): still warning
      [],
      ['critical:Margin ratio critical'],
      [], // 0.78 > 0.75: still critical
      ['resolved:Margin ratio below critical'],
      ['resolved:Margin ratio back to normal'],
    ])
  })

  it('a fall from critical to warning says the episode goes on at warning; a close leaves nothing', () => {
    const w = new AccountWatch(cfg)
    const seq = ['0.55', '0.85', '0.74', '0.40', '0.85', '0.1'].flatMap((mm, i) =>
      w.observePortfolio(portfolio(mm, '1'), i).map((a) => [a.title, a.resolved ?? false, a.remaining]),
    )
    expect(seq).toEqual([
      ['Margin ratio warning', false, undefined],
      ['Margin ratio critical', false, undefined],
      ['Margin ratio below critical', true, 'warning'],
      ['Margin ratio back to normal', true, undefined],
      ['Margin ratio critical', false, undefined],
      ['Margin ratio back to normal', true, undefined],
    ])
  })

  it('from critical straight back to normal, resolves the episode once', () => {
    const w = new AccountWatch(cfg)
    const seq = ['0.55', '0.85', '0.1', '0.85', '0.1'].map((mm, i) =>
      w
        .observePortfolio(portfolio(mm, '1'), i)
        .map((a) => `${a.resolved ? 'resolved' : 'raised'}:${a.severity}`),
    )
    expect(seq).toEqual([
      ['raised:warning'],
      ['raised:critical'],
      // One message: the warning under the critical level ends with it ("RESOLVED" once, not twice).
      ['resolved:critical'],
      // ok → critical directly: no warning episode was raised, so only the critical one ends.
      ['raised:critical'],
      ['resolved:critical'],
    ])
  })

  it('after a wipe-out: margin exhausted, never "back to normal", until the account has equity again', () => {
    const w = new AccountWatch(cfg)
    const seen = (mm: string, equity: string, liq = false, t = 0) =>
      w
        .observePortfolio(portfolio(mm, equity, liq), t)
        .map((a) => `${a.resolved ? 'resolved' : 'raised'}:${a.key}`)
    expect(seen('0.85', '1', false, 1)).toEqual(['raised:margin'])
    expect(seen('1.1', '1', true, 2)).toEqual(['raised:liquidation'])
    // Closed out: no margin in use, so the ratio reads 0, but the equity is gone too.
    expect(seen('0', '0', false, 3)).toEqual(['resolved:liquidation', 'raised:margin-exhausted'])
    expect(w.snapshot()).toMatchObject({
      marginExhausted: true,
      marginLevel: 'critical',
      marginRatio: undefined,
    })
    expect(seen('0', '0', false, 4)).toEqual([])
    // A deposit: equity again, and only now is the margin back to normal.
    expect(seen('0', '500', false, 5)).toEqual(['resolved:margin-exhausted', 'resolved:margin'])
    expect(w.snapshot()).toMatchObject({ marginExhausted: false, marginLevel: 'ok', marginRatio: 0 })
    // Kept across a restart: the ongoing episode is not raised again.
    const again = new AccountWatch(cfg)
    w.observePortfolio(portfolio('0', '0'), 6)
    again.importState(JSON.parse(JSON.stringify(w.exportState())))
    expect(again.observePortfolio(portfolio('0', '0'), 7)).toEqual([])
  })

  it('says the figures that triggered a margin alert, with units', () => {
    const w = new AccountWatch(cfg)
    const [crit] = w.observePortfolio(portfolio('1.083', '1'), 1)
    expect(crit?.message).toBe('Margin ratio 108.3% crossed the critical threshold 80%.')
    const [back] = w.observePortfolio(portfolio('0.1', '1'), 2)
    expect(back?.message).toBe('Margin ratio 10% is back below the warning threshold 50%.')
  })

  it('alerts a failed or removed withdrawal once, critical', () => {
    const w = new AccountWatch(cfg)
    expect(w.observeWithdrawals([withdrawalRow(1, 'pending')], 10)).toEqual([])
    const a = w.observeWithdrawals([withdrawalRow(1, 'failed'), withdrawalRow(2, 'removed')], 20)
    expect(a.map((x) => [x.key, x.severity])).toEqual([
      ['withdrawal:1', 'critical'],
      ['withdrawal:2', 'critical'],
    ])
    expect(w.observeWithdrawals([withdrawalRow(1, 'failed'), withdrawalRow(2, 'removed')], 30)).toEqual([])
  })

  it('says withdrawal amounts in asset units once the decimals are known, and never base units', () => {
    const w = new AccountWatch(cfg)
    const before = w.observeWithdrawals([withdrawalRow(1, 'failed')], 10)[0]?.message
    expect(before).toContain('an amount of pUSD not known yet')
    expect(before).not.toContain('100000000')
    w.setAssets([{ asset: 'pUSD', address: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB', decimals: 6 }])
    expect(w.observeWithdrawals([withdrawalRow(2, 'failed')], 20)[0]?.message).toBe(
      'Withdrawal 2 of 100 pUSD failed.',
    )
  })

  it('warns once about a withdrawal pending too long, then resolves on confirmation', () => {
    const w = new AccountWatch(cfg)
    w.observeWithdrawals([withdrawalRow(7, 'pending', 0)], 1_000)
    expect(w.checkPending(3_600_000)).toEqual([])
    expect(w.checkPending(3_600_001)).toEqual([
      expect.objectContaining({ key: 'withdrawal:7', severity: 'warning' }),
    ])
    expect(w.checkPending(7_000_000)).toEqual([])
    expect(w.oldestPendingCreatedAt()).toBe(0)
    expect(w.observeWithdrawals([withdrawalRow(7, 'confirmed', 0)], 7_000_001)).toEqual([
      expect.objectContaining({ resolved: true }),
    ])
    expect(w.oldestPendingCreatedAt()).toBeUndefined()
  })

  it('warns about proxy expiry, rate limiting, the open-order cap and clock skew once per episode', () => {
    const w = new AccountWatch(cfg)
    expect(w.observeProxyExpiry(200_000_000, 100_000_000)).toEqual([])
    expect(w.observeProxyExpiry(150_000_000, 100_000_000)).toHaveLength(1)
    expect(w.observeProxyExpiry(150_000_000, 100_000_001)).toEqual([])
    expect(w.observeRateLimits(3, 0)).toHaveLength(1)
    expect(w.observeRateLimits(5, 1)).toEqual([])
    expect(w.observeRateLimits(0, 2)).toEqual([expect.objectContaining({ resolved: true })])
    expect(w.observeOpenOrderCap(0, 0)).toEqual([])
    expect(w.observeOpenOrderCap(1, 0)).toEqual([expect.objectContaining({ key: 'open-order-cap' })])
    expect(w.observeOpenOrderCap(4, 1)).toEqual([])
    // A restart in the middle of the episode does not raise it again.
    const again = new AccountWatch(cfg)
    again.importState(w.exportState())
    expect(again.snapshot().openOrderCapped).toBe(true)
    expect(again.observeOpenOrderCap(2, 2)).toEqual([])
    expect(again.observeOpenOrderCap(0, 3)).toEqual([
      expect.objectContaining({ key: 'open-order-cap', resolved: true }),
    ])
    expect(w.observeClockSkew(-2_500, 0)).toHaveLength(1)
    expect(w.observeClockSkew(-2_600, 1)).toEqual([])
    expect(w.observeClockSkew(10, 2)).toEqual([expect.objectContaining({ resolved: true })])
  })
})
