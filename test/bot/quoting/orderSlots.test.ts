import { describe, expect, it } from 'vitest'
import { allocateOrderSlots, type SlotDemand, slotsForAdded } from '../../../src/bot/quoting/orderSlots.ts'
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

describe('slotsForAdded: an instrument a reload adds', () => {
  const running = (id: number, wants: number | undefined, share?: number) => ({
    ...demand(id, wants),
    share,
  })
  it('gets what it wants while the running ladders leave room', () => {
    expect(slotsForAdded([running(1, 4), running(2, 4)], demand(3, 4), 12)).toEqual({
      ok: true,
      slots: 4,
      trimmed: false,
      used: 8,
    })
  })
  it('is trimmed to the room left; the running ladders keep their shares (a trimmed one counts its share)', () => {
    expect(slotsForAdded([running(1, 10, 5), running(2, 4)], demand(3, 6), 12)).toEqual({
      ok: true,
      slots: 3,
      trimmed: true,
      used: 9,
    })
  })
  it('is refused, saying why, when the running ladders take the whole cap', () => {
    const r = slotsForAdded([running(1, 6), running(2, undefined, 6)], demand(3, 2), 12)
    expect(r.ok).toBe(false)
    expect(r).toMatchObject({ used: 12 })
    if (!r.ok) expect(r.reason).toContain('no room for I3')
  })
  it('counts a strategy that names no maxOrders at its venue limit', () => {
    expect(slotsForAdded([running(1, undefined)], { ...demand(2, 3), venueMax: 0 }, 10)).toMatchObject({
      ok: false,
    })
    expect(slotsForAdded([{ ...running(1, undefined), venueMax: 4 }], demand(2, 3), 10)).toMatchObject({
      ok: true,
      slots: 3,
    })
  })
})
