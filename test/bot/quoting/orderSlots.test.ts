import { describe, expect, it } from 'vitest'
import { allocateOrderSlots, type SlotDemand } from '../../../src/bot/quoting/orderSlots.ts'
import { ConfigError } from '../../../src/errors.ts'

const demand = (id: number, wants: number | undefined, venueMax = 0): SlotDemand => ({
  id,
  symbol: `I${id}`,
  wants,
  venueMax,
})

describe('allocateOrderSlots', () => {
  it('trims nothing while the ladders fit under the cap', () => {
    const p = allocateOrderSlots([demand(1, 4), demand(2, 4)], 8)
    expect(p).toEqual({ trimmed: new Map(), wanted: 8 })
  })

  it('shares the cap max-min fairly: small wants are met, the rest split what is left', () => {
    const p = allocateOrderSlots([demand(1, 2), demand(2, 10), demand(3, 10)], 12)
    expect(p.wanted).toBe(22)
    expect([...p.trimmed]).toEqual([
      [2, 5],
      [3, 5],
    ])
  })

  it('never gives more than the cap in all, and at least one order each', () => {
    for (const cap of [1_000, 1_001, 1_999]) {
      const demands = Array.from({ length: 1_000 }, (_, i) => demand(i + 1, 2 * (1 + (i % 3))))
      const p = allocateOrderSlots(demands, cap)
      const total = demands.reduce((s, d) => s + (p.trimmed.get(d.id) ?? d.wants ?? 0), 0)
      expect(total).toBeLessThanOrEqual(cap)
      expect(Math.min(...demands.map((d) => p.trimmed.get(d.id) ?? d.wants ?? 0))).toBeGreaterThanOrEqual(1)
    }
  })

  it("counts a want past the venue's own limit at that limit, and an unknown want as the limit", () => {
    expect(allocateOrderSlots([demand(1, 50, 4), demand(2, undefined, 4)], 8).wanted).toBe(8)
    expect(allocateOrderSlots([demand(1, undefined)], 5).wanted).toBe(5)
  })

  it('refuses a cap below the number of instruments, naming the setting', () => {
    expect(() => allocateOrderSlots([demand(1, 2), demand(2, 2)], 1)).toThrow(ConfigError)
    try {
      allocateOrderSlots([demand(1, 2), demand(2, 2)], 1)
    } catch (e) {
      expect((e as ConfigError).details[0]).toContain('quoting.accountOpenOrderCap')
    }
  })
})
