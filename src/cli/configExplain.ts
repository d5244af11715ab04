/** `perpbot config --explain`: the effective configuration, secrets redacted. */
import { parseArgs } from 'node:util'
import { explainSettings, loadSettings } from '../settings/load.ts'
import type { CliContext } from './context.ts'

export const CONFIG_USAGE = `usage: perpbot config [--explain] [--live] [--config FILE]
  Validates the configuration (config/default.json, the mode overlay or --config FILE, the environment);
  every problem is listed with its path and the exit code is 2.
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
  const loaded = loadSettings({
    configDir: ctx.configDir,
    mode: values.live ? 'live' : 'dry-run',
    file: values.config,
    env: ctx.env,
  })
  if (!values.explain) {
    ctx.stdout('configuration is valid (use --explain to print it)')
    return 0
  }
  ctx.stdout(JSON.stringify(explainSettings(loaded), null, 2))
  return 0
}
