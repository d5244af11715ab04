import type { SoakEngineName } from './soakEngines.ts'
import { flag, numberFlag } from './stats.ts'

/** The soak's flags (`--help` prints the usage and exits 0; a wrong engine exits 2). */
const USAGE = `usage: npm run soak -- [--engine stepped|wire] [--hours H | --minutes M] [--instruments N] [--seed N]
                       [--scenario NAME] [--speed F] [--report-every S] [--sample-every-min M]
                       [--max-real-seconds S] [--no-docs]
  --engine E         stepped (default): bot and mock in one process on the stepped virtual clock of
                     \`perpbot simulate\` (in-process transport, no sockets to the mock, streams off: every
                     input polls; ops server probed on 127.0.0.1, webhook payloads through an in-process
                     poster), as fast as the machine allows.
                     wire: the real HTTP and WebSocket path on 127.0.0.1, on the mock's accelerated clock
                     (real time × --speed)
  --hours H          virtual hours (default: 24 stepped; 5 wire, ~30 min of wall time at speed 10)
  --minutes M        virtual minutes instead of --hours
  --instruments N    generated instruments quoted by index-peg (default 20; 0 = the config's three)
  --seed N           mock seed (default 7)
  --scenario NAME    one mock scenario throughout instead of calm → trending → crash → recovery
  --speed F          wire only: speed-up of the mock's clock (default 10; measured: at 50, 79 % of
                     commands expired their 4 s exp; at 20, 6.5 % with load 3 and 61 % with load 15)
  --report-every S   wire: a full report every S wall seconds; stepped: a progress line (virtual time
                     done, speed, phase) every S wall seconds (default 60 wire, 15 stepped)
  --sample-every-min M  stepped only: a full report, heap after GC and an ops probe every M virtual
                     minutes (default: the run / 24, at least 5)
  --max-real-seconds wall-time cap; past it the run stops cleanly and fails "did not finish"
                     (default: wire 1.5 × the expected time + 60 s; stepped 3 h)
  --no-docs          do not rewrite the soak regions of docs/reliability.md and docs/benchmarks.md`

export function parseSoakFlags() {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE)
    process.exit(0)
  }

  const ENGINE_FLAG = flag('engine') ?? 'stepped'
  if (ENGINE_FLAG !== 'stepped' && ENGINE_FLAG !== 'wire') {
    console.error(`--engine must be stepped or wire, not ${ENGINE_FLAG}\n${USAGE}`)
    process.exit(2)
  }
  const ENGINE: SoakEngineName = ENGINE_FLAG
  const STEPPED = ENGINE === 'stepped'
  const HOURS = numberFlag('hours', STEPPED ? 24 : 5)
  const MINUTES = numberFlag('minutes', HOURS * 60)
  const SPEED = numberFlag('speed', 10)
  const SCENARIO = flag('scenario')
  const SEED = numberFlag('seed', 7)
  const REPORT_EVERY_S = numberFlag('report-every', STEPPED ? 15 : 60)
  const INSTRUMENTS = numberFlag('instruments', 20)
  const WRITE_DOCS = !process.argv.includes('--no-docs')
  const virtualMs = MINUTES * 60_000
  const SAMPLE_EVERY_MS = numberFlag('sample-every-min', Math.max(5, MINUTES / 24)) * 60_000
  const MAX_REAL_S = numberFlag(
    'max-real-seconds',
    STEPPED ? 3 * 3_600 : Math.ceil((virtualMs / SPEED / 1000) * 1.5) + 60,
  )
  const FLAGS = process.argv.slice(2).join(' ') || '(defaults)'
  return {
    ENGINE,
    STEPPED,
    MINUTES,
    SPEED,
    SCENARIO,
    SEED,
    REPORT_EVERY_S,
    INSTRUMENTS,
    WRITE_DOCS,
    virtualMs,
    SAMPLE_EVERY_MS,
    MAX_REAL_S,
    FLAGS,
  }
}
