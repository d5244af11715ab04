/**
 * The in-process venue's typed commands (perps/typedCommands.ts) against the HTTP-shaped path: the
 * same seeded `simulate` run, once with every command signed and crossing as JSON (as on the wire) and
 * once with the trading commands stamped and handed to the exchange core as values, gives the same
 * record: fills, PnL, the limiter's weights, every sample, the same steps. Also under the flaky
 * scenario, whose faults roll per request on both paths.
 */
import { describe, expect, it } from 'vitest'
import { runSimulation } from '../../../src/sim/simulate/runSimulation.ts'

const run = async (commands: 'typed' | 'signed', scenario: string) => {
  const paths = new Map<string, number>()
  let signedBytes = 0
  const r = await runSimulation({
    commands,
    strategy: 'index-peg',
    instruments: 2,
    hours: 0.05,
    scenario,
    seed: 5,
    configDir: 'config',
    perpbotVersion: 'test',
    onAnswer: (method, path, _status, bytes) => {
      if (method === 'GET') return
      const key = `${method} ${path}`
      paths.set(key, (paths.get(key) ?? 0) + 1)
      if (path.startsWith('/v1/trade/')) signedBytes += bytes
    },
  })
  return { ...r, paths, signedBytes }
}

describe('typed commands to the in-process venue', () => {
  for (const scenario of ['calm', 'flaky']) {
    it(`give the same run as signed JSON commands (${scenario})`, async () => {
      const signed = await run('signed', scenario)
      const typed = await run('typed', scenario)
      // The signed path signed every trading command (the mock checked each on its worker) …
      expect(signed.signatures.deferred).toBeGreaterThan(10)
      // … the typed one none (only the owner's createProxy at start is signed, and checked inline).
      expect(typed.signatures.deferred).toBe(0)
      expect(typed.signedBytes).toBe(0)
      expect(signed.signedBytes).toBeGreaterThan(0)
      // The same commands, in the same numbers, and the same run.
      expect([...typed.paths].sort()).toEqual([...signed.paths].sort())
      expect(
        (typed.paths.get('PATCH /v1/trade/orders') ?? 0) + (typed.paths.get('POST /v1/trade/orders') ?? 0),
      ).toBeGreaterThan(10)
      const fills = (r: typeof typed) => r.record.instruments.map((i) => i.totals)
      expect(fills(typed)).toEqual(fills(signed))
      expect(typed.record.instruments.reduce((n, i) => n + i.totals.fills, 0)).toBeGreaterThan(0)
      expect(typed.steps).toBe(signed.steps)
      expect(typed.record).toEqual(signed.record)
    }, 120_000)
  }
})
