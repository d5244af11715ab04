/** `perpbot run`'s first step: its flags read and turned into config overrides (usage errors are exit 2). */
import { parseArgs } from 'node:util'
import { UsageError } from '../context.ts'
import { checkPaperFlags } from './paperFlags.ts'

export interface RunArgs {
  live: boolean
  paper: boolean
  fleet: boolean
  /** `--config FILE`. */
  config: string | undefined
  /** `--record DIR`. */
  record: string | undefined
  /** `--duration S`: stop by itself after S seconds of the bot's clock. */
  duration: number | undefined
  /** Config keys the flags set (scenario, seed, speed, faults, ops host/port, log level, paper mode). */
  overrides: Record<string, unknown>
}

/** The flags, or `help` when `--help` was asked. @throws {@link UsageError} a bad flag or value. */
export function parseRunArgs(argv: readonly string[]): RunArgs | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      live: { type: 'boolean', default: false },
      paper: { type: 'boolean', default: false },
      config: { type: 'string' },
      scenario: { type: 'string' },
      seed: { type: 'string' },
      speed: { type: 'string' },
      faults: { type: 'string' },
      'ops-host': { type: 'string' },
      'ops-port': { type: 'string' },
      'log-level': { type: 'string' },
      duration: { type: 'string' },
      fleet: { type: 'boolean', default: false },
      record: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) return 'help'
  const num = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined
    const n = Number(v)
    if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number`)
    return n
  }
  const overrides: Record<string, unknown> = {}
  if (values.scenario) overrides['mock.scenario'] = values.scenario
  if (values.seed) overrides['mock.seed'] = num('seed', values.seed)
  if (values.speed) {
    overrides['mock.speed'] = num('speed', values.speed)
    overrides['mock.clock'] = 'accelerated'
  }
  if (values.faults) overrides['mock.faults'] = values.faults
  if (values['ops-host']) overrides['ops.host'] = values['ops-host']
  if (values['ops-port']) overrides['ops.port'] = num('ops-port', values['ops-port'])
  if (values['log-level']) overrides['logging.level'] = values['log-level']
  const duration = num('duration', values.duration)
  if (values.fleet && !values.live)
    throw new UsageError('--fleet needs --live (each dry run embeds its own mock)')
  if (values.paper) checkPaperFlags(values)
  // Paper runs load the dry-run overlay (no keys) and run in mode 'paper'.
  if (values.paper) overrides.mode = 'paper'
  return {
    live: values.live,
    paper: values.paper,
    fleet: values.fleet,
    config: values.config,
    record: values.record,
    duration,
    overrides,
  }
}
