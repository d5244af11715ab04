/**
 * `perpbot run --live --fleet`: the warm standby. Everything that needs no account ownership is done
 * before the lease: the config and strategies (by the caller), the venue link (clock sync, EIP-712
 * domain, instruments; `linkVenue`) and, for a process that stands by, the preflight of every account
 * it may take over. Winning the lease then leaves only the account's part to the bot's start: cancel
 * older epochs' orders, reconcile, arm the dead-man switch, quote. While standing by, the clock is
 * measured again now and then so a standby that waited hours hands over with a fresh offset.
 */
import { linkVenue, type VenueLink } from '../bot/startup/connect.ts'
import type { ResolvedInstrumentConfig } from '../bot/startup/resolveConfig.ts'
import { systemClock } from '../clock.ts'
import { ConfigError, describeError } from '../errors.ts'
import { type BotReportBody, statesPhrase } from '../fleet/fleetReport.ts'
import type { FleetSession, JoinedFleet } from '../fleet/joinFleet.ts'
import { componentLogger, type Logger, type SecretBag } from '../logging/logger.ts'
import type { BotStatus } from '../ops/status.ts'
import type { RequestGate } from '../perps/client/context.ts'
import { OPEN_GATE } from '../perps/throttle/requestGate.ts'
import { checkLogLevel, formatCheckLine, runPreflight } from '../preflight/preflight.ts'
import { systemRandom } from '../random.ts'
import { Secrets, type Settings } from '../settings/schema.ts'

/** How often a standby measures the venue's clock again. */
const STANDBY_RESYNC_MS = 60_000

const AccountKeys = Secrets.pick({ PERPS_PROXY_PRIVATE_KEY: true, PERPS_PROXY_SECRET: true })

export interface WarmFleetStart {
  readonly joined: JoinedFleet
  /** The venue link made before the lease: the bot's start takes it over (and closes it). */
  readonly venue: VenueLink
  /** The settings' secrets with the held account's keys. */
  readonly secrets: Secrets
}

export interface WarmFleetOptions {
  session: FleetSession
  settings: Settings
  secrets: Secrets
  secretBag: SecretBag
  strategies: readonly ResolvedInstrumentConfig[]
  logger: Logger
  signal: AbortSignal
}

/** The venue's URLs as the bot's start reads them. */
export function venueUrls(settings: Settings, secrets: Secrets): { perpsUrl: string; catalogueUrl: string } {
  return {
    perpsUrl: secrets.PERPS_URL ?? settings.perps.url ?? '',
    catalogueUrl: secrets.CATALOGUE_URL ?? settings.catalogue.url ?? '',
  }
}

export async function warmFleetStart(o: WarmFleetOptions): Promise<WarmFleetStart> {
  const { session, settings, logger } = o
  const { perpsUrl, catalogueUrl } = venueUrls(settings, o.secrets)
  // Every candidate's keys are secrets from now on, and must be well-formed before any is used.
  const keys = new Map<string, Secrets>()
  for (const c of session.candidates) {
    o.secretBag.add(c.env.PERPS_PROXY_PRIVATE_KEY)
    o.secretBag.add(c.env.PERPS_PROXY_SECRET)
    const parsed = AccountKeys.safeParse(c.env)
    if (!parsed.success)
      throw new ConfigError(
        `fleet account ${c.account}: keys invalid`,
        parsed.error.issues.map(
          (i) => `${session.config.secretsDir}/${c.account}.${String(i.path[0])}: ${i.message}`,
        ),
      )
    keys.set(c.account, parsed.data)
  }
  const preflight = async (
    c: { account: string; env: { PERPS_PROXY_PRIVATE_KEY: string; PERPS_PROXY_SECRET: string } },
    gate: RequestGate,
    first: boolean,
  ): Promise<string[]> => {
    const lines = await runPreflight({
      settings,
      maxOrders: new Map(o.strategies.map((s) => [s.symbol, s.strategy.maxOrders])),
      perpsUrl,
      proxyPrivateKey: c.env.PERPS_PROXY_PRIVATE_KEY,
      proxySecret: c.env.PERPS_PROXY_SECRET,
      streamUrl: o.secrets.PERPS_WS_URL,
      checkStream: first,
      opsPort: first,
      clock: systemClock,
      random: systemRandom,
      gate,
    })
    for (const l of lines)
      logger[checkLogLevel(l)](
        { check: l.check, status: l.status, account: c.account },
        `preflight ${c.account} ${formatCheckLine(l)}`,
      )
    return lines.filter((l) => l.status === 'fail').map((l) => `${c.account}: ${formatCheckLine(l)}`)
  }
  const refused = (failures: string[]): ConfigError =>
    new ConfigError('preflight failed; nothing was sent (see perpbot doctor --live)', failures)

  // The venue link first: public reads only, whatever the account.
  const venue = await linkVenue({
    settings,
    logger: componentLogger(logger, 'fleet-standby'),
    baseClock: systemClock,
    random: systemRandom,
    perpsUrl,
    catalogueUrl,
    gate: session.standbyGate,
  })
  let resync: ReturnType<typeof setInterval> | undefined
  try {
    // An account free at once: hold it and check only it (through the lease's fence), as a single
    // process would; nothing is standing by, so there is nothing to warm.
    const now = await session.claimNow({ signal: o.signal })
    if (now !== undefined) {
      const failures = await preflight(
        { account: now.lease.account, env: now.accountEnv },
        now.part.gate(OPEN_GATE),
        true,
      )
      if (failures.length > 0) {
        await now.close()
        throw refused(failures)
      }
      return { joined: now, venue, secrets: { ...o.secrets, ...keys.get(now.lease.account) } }
    }
    // Standing by: the preflight of every account this process may take over, so a hand-over needs
    // none and a broken key is found now. A failed account is left out of the claim; all failed: exit 2.
    const excluded = new Set<string>()
    const failures: string[] = []
    for (const [i, c] of session.candidates.entries()) {
      const failed = await preflight(c, session.standbyGate, i === 0)
      if (failed.length === 0) continue
      excluded.add(c.account)
      failures.push(...failed)
      if (session.candidates.length > 1)
        logger.error({ account: c.account }, `fleet: ${c.account} failed its preflight; it will not be held`)
    }
    if (excluded.size === session.candidates.length) throw refused(failures)
    resync = setInterval(() => {
      venue
        .resync()
        .catch((e: unknown) => logger.warn({ err: describeError(e) }, 'standby: clock resync failed'))
    }, STANDBY_RESYNC_MS)
    resync.unref()
    const joined = await session.claim({
      signal: o.signal,
      // The ops address from the settings (flags and config file): the standby answers /livez there.
      probe: { host: settings.ops.host, port: settings.ops.port },
      exclude: excluded,
    })
    return { joined, venue, secrets: { ...o.secrets, ...keys.get(joined.lease.account) } }
  } catch (e) {
    await venue.close()
    throw e
  } finally {
    clearInterval(resync)
  }
}

/** What a holder reports to the fleet's view from its bot's status (fleetReport.ts). */
export function botReportOf(s: BotStatus): BotReportBody {
  return {
    state: statesPhrase(s.instruments.map((i) => i.state)),
    ...(s.account.pnl === undefined ? {} : { netPnl: s.account.pnl.netPnl }),
    ...(s.account.currency === undefined ? {} : { currency: s.account.currency }),
  }
}
