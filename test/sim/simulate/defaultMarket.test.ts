/**
 * The shipped dry run (config/default.json's instruments and strategies) on the default calm market
 * fills both sides of every instrument within a few virtual minutes (issue 39.2), on the stepped clock
 * of `perpbot simulate` (the real bot against the real mock).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { runSimulation } from '../../../src/sim/simulate/runSimulation.ts'

const shipped = JSON.parse(readFileSync('config/default.json', 'utf8')) as { instruments: unknown[] }
const MINUTES = 5

describe('the default dry run', { timeout: 120_000 }, () => {
  it.each([1, 2, 3])(
    `fills bids and asks on every instrument within ${MINUTES} virtual minutes (seed %i)`,
    async (seed) => {
      const r = await runSimulation({
        strategy: 'index-peg',
        instruments: shipped.instruments.length,
        hours: MINUTES / 60,
        scenario: 'calm',
        seed,
        configDir: 'config',
        perpbotVersion: 'test',
        overrides: { instruments: shipped.instruments },
      })
      expect(r.record.instruments.map((i) => i.symbol)).toEqual(['BTC-USDC', 'ETH-USDC', 'SOL-USDC'])
      for (const i of r.record.instruments) {
        expect(
          i.fills.some((f) => f.buy),
          `${i.symbol} bought`,
        ).toBe(true)
        expect(
          i.fills.some((f) => !f.buy),
          `${i.symbol} sold`,
        ).toBe(true)
        expect(i.fills.every((f) => f.t <= r.record.meta.startMs + MINUTES * 60_000)).toBe(true)
      }
    },
  )
})
