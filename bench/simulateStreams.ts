/**
 * The venue port's events in process against the socket protocol and against polling, same run:
 * `perpbot simulate` (the same `runSimulation`) on N instruments for H virtual hours, once per way the
 * bot's inputs can come (`off`: every input polls, as `simulate` by default; `wire`: the bot's own
 * WebSocket pool reading the mock's session's JSON frames over the delivery queue; `in-process`: the
 * exchange core's pushes as values, `simulate --streams`). Prints CPU seconds (this process, all
 * threads) beside the same-run baselines, with the load average; writes nothing. One short run of
 * each way first warms the process (module loading, JIT) and is not counted; the figure per way is
 * the least of its rounds (on a shared machine, the one least disturbed).
 *
 *   node --import tsx bench/simulateStreams.ts [--instruments 10] [--hours 1] [--seed 1] [--rounds 1]
 */

import { runSimulation } from '../src/sim/simulate/runSimulation.ts'
import { loadNow, loadSpan, machineLine } from './docRegions.ts'
import { numberFlag } from './stats.ts'

const INSTRUMENTS = numberFlag('instruments', 10)
const HOURS = numberFlag('hours', 1)
const SEED = numberFlag('seed', 1)
const ROUNDS = numberFlag('rounds', 1)
const LOAD0 = loadNow()
const WAYS = ['off', 'wire', 'in-process'] as const

const cpu: Record<(typeof WAYS)[number], number[]> = { off: [], wire: [], 'in-process': [] }
const runs: Record<string, { steps: number; fills: number; pnl: number }> = {}
const simulate = (streams: (typeof WAYS)[number], hours: number) =>
  runSimulation({
    streams,
    strategy: 'index-peg',
    instruments: INSTRUMENTS,
    hours,
    scenario: 'calm',
    seed: SEED,
    configDir: 'config',
    perpbotVersion: 'bench',
  })
for (const streams of WAYS) await simulate(streams, 0.02)
for (let round = 0; round < ROUNDS; round++)
  // Alternated so a load change during the run falls on every way alike.
  for (const streams of round % 2 === 0 ? WAYS : [...WAYS].reverse()) {
    const before = process.cpuUsage()
    const r = await simulate(streams, HOURS)
    const used = process.cpuUsage(before)
    cpu[streams].push((used.user + used.system) / 1e6)
    const totals = r.record.instruments.map((i) => i.totals)
    runs[streams] = {
      steps: r.steps,
      fills: totals.reduce((n, t) => n + t.fills, 0),
      pnl: totals.reduce((n, t) => n + t.realizedPnl - t.fees, 0),
    }
  }

const least = (xs: number[]): number => Math.min(...xs)
console.log(
  `${INSTRUMENTS} instruments × ${HOURS} h, seed ${SEED}, ${ROUNDS} round(s); ${machineLine()}; ${loadSpan(LOAD0)}`,
)
for (const way of WAYS) {
  const r = runs[way]
  console.log(
    `${way.padEnd(10)} CPU-s ${least(cpu[way]).toFixed(2)} (${cpu[way].map((c) => c.toFixed(2)).join(', ')})  steps ${r?.steps}  fills ${r?.fills}  realized − fees ${r?.pnl.toFixed(6)}`,
  )
}
const wire = least(cpu.wire)
const inProcess = least(cpu['in-process'])
console.log(`in-process against wire: ${(100 * (1 - inProcess / wire)).toFixed(0)} % less CPU`)
