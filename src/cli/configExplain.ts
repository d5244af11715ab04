/** `perpbot config --explain`: the effective configuration, secrets redacted. */
import { parseArgs } from 'node:util'
import { explainSettings, loadSettings } from '../settings/load.ts'
import type { CliContext } from './context.ts'

export async function configCommand(ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      explain: { type: 'boolean', default: false },
      live: { type: 'boolean' },
      config: { type: 'string' },
    },
    strict: true,
  })
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
