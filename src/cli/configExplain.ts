/**
 * `perpbot config [--explain]`: validates the configuration exactly as `perpbot run` does (settings,
 * environment, strategies and their params), and prints the effective configuration, secrets redacted.
 */
import { parseArgs } from 'node:util'
import { loadAndResolve } from '../bot/startup/resolveConfig.ts'
import { explainSettings } from '../settings/load.ts'
import type { CliContext } from './context.ts'

export const CONFIG_USAGE = `usage: perpbot config [--explain] [--live] [--config FILE]
  Validates the configuration as perpbot run does (config/default.json, the mode overlay or --config
  FILE, the environment, and each instrument's strategy and params); every problem is listed with its
  path and the exit code is 2.
  --explain   print the effective configuration with secrets redacted
  --live      check the live overlay and what perpbot run --live needs from the environment`

export async function configCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      explain: { type: 'boolean', default: false },
      live: { type: 'boolean' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(CONFIG_USAGE)
    return 0
  }
  // The same check as `run`: strategies are loaded and every instrument's params validated.
  const { strategies, ...loaded } = await loadAndResolve({
    configDir: ctx.configDir,
    mode: values.live ? 'live' : 'dry-run',
    file: values.config,
    env: ctx.env,
  })
  if (!values.explain) {
    ctx.stdout(
      `configuration is valid: ${strategies.length} instrument(s), strategies ${[...new Set(strategies.map((s) => s.strategy.name))].join(', ')} (use --explain to print it)`,
    )
    return 0
  }
  ctx.stdout(JSON.stringify(explainSettings(loaded), null, 2))
  return 0
}
