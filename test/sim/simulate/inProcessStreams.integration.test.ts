/**
 * The venue port's events in process (engine/inProcessStream.ts) against the socket protocol: the
 * same seeded `simulate` run with streams on, once with the bot's own WebSocket pool reading the
 * mock's session's JSON frames (wireStreamOnQueue.ts) and once with the exchange core's pushes handed
 * over as values, gives the same record (fills, PnL, every sample, the same steps) and the same
 * requests. Both really stream: the polls stand down (two ticker reads at start, against one every
 * few seconds without a stream), and the in-process run's pushes are counted in its health.
 */
import { describe, expect, it } from 'vitest'
import { runSimulation } from '../../../src/sim/simulate/runSimulation.ts'

const run = async (streams: 'in-process' | 'wire' | 'off', scenario: string, instruments = 2) => {
  const paths = new Map<string, number>()
  const r = await runSimulation({
    streams,
    strategy: 'index-peg',
    instruments,
    hours: 0.05,
    scenario,
    seed: 5,
    configDir: 'config',
    perpbotVersion: 'test',
    onAnswer: (method, path) => {
      const key = `${method} ${path.split('?')[0]}`
      paths.set(key, (paths.get(key) ?? 0) + 1)
    },
  })
  return { ...r, paths }
}

describe('stream inputs from the exchange core in process', () => {
  // Ten instruments: the first orders' pushes at start come before or after the private socket's
  // handshake (open, auth, subscribe), which the in-process source pays in the same queue turns.
  for (const [scenario, instruments] of [
    ['calm', 2],
    ['flaky', 2],
    ['calm', 10],
  ] as const) {
    it(`give the same run as the socket protocol's JSON frames (${scenario}, ${instruments} instruments)`, async () => {
      const wire = await run('wire', scenario, instruments)
      const inProcess = await run('in-process', scenario, instruments)
      expect([...inProcess.paths].sort()).toEqual([...wire.paths].sort())
      const fills = (r: typeof wire) => r.record.instruments.map((i) => i.totals)
      expect(fills(inProcess)).toEqual(fills(wire))
      expect(inProcess.record.instruments.reduce((n, i) => n + i.totals.fills, 0)).toBeGreaterThan(0)
      expect(inProcess.steps).toBe(wire.steps)
      expect(inProcess.record).toEqual(wire.record)
      // Streamed, not polled: the index is read twice at start, then comes from the pushes.
      expect(inProcess.paths.get('GET /v1/info/tickers')).toBeLessThanOrEqual(3)
    }, 120_000)
  }

  it('stands the polls down (without a stream the index is polled all along)', async () => {
    const polled = await run('off', 'calm')
    expect(polled.paths.get('GET /v1/info/tickers')).toBeGreaterThan(30)
  }, 120_000)
})
