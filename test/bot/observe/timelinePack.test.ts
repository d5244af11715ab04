/**
 * The timeline ring's packed samples: a sample read back equals the one packed, key for key (nulls,
 * absent decimals, a negative zero), and the instruments' fixed part is shared only while it is the same.
 */
import { describe, expect, it } from 'vitest'
import { SamplePacker, unpackSample } from '../../../src/bot/observe/timelinePack.ts'
import type { TimelineInstrument, TimelineSample } from '../../../src/ops/dashboard/timelineTypes.ts'

const instrument = (id: number, extra: Partial<TimelineInstrument> = {}): TimelineInstrument => ({
  id,
  symbol: `S${id}-USDC`,
  state: ['active', 'normal', 'quoting'].join('.'),
  reason: 'margin and liquidation distance within limits',
  mode: 'normal',
  index: 70000.5,
  mark: 70010,
  bid: 69995.5,
  ask: 70020,
  position: 0.03,
  openOrders: 4,
  priceDecimals: 1,
  quantityDecimals: 3,
  ...extra,
})

const sample = (at: number, instruments: TimelineInstrument[]): TimelineSample => ({
  at,
  instruments,
  account: { realizedPnl: 1, unrealizedPnl: 2.5, fees: 0.15, funding: 0.25, netPnl: 3.1, marginRatio: null },
  limiter: { request: { used: 120, capacity: 900 }, action: { used: 8, capacity: 4500 } },
})

describe('timeline samples packed', () => {
  it('reads back what was packed, key for key', () => {
    const s = sample(1, [
      instrument(1),
      instrument(2, { state: 'syncing', mode: 'halted', mark: null, bid: null, ask: null, position: -0.6 }),
      instrument(3, {
        state: 'stopped',
        reason: 'actor stopped',
        index: null,
        mark: null,
        bid: null,
        ask: null,
        position: -0,
        openOrders: 0,
        priceDecimals: undefined,
        quantityDecimals: undefined,
      }),
    ])
    const back = unpackSample(new SamplePacker().pack(s))
    expect(back).toStrictEqual(s)
    expect(Object.is(back.instruments[2]?.position, -0)).toBe(true)
    expect(JSON.stringify(back)).toBe(JSON.stringify(s))
    expect(unpackSample(new SamplePacker().pack(sample(2, [])))).toStrictEqual(sample(2, []))
  })

  it('shares the instruments’ fixed part while it stays the same, and follows a change', () => {
    const packer = new SamplePacker()
    const a = packer.pack(sample(1, [instrument(1), instrument(2)]))
    const b = packer.pack(sample(2, [instrument(1, { index: 1 }), instrument(2, { state: 'halted.idle' })]))
    expect(b.fixed).toBe(a.fixed)
    const c = packer.pack(sample(3, [instrument(1), instrument(2, { priceDecimals: 2 })]))
    expect(c.fixed).not.toBe(b.fixed)
    expect(unpackSample(c).instruments[1]?.priceDecimals).toBe(2)
    expect(unpackSample(a).instruments[1]?.priceDecimals).toBe(1)
    const d = packer.pack(sample(4, [instrument(1)]))
    expect(unpackSample(d).instruments.map((i) => i.id)).toEqual([1])
    expect(unpackSample(b).instruments[1]?.state).toBe('halted.idle')
    expect(unpackSample(b).instruments[0]?.index).toBe(1)
  })
})
