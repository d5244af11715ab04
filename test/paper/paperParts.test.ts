/**
 * The paper venue's pure parts: the venue's instrument rules and fee schedule as the local book's,
 * funding at each boundary at the rate the ticker published for the window that closed, the live row
 * queue (bounded, oldest dropped and counted), and paper alerts titled PAPER.
 */
import { describe, expect, it } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import { markRehearsal, PAPER_PREFIX, webhookAllowed } from '../../src/alerts/rehearsal.ts'
import { webhookPayload } from '../../src/alerts/webhookPayload.ts'
import { DEFAULT_INSTRUMENTS, defineInstrument, instrumentToWire } from '../../src/mock/perps/instruments.ts'
import { FundingAtBoundaries, LiveQueue } from '../../src/paper/liveFeed.ts'
import { feeTiersOf, specOfVenue } from '../../src/paper/publicVenue.ts'

const HOUR = 3_600_000

describe('the venue’s public rules as the local book’s', () => {
  it('an instrument keeps every rule the venue lists (decimals, bounds, notional limits, tiers, funding)', () => {
    const venue = defineInstrument({
      id: 9,
      symbol: 'XYZ-USDC',
      baseAsset: 'XYZ',
      category: 'equity',
      initialPrice: '1',
      priceDecimals: 3,
      quantityDecimals: 1,
      priceBounds: '0.02',
      liquidationFee: '0.01',
      maxOrderCount: 50,
      minNotional: '5',
      maxMarketNotional: '20000',
      maxLimitNotional: '90000',
      maxLeverage: 7,
      riskTiers: [
        { lowerBound: '0', maxLeverage: 7 },
        { lowerBound: '100000', maxLeverage: 3 },
      ],
      fundingInterval: '8h',
      isolatedOnly: true,
    })
    const local = specOfVenue(instrumentToWire(venue), '12.345')
    expect(instrumentToWire(local)).toEqual(instrumentToWire(venue))
    expect(local.initialPrice).toBe('12.345')
  })

  it('fee tiers: the traded category’s, the base rates as the $0 tier when the tiers lack one', () => {
    const schedule = {
      fee_schedule: [
        {
          instrument_type: 'perpetual',
          category: 'crypto',
          taker_fee_rate: '0.0004',
          maker_fee_rate: '0.0001',
          tiers: [{ min_volume_30d: '0', taker_fee_rate: '0.0004', maker_fee_rate: '0.0001' }],
        },
        {
          instrument_type: 'perpetual',
          category: 'equity',
          taker_fee_rate: '0.0005',
          maker_fee_rate: '-0.00002',
          tiers: [{ min_volume_30d: '1000000', taker_fee_rate: '0.0003', maker_fee_rate: '-0.00005' }],
        },
      ],
    }
    expect(feeTiersOf(schedule, 'equity')).toEqual({
      category: 'equity',
      tiers: [
        { minVolume30d: '0', takerFeeRate: '0.0005', makerFeeRate: '-0.00002' },
        { minVolume30d: '1000000', takerFeeRate: '0.0003', makerFeeRate: '-0.00005' },
      ],
    })
    expect(feeTiersOf(schedule, 'index').category).toBe('crypto')
    expect(() => feeTiersOf({ fee_schedule: [] }, 'crypto')).toThrow(/fee schedule is empty/)
  })
})

describe('live rows', () => {
  it('funding settles at each boundary at the estimate of the window that closed, once', () => {
    const f = new FundingAtBoundaries(HOUR, 10 * HOUR + 5)
    expect(f.takeUntil(10 * HOUR + 1_000)).toBeUndefined()
    f.estimate('0.0001', 10 * HOUR + 60_000)
    f.estimate('0.0002', 11 * HOUR - 1_000)
    // The next window's first estimate arrives before the book steps past the boundary.
    f.estimate('0.0009', 11 * HOUR + 200)
    expect(f.takeUntil(11 * HOUR + 500)).toEqual({ t: 11 * HOUR, r: '0.0002' })
    expect(f.takeUntil(11 * HOUR + 900)).toBeUndefined()
    // No estimate of its own closing: the latest published one.
    expect(f.takeUntil(12 * HOUR)).toEqual({ t: 12 * HOUR, r: '0.0009' })
  })

  it('with no estimate ever seen, nothing is settled', () => {
    const f = new FundingAtBoundaries(HOUR, 0)
    expect(f.takeUntil(HOUR)).toBeUndefined()
  })

  it('the queue gives rows up to a time, in order; past its bound the oldest go, counted', () => {
    let dropped = 0
    const q = new LiveQueue<'bbo'>(2, () => {
      dropped++
    })
    const row = (t: number) => ({ t, bp: '1', bq: '1', ap: '2', aq: '1' })
    q.push(row(1))
    q.push(row(2))
    q.push(row(3))
    expect(dropped).toBe(1)
    expect(q.takeUntil(2)?.t).toBe(2)
    expect(q.takeUntil(2)).toBeUndefined()
    expect(q.takeUntil(3)?.t).toBe(3)
  })
})

describe('paper alerts', () => {
  const alert: Alert = {
    key: 'margin',
    severity: 'critical',
    title: 'Account in liquidation',
    message: 'equity below maintenance',
    at: 0,
  }
  it('reach the webhook, titled PAPER, the payload saying paper', () => {
    expect(webhookAllowed('paper', false)).toBe(true)
    const marked = markRehearsal(alert, 'paper')
    expect(marked.title).toBe(`${PAPER_PREFIX}Account in liquidation`)
    expect(markRehearsal(marked, 'paper').title).toBe(marked.title)
    expect(webhookPayload(marked, 'generic', undefined, 'paper')).toMatchObject({ mode: 'paper' })
    expect(String((webhookPayload(marked, 'slack', undefined, 'paper') as { text: string }).text)).toContain(
      'PAPER (simulated fills, no money)',
    )
  })
  it('the default instruments pass through the venue rules unchanged too', () => {
    for (const s of DEFAULT_INSTRUMENTS)
      expect(instrumentToWire(specOfVenue(instrumentToWire(s), s.initialPrice))).toEqual(instrumentToWire(s))
  })
})
