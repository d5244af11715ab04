/**
 * The reads the in-process venue answers as typed values (perps/typedReads.ts), taken by the client
 * without their schema's parse: on every answer of seeded runs the parse of the core's answer is the
 * answer itself (the same keys in the same order, the same values, no row dropped), so the bot gets the
 * same value either way. Calm, trending, liquidation (positions cut, margin at its limits) and flaky
 * (faults: a fault's answer carries no typed value and is parsed as always).
 */
import { describe, expect, it } from 'vitest'
import { Portfolio } from '../../../src/perps/schemas/account.ts'
import { Tickers } from '../../../src/perps/schemas/tickers.ts'
import type { WireExchange } from '../../../src/sim/botOnMock.ts'
import { runSimulation } from '../../../src/sim/simulate/runSimulation.ts'

const SCHEMAS = { getTickers: Tickers, getPortfolio: Portfolio }
const PATHS = { getTickers: '/v1/info/tickers', getPortfolio: '/v1/account/portfolio' }

describe('typed reads from the in-process venue', () => {
  for (const scenario of ['calm', 'trending', 'liquidation', 'flaky']) {
    it(`are what their schemas parse the answer to (${scenario})`, async () => {
      const seen = { getTickers: 0, getPortfolio: 0, positions: 0, faulted: 0 }
      const mismatches: string[] = []
      const check = (x: WireExchange): void => {
        const typed = x.res.typed
        if (typed === undefined) {
          if (Object.values(PATHS).includes(x.req.path) && x.fault !== undefined) seen.faulted += 1
          return
        }
        expect(x.req.path).toBe(PATHS[typed.kind])
        expect(x.fault).toBeUndefined()
        expect(x.res.raw).toBeUndefined()
        // The value the client takes is the body the transport writes as text.
        expect(typed.value).toBe(x.res.body)
        const parsed = SCHEMAS[typed.kind].safeParse(x.res.body)
        expect(parsed.success).toBe(true)
        if (JSON.stringify(parsed.data) !== JSON.stringify(typed.value)) mismatches.push(x.req.path)
        expect(parsed.data).toStrictEqual(typed.value)
        seen[typed.kind] += 1
        if (typed.kind === 'getPortfolio') seen.positions += typed.value.positions.length
      }
      const r = await runSimulation({
        strategy: 'index-peg',
        instruments: 3,
        hours: 0.25,
        scenario,
        seed: 7,
        configDir: 'config',
        perpbotVersion: 'test',
        onExchange: check,
      })
      expect(mismatches).toEqual([])
      expect(seen.getTickers).toBeGreaterThan(100)
      expect(seen.getPortfolio).toBeGreaterThan(100)
      // Positions were held (their decimals, liquidation prices and returns were compared too).
      expect(seen.positions).toBeGreaterThan(0)
      if (scenario === 'flaky') expect(seen.faulted).toBeGreaterThan(0)
      expect(r.record.instruments.reduce((n, i) => n + i.totals.fills, 0)).toBeGreaterThan(0)
    }, 120_000)
  }
})
