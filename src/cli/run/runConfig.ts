/**
 * `perpbot run`'s configuration: with `--fleet` the fleet's environment and every candidate
 * account's keys (joinFleet.ts, loaded only then), then every setting, secret and strategy param
 * checked before anything starts or is sent, the secrets registered with the scrubber, the logger.
 */
import type { ConfigSource } from '../../bot/control/botControl.ts'
import { loadAndResolve } from '../../bot/startup/resolveConfig.ts'
import type { FleetSession } from '../../fleet/joinFleet.ts'
import { createLogger, type Logger, SecretBag } from '../../logging/logger.ts'
import { SCRUBBED_ENV_NAMES, SECRET_ENV_NAMES } from '../../settings/schema.ts'
import type { CliContext } from '../context.ts'
import type { RunArgs } from './runArgs.ts'

export type LoadedRun = Awaited<ReturnType<typeof loadAndResolve>>

export interface RunConfig {
  loaded: LoadedRun
  /** The fleet's session (`--fleet`): candidates, Redis; closed by whoever fails after this. */
  session: FleetSession | undefined
  secretBag: SecretBag
  logger: Logger
  /** `perpbot reload`: the same files, overrides and environment as this start. */
  configSource: ConfigSource
}

export async function loadRunConfig(ctx: CliContext, args: RunArgs): Promise<RunConfig> {
  // Imported only with --fleet: a single bot's start does not load the Redis client.
  const session = args.fleet
    ? (await import('../../fleet/joinFleet.ts')).openFleet({
        env: ctx.env,
        logger: createLogger({ level: 'info', isTty: ctx.isTty }),
      })
    : undefined
  const firstKeys = session?.candidates[0]?.env
  const read = () =>
    loadAndResolve({
      configDir: ctx.configDir,
      mode: args.live ? 'live' : 'dry-run',
      file: args.config,
      overrides: args.overrides,
      env: firstKeys === undefined ? ctx.env : { ...ctx.env, ...firstKeys },
    })
  const loaded = await read().catch(async (e: unknown) => {
    await session?.close()
    throw e
  })
  const secretBag = new SecretBag(SECRET_ENV_NAMES.map((k) => loaded.secrets[k]))
  for (const k of SCRUBBED_ENV_NAMES) secretBag.register(ctx.env[k])
  const logger = createLogger({
    level: loaded.settings.logging.level,
    pretty: loaded.settings.logging.pretty,
    isTty: ctx.isTty,
    secrets: secretBag,
  })
  return { loaded, session, secretBag, logger, configSource: { read } }
}
