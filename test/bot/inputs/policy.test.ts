/** The inputs' policy numbers, now in the inputs rather than in the composition root. */
import { describe, expect, it } from 'vitest'
import { createBotInputGates } from '../../../src/bot/inputs/inputGates.ts'
import { indexPollBudget } from '../../../src/bot/inputs/pollers.ts'
import { BBO_REFRESH_MS, botChangeFilter } from '../../../src/bot/inputs/streams/streamRoutes.ts'

describe('input policy', () => {
  it('index polls may use a third of the usable request budget', () => {
    expect(indexPollBudget({ requestBudgetPerMinute: 1_000, headroom: 0.9, riskReserve: 0.1 })).toBe(
      Math.floor((1_000 * 0.9 * 0.9) / 3),
    )
  })

  it('an unchanged BBO is routed again after a silence of 1.5 s (pushes in between renew its age), an unchanged index after a third of its bound', () => {
    let now = 0
    const changed = botChangeFilter(() => now, { staleIndexMs: 30_000 })
    expect(BBO_REFRESH_MS).toBe(1_500)
    expect(changed('b1', 'a', 'bbo')).toBe(true)
    now = 1_499
    expect(changed('b1', 'a', 'bbo')).toBe(false)
    expect(changed.seenAt('bbo', 1)).toBe(1_499)
    now = 1_499 + 1_499
    expect(changed('b1', 'a', 'bbo')).toBe(false)
    now += 1_500
    expect(changed('b1', 'a', 'bbo')).toBe(true)
    expect(changed('i1', 'x', 'index')).toBe(true)
    const t = now
    now = t + 9_999
    expect(changed('i1', 'x', 'index')).toBe(false)
    now = t + 10_000
    expect(changed('i1', 'x', 'index')).toBe(true)
  })

  it('an unchanged margin is routed again after a silence of a third of its own staleness bound', () => {
    let now = 0
    const changed = botChangeFilter(() => now, { staleIndexMs: 15_000, staleMarginMs: 30_000 })
    expect(changed('a1', 'm', 'margin')).toBe(true)
    now = 9_999
    expect(changed('a1', 'm', 'margin')).toBe(false)
    now = 9_999 + 10_000
    expect(changed('a1', 'm', 'margin')).toBe(true)
    // A changed margin goes at once.
    now += 1
    expect(changed('a1', 'm2', 'margin')).toBe(true)
  })

  it('without a stream address every input polls, and says so once', () => {
    const warned: string[] = []
    const logger = { warn: (m: unknown) => void warned.push(String(m)) }
    const off = createBotInputGates({
      clock: { now: () => 0 },
      streams: { enabled: true },
      streamUrl: undefined,
      readsStatistics: false,
      logger,
    })
    expect(off.streamUrl).toBeUndefined()
    expect(Object.values(off.gates.snapshot()).every((v) => v.source === 'poll')).toBe(true)
    expect(warned).toHaveLength(1)
    const on = createBotInputGates({
      clock: { now: () => 0 },
      streams: { enabled: true },
      streamUrl: 'ws://127.0.0.1:1',
      readsStatistics: false,
      logger,
    })
    expect(on.streamUrl).toBe('ws://127.0.0.1:1')
    // Statistics are a gated input only where a strategy reads them.
    expect(Object.keys(on.gates.snapshot())).not.toContain('statistics')
    expect(warned).toHaveLength(1)
  })
})
