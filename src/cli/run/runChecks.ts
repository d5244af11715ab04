/**
 * Nothing is started or sent before the checks hold, and a refusal names what to fix: a fleet
 * process warms up (venue linked, every candidate preflighted) and takes its account's lease
 * (fleetStart.ts), a live one passes every preflight check, a dry or paper run finds its ops port free.
 */
import { systemClock } from '../../clock.ts'
import { BotError, ConfigError } from '../../errors.ts'
import type { JournalDb } from '../../journal/database.ts'
import { checkPortFree } from '../../preflight/portCheck.ts'
import { checkLogLevel, formatCheckLine, runPreflight } from '../../preflight/preflight.ts'
import { systemRandom } from '../../random.ts'
import { venueUrls, type WarmFleetStart, warmFleetStart } from '../fleetStart.ts'
import type { RunConfig } from './runConfig.ts'

export interface PassedChecks {
  /** The fleet's warm start with the lease held (`--fleet`). */
  warm: WarmFleetStart | undefined
  /** A fleet process opens its journal before the lease (nothing in it depends on the account). */
  earlyJournalDb: Promise<JournalDb | undefined>
}

export async function passStartChecks(
  config: RunConfig,
  openJournal: () => Promise<JournalDb | undefined>,
): Promise<PassedChecks> {
  const { session, loaded, logger } = config
  const { settings, strategies } = loaded
  // A fleet process opens its journal before the lease, so a hand-over does not wait for it; a
  // single process opens it after its checks.
  const earlyJournalDb = session !== undefined ? openJournal() : Promise.resolve(undefined)
  if (session !== undefined) {
    await earlyJournalDb.catch(async (e: unknown) => {
      await session.close()
      throw e
    })
    const standby = new AbortController()
    const abortStandby = (): void => standby.abort(new BotError('stopped while standing by'))
    process.once('SIGTERM', abortStandby)
    process.once('SIGINT', abortStandby)
    process.once('SIGHUP', abortStandby)
    const warm = await warmFleetStart({
      session,
      ...loaded,
      secretBag: config.secretBag,
      logger,
      signal: standby.signal,
    })
      .catch(async (e: unknown) => {
        await session.close()
        throw e
      })
      .finally(() => {
        process.off('SIGTERM', abortStandby)
        process.off('SIGINT', abortStandby)
        process.off('SIGHUP', abortStandby)
      })
    return { warm, earlyJournalDb }
  }
  if (settings.mode === 'live') {
    const lines = await runPreflight({
      settings,
      maxOrders: new Map(strategies.map((i) => [i.symbol, i.strategy.maxOrders])),
      perpsUrl: venueUrls(settings, loaded.secrets).perpsUrl,
      proxyPrivateKey: loaded.secrets.PERPS_PROXY_PRIVATE_KEY,
      proxySecret: loaded.secrets.PERPS_PROXY_SECRET,
      streamUrl: loaded.secrets.PERPS_WS_URL,
      checkStream: true,
      clock: systemClock,
      random: systemRandom,
    })
    for (const l of lines)
      logger[checkLogLevel(l)]({ check: l.check, status: l.status }, `preflight ${formatCheckLine(l)}`)
    const failed = lines.filter((l) => l.status === 'fail')
    if (failed.length > 0)
      throw new ConfigError(
        'preflight failed; nothing was sent (see perpbot doctor --live)',
        failed.map(formatCheckLine),
      )
    return { warm: undefined, earlyJournalDb }
  }
  const busy = await checkPortFree(settings.ops.host, settings.ops.port)
  if (busy !== undefined)
    throw new ConfigError('the ops port is not available', [
      `ops.port: ${settings.ops.host}:${settings.ops.port} ${busy}; choose another with --ops-port N or the config key ops.port`,
    ])
  return { warm: undefined, earlyJournalDb }
}
