/**
 * The mock as a process: `npm run mock -- --port 8080 --scenario trending`. Serves the catalogue and
 * perps interfaces on 127.0.0.1, prints one ready line with its URLs (HTTP and WebSocket), and exits 0 on SIGTERM/SIGINT
 * after closing the server. Bad flags print one line and exit 2. `perpbot mock` delegates here
 * through `runStandaloneMock`.
 */
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { describeError } from '../errors.ts'
import { isOneOf } from '../guards.ts'
import { FAULT_PRESET_NAMES, type FaultPresetName, isFaultPresetName } from './faults.ts'
import { SCENARIO_NAMES } from './perps/market/scenarios.ts'
import type { RunningMock } from './server.ts'
import { CLOCK_MODES, type ClockMode } from './virtualClock.ts'

// The exchange's list, read from its light module: the server (viem, the catalogue generator) is only
// loaded once the flags are good, so `--help` and mistakes answer at once.
const MOCK_SCENARIOS: readonly string[] = SCENARIO_NAMES

export const STANDALONE_USAGE = `usage: perpbot mock [--port N] [--seed N] [--scenario NAME] [--clock real|accelerated|stepped]
                    [--speed F] [--faults NAME] [--events N] [--controls]
  --port N          port on 127.0.0.1 (default 0: any free port; the ready line says which)
  --seed N          seed of the generated catalogue and market (default 1)
  --scenario NAME   ${MOCK_SCENARIOS.join(' | ')} (default calm)
  --clock MODE      real (default) | accelerated | stepped (time moves only through /__mock/clock)
  --speed F         speed-up of the accelerated clock (default 10; implies --clock accelerated)
  --faults NAME     ${FAULT_PRESET_NAMES.join(' | ')} (default none; scenario flaky implies flaky)
  --events N        number of generated catalogue events (default 3000)
  --controls        enable the test controls under /__mock/`

/** The parsed command line. */
export interface StandaloneOptions {
  port: number
  seed: number
  scenario: string
  clock: ClockMode
  speed: number | undefined
  faults: FaultPresetName | undefined
  /** Catalogue size; undefined = the catalogue's default. */
  events: number | undefined
  controls: boolean
}

export interface StandaloneHooks {
  /** Called once the server listens (after the ready line is printed). */
  onReady?: ((mock: RunningMock) => void) | undefined
  /** Stops the server when aborted (for callers that do not want process signals). */
  signal?: AbortSignal | undefined
  /** Listen for SIGTERM/SIGINT. Default true. */
  handleSignals?: boolean | undefined
  stdout?: ((line: string) => void) | undefined
  stderr?: ((line: string) => void) | undefined
}

/** A command-line mistake: reported as one line, exit code 2. */
class UsageError extends Error {
  override name = 'UsageError'
}

/**
 * Parses the flags.
 * @throws {UsageError} with a one-line message for an unknown flag or a bad value.
 */
export function parseStandaloneArgs(argv: readonly string[]): StandaloneOptions | 'help' {
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        seed: { type: 'string' },
        scenario: { type: 'string' },
        clock: { type: 'string' },
        speed: { type: 'string' },
        faults: { type: 'string' },
        events: { type: 'string' },
        controls: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (e) {
    // node's messages carry advice about positionals; the first sentence is the point.
    const message = e instanceof Error ? (e.message.split('. ')[0] ?? e.message) : String(e)
    throw new UsageError(message.replace(/\.$/, ''))
  }
  if (values.help === true) return 'help'
  const str = (k: string): string | undefined => {
    const v = values[k]
    return typeof v === 'string' ? v : undefined
  }
  const port = integer('--port', str('port') ?? '0', 0, 65_535)
  const seed = integer('--seed', str('seed') ?? '1', 0, 2 ** 32 - 1)
  const scenario = str('scenario') ?? 'calm'
  if (!MOCK_SCENARIOS.includes(scenario))
    throw new UsageError(`unknown scenario '${scenario}' (known: ${MOCK_SCENARIOS.join(', ')})`)
  const speedText = str('speed')
  const speed = speedText === undefined ? undefined : Number(speedText)
  if (speed !== undefined && !(Number.isFinite(speed) && speed > 0))
    throw new UsageError(`--speed must be a positive number (got '${speedText}')`)
  const clockText = str('clock') ?? (speed !== undefined ? 'accelerated' : 'real')
  if (!isOneOf(CLOCK_MODES, clockText))
    throw new UsageError(`unknown clock '${clockText}' (known: ${CLOCK_MODES.join(', ')})`)
  const clock = clockText
  if (speed !== undefined && clock !== 'accelerated')
    throw new UsageError(`--speed applies only to --clock accelerated (got --clock ${clock})`)
  const faultsText = str('faults')
  if (faultsText !== undefined && !isFaultPresetName(faultsText))
    throw new UsageError(`unknown fault preset '${faultsText}' (known: ${FAULT_PRESET_NAMES.join(', ')})`)
  const eventsText = str('events')
  const events = eventsText === undefined ? undefined : integer('--events', eventsText, 1, 1_000_000)
  return {
    port,
    seed,
    scenario,
    clock,
    speed,
    faults: faultsText,
    events,
    controls: values.controls === true,
  }
}

function integer(flag: string, text: string, min: number, max: number): number {
  const n = Number(text)
  if (text.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max} (got '${text}')`)
  return n
}

/**
 * Runs the mock until SIGTERM/SIGINT (or `hooks.signal`), then closes it.
 * @returns the process exit code: 0 after a clean stop, 2 for bad flags, 1 when the server cannot start.
 */
export async function runStandaloneMock(
  argv: readonly string[],
  hooks: StandaloneHooks = {},
): Promise<number> {
  const out = hooks.stdout ?? ((line: string) => process.stdout.write(`${line}\n`))
  const err = hooks.stderr ?? ((line: string) => process.stderr.write(`${line}\n`))
  let opts: StandaloneOptions | 'help'
  try {
    opts = parseStandaloneArgs(argv)
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    err(`perpbot mock: ${e.message} (see --help)`)
    return 2
  }
  if (opts === 'help') {
    out(STANDALONE_USAGE)
    return 0
  }
  if (hooks.signal?.aborted) return 0

  let mock: RunningMock
  try {
    const { startMockServer } = await import('./server.ts')
    mock = await startMockServer({
      port: opts.port,
      seed: opts.seed,
      scenario: opts.scenario,
      clock: opts.clock,
      speed: opts.speed,
      faults: opts.faults,
      controls: opts.controls,
      catalogue: { eventCount: opts.events },
    })
  } catch (e) {
    err(`perpbot mock: cannot start: ${describeError(e)}`)
    return 1
  }

  const stopped = new Promise<void>((resolveStop) => {
    const signals: NodeJS.Signals[] = hooks.handleSignals === false ? [] : ['SIGTERM', 'SIGINT', 'SIGHUP']
    const stop = (): void => {
      for (const s of signals) process.off(s, stop)
      hooks.signal?.removeEventListener('abort', stop)
      resolveStop()
    }
    for (const s of signals) process.once(s, stop)
    hooks.signal?.addEventListener('abort', stop, { once: true })
  })

  const faults = opts.faults ?? (opts.scenario === 'flaky' ? 'flaky' : 'none')
  const clock = opts.clock === 'accelerated' ? `accelerated x${mock.clock.factor}` : opts.clock
  out(
    `perpbot mock listening on ${mock.url}, WebSocket ${mock.wsUrl} (seed ${opts.seed}, scenario ${opts.scenario}, clock ${clock}, ` +
      `faults ${faults}, controls ${opts.controls ? 'on' : 'off'})`,
  )
  hooks.onReady?.(mock)
  await stopped
  await mock.close()
  return 0
}

/** True when this file is the process's entry module (not when imported by the CLI or tests). */
function isEntryModule(): boolean {
  const entry = process.argv[1]
  return entry !== undefined && resolve(entry) === fileURLToPath(import.meta.url)
}

if (isEntryModule()) {
  runStandaloneMock(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code
      // Everything is closed; should a stray handle linger, do not hang the caller.
      setTimeout(() => process.exit(code), 2_000).unref()
    },
    (e: unknown) => {
      process.stderr.write(`perpbot mock: ${describeError(e)}\n`)
      process.exit(1)
    },
  )
}
