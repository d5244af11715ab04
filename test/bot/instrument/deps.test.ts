import { describe, expect, it } from 'vitest'
import { fractionToDecimal, instrumentDeps } from '../../../src/bot/actors/actorWiring.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import { Settings } from '../../../src/settings/schema.ts'
import { loadStrategies } from '../../../src/strategy/registry.ts'

describe('instrument actor dependencies from the settings', () => {
  it('passes the order age limit and the price-guard settings, as exact decimals', async () => {
    const settings = Settings.parse({
      instruments: [{ symbol: 'X', strategy: 'index-peg' }],
      risk: { maxIndexJump: 0.25, degradeAfter: 5 },
      quoting: { maxOrderAgeMs: 60_000 },
    })
    const registry = await loadStrategies()
    const strategy = registry.resolve('index-peg', { size: '1', positionCap: '10' })
    const logger = createLogger({ pretty: 'never', destination: { write: () => undefined } })
    const deps = instrumentDeps(settings, strategy, { clock: { now: () => 0 }, logger })
    expect(deps.maxOrderAgeMs).toBe(60_000)
    expect(deps.guard).toEqual({ maxIndexJump: '0.25', degradeAfter: 5 })
  })

  it('defaults: a 10% index jump, degraded after 3 bad observations in a row', () => {
    const s = Settings.parse({ instruments: [{ symbol: 'X', strategy: 'index-peg' }] })
    expect(s.risk.maxIndexJump).toBe(0.1)
    expect(s.risk.degradeAfter).toBe(3)
  })

  it('writes fractions without exponent notation', () => {
    expect(fractionToDecimal(0.1)).toBe('0.1')
    expect(fractionToDecimal(1e-7)).toBe('0.0000001')
    expect(fractionToDecimal(0)).toBe('0')
    expect(fractionToDecimal(2)).toBe('2')
    expect(fractionToDecimal(10)).toBe('10')
  })
})
