/**
 * Connect, after the config is resolved (resolveConfig.ts): sync the clock with the venue, read the
 * EIP-712 domain, build the signer and credentials (a dry run generates its own keys and registers a
 * proxy on the embedded mock), and map configured symbols to instrument ids.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { type Clock, OffsetClock } from '../../clock.ts'
import {
  ConfigError,
  describeError,
  RateLimitError,
  ThrottledError,
  UnexpectedResponseError,
} from '../../errors.ts'
import { retryTransient } from '../../http/retryTransient.ts'
import { createHttpTransport, type HttpTransport } from '../../http/transport.ts'
import { type LaterTurn, laterTurn } from '../../http/writeFirst.ts'
import type { Logger, SecretBag } from '../../logging/logger.ts'
import { type PerpsResponseObserver, ProxyCredentials, type RequestGate } from '../../perps/client/context.ts'
import { createPerpsClient, type PerpsClient } from '../../perps/client/createPerpsClient.ts'
import { RotatingProxyKey } from '../../perps/client/rotatingKey.ts'
import { syncClock } from '../../perps/client/syncClock.ts'
import type { Instrument } from '../../perps/schemas/info.ts'
import { CommandSigner } from '../../perps/signing/commandSigner.ts'
import {
  DEFAULT_PERPS_DOMAIN,
  type PerpsDomain,
  perpsDomainFromExchangeInfo,
} from '../../perps/signing/domain.ts'
import { addressOfPrivateKey } from '../../perps/signing/privateKey.ts'
import { SaltSource } from '../../perps/signing/salt.ts'
import type { Random } from '../../random.ts'
import type { Secrets, Settings } from '../../settings/schema.ts'
import { createBotPerpsClient } from './botPerpsClient.ts'
import { quoteAssetProblems } from './quoteAssets.ts'

export interface ConnectOptions {
  settings: Settings
  secrets: Secrets
  logger: Logger
  secretBag: SecretBag
  /** Base clock: wall time, or the embedded mock's virtual clock in a dry run. */
  baseClock: Clock
  random: Random
  perpsUrl: string
  catalogueUrl: string
  /** Dry run: generate keys and register a proxy on the (mock) venue. */
  selfProvision: boolean
  /** Wraps every perps request (the bot's weight limiter). */
  gate: RequestGate
  /** The venue's rate-limit headers and unreadable rows (botPerpsClient.ts). */
  observer?: PerpsResponseObserver | undefined
  /**
   * Ready transports instead of HTTP pools for the URLs (the simulator's in-process mock; the paper
   * book, whose catalogue is the real one at `catalogueUrl`).
   */
  transports?: { perps: HttpTransport; catalogue?: HttpTransport | undefined } | undefined
  /** The venue already linked (a fleet's warm standby): only the account's part is done here. */
  venue?: VenueLink | undefined
}

export interface Connections {
  perps: PerpsClient
  /** A later turn of the event loop that lets the perps requests already made be written first (writeFirst.ts). */
  laterTurn: LaterTurn
  catalogueTransport: HttpTransport
  /** The base clock corrected by the venue's time. */
  venueClock: OffsetClock
  signer: CommandSigner
  proxyAddress: string
  /** The proxy and its API secret (the stream's `auth`; the rotating key, read per use). Never logged. */
  credentials: { readonly proxy: string; readonly secret: string }
  /** The proxy key the client signs with, switched by a key rotation. */
  key: RotatingProxyKey
  /** The salts of every signer of this process (a rotated key shares them). */
  salts: SaltSource
  proxyExpiry: number | undefined
  domain: PerpsDomain
  instruments: Map<string, Instrument>
  close(): Promise<void>
}

/**
 * The venue, before any account: transports, the clock synchronised, the EIP-712 domain and every
 * listed instrument, all from public reads. A fleet's warm standby builds it before it holds a lease
 * (`ConnectOptions.venue`), so a hand-over only does the account's part.
 */
export interface VenueLink {
  readonly perpsTransport: HttpTransport
  readonly catalogueTransport: HttpTransport
  /** The base clock corrected by the venue's time. */
  readonly venueClock: OffsetClock
  readonly domain: PerpsDomain
  /** Every instrument the venue listed, by symbol. */
  readonly listed: ReadonlyMap<string, Instrument>
  /** Measures the clock offset again (a standby that waited long). */
  resync(): Promise<number | undefined>
  close(): Promise<void>
}

export type VenueLinkOptions = Pick<
  ConnectOptions,
  | 'settings'
  | 'logger'
  | 'baseClock'
  | 'random'
  | 'perpsUrl'
  | 'catalogueUrl'
  | 'gate'
  | 'observer'
  | 'transports'
>

export async function linkVenue(o: VenueLinkOptions): Promise<VenueLink> {
  const { settings, logger } = o
  const venueClock = new OffsetClock(o.baseClock, { maxOffsetMs: settings.perps.maxClockSkewMs })
  const http = {
    connectTimeoutMs: settings.perps.connectTimeoutMs,
    headersTimeoutMs: settings.perps.requestTimeoutMs,
    bodyTimeoutMs: settings.perps.requestTimeoutMs,
  }
  const perpsTransport =
    o.transports?.perps ??
    createHttpTransport({ baseUrl: o.perpsUrl, ...http, maxBodyBytes: settings.perps.maxResponseBytes })
  const catalogueTransport =
    o.transports?.catalogue ??
    createHttpTransport({
      baseUrl: o.catalogueUrl,
      ...http,
      maxBodyBytes: settings.catalogue.maxResponseBytes,
    })
  const close = async (): Promise<void> => {
    await Promise.allSettled([perpsTransport.close(), catalogueTransport.close()])
  }
  try {
    const publicClient = createPerpsClient({
      transport: perpsTransport,
      clock: venueClock,
      random: o.random,
      gate: o.gate,
      observer: o.observer,
    })
    // The client already retried 5xx and timeouts; a malformed body or a 429 gets a few more tries
    // here, as the instruments read below does (chaos: one malformed time body ended a restart).
    const resync = (): Promise<number | undefined> =>
      retryTransient(
        'synchronising the clock',
        () => syncClock(publicClient, o.baseClock, venueClock, { samples: 3, maxRttMs: 5_000 }),
        {
          clock: o.baseClock,
          logger,
          attempts: 4,
          transient: (e) =>
            e instanceof UnexpectedResponseError ||
            e instanceof RateLimitError ||
            e instanceof ThrottledError,
        },
      )
    const offset = await resync()
    logger.info({ offsetMs: offset }, 'clock synchronised with the venue')

    let domain: PerpsDomain
    try {
      domain = perpsDomainFromExchangeInfo(await publicClient.getExchange())
    } catch (e) {
      domain = { ...DEFAULT_PERPS_DOMAIN, chainId: settings.perps.chainId }
      logger.warn(
        { err: describeError(e) },
        'cannot read /v1/info/exchange; using the configured EIP-712 domain',
      )
    }
    // A restarted bot meeting a busy venue (429) should start, not exit (the preflight's reads
    // retry the same way; the clock sync already retried 5xx and timeouts inside the client).
    const all = await retryTransient('reading the instruments', () => publicClient.getInstruments(), {
      clock: o.baseClock,
      logger,
    })
    return {
      perpsTransport,
      catalogueTransport,
      venueClock,
      domain,
      listed: new Map(all.map((i) => [i.symbol, i])),
      resync,
      close,
    }
  } catch (e) {
    await close()
    throw e
  }
}

/** The configured (enabled) instruments among the listed ones; an unlisted one is a config error. */
function configuredInstruments(
  settings: Settings,
  bySymbol: ReadonlyMap<string, Instrument>,
): Map<string, Instrument> {
  const instruments = new Map<string, Instrument>()
  const missing: string[] = []
  settings.instruments.forEach((inst, i) => {
    if (!inst.enabled) return
    const found = bySymbol.get(inst.symbol)
    if (found) instruments.set(inst.symbol, found)
    else missing.push(`instruments.${i}.symbol: "${inst.symbol}" is not listed by the venue`)
  })
  if (missing.length > 0) {
    const known = [...bySymbol.keys()].slice(0, 20).join(', ')
    throw new ConfigError('unknown instruments', [
      ...missing,
      `the venue lists: ${known}${bySymbol.size > 20 ? ', …' : ''}`,
    ])
  }
  const mixed = quoteAssetProblems(instruments.values())
  if (mixed.length > 0) throw new ConfigError('instruments quoted in more than one asset', mixed)
  return instruments
}

export async function connect(o: ConnectOptions): Promise<Connections> {
  const { settings, logger } = o
  const venue = o.venue ?? (await linkVenue(o))
  const { venueClock, domain, perpsTransport, catalogueTransport } = venue
  try {
    const publicClient = createPerpsClient({
      transport: perpsTransport,
      clock: venueClock,
      random: o.random,
      gate: o.gate,
      observer: o.observer,
    })
    const salts = new SaltSource(o.random)
    let proxyKey: `0x${string}`
    let credentials: ProxyCredentials
    let proxyExpiry: number | undefined
    if (o.selfProvision) {
      // A dry run needs no keys: make throwaway ones and register the proxy on the mock venue.
      proxyKey = generatePrivateKey()
      const ownerKey = generatePrivateKey()
      o.secretBag.add(proxyKey)
      o.secretBag.add(ownerKey)
      const owner = new CommandSigner({ privateKey: ownerKey, clock: venueClock, salts, domain })
      const proxyAddress = privateKeyToAccount(proxyKey).address
      proxyExpiry = venueClock.now() + 7 * 24 * 3_600_000
      const res = await publicClient.createProxy(
        { proxy: proxyAddress, expiry: proxyExpiry, label: 'perpbot dry-run' },
        { owner },
      )
      credentials = res.credentials
      o.secretBag.add(credentials.secret)
      logger.info({ proxy: proxyAddress, owner: owner.address }, 'dry run: registered a throwaway proxy key')
    } else {
      const key = o.secrets.PERPS_PROXY_PRIVATE_KEY
      const secret = o.secrets.PERPS_PROXY_SECRET
      if (!key || !secret) {
        throw new ConfigError('live mode needs proxy credentials', [
          'env PERPS_PROXY_PRIVATE_KEY and PERPS_PROXY_SECRET must both be set',
        ])
      }
      proxyKey = key as `0x${string}`
      credentials = new ProxyCredentials(addressOfPrivateKey(proxyKey, 'PERPS_PROXY_PRIVATE_KEY'), secret)
    }
    const signer = new CommandSigner({ privateKey: proxyKey, clock: venueClock, salts, domain })
    // One key object for the client and the private stream: a rotation (keyRotation.ts) switches both.
    const key = new RotatingProxyKey({ signer, credentials })
    const perps = createBotPerpsClient({
      settings,
      transport: perpsTransport,
      clock: venueClock,
      random: o.random,
      credentials: key,
      signer: key,
      gate: o.gate,
    })

    const instruments = configuredInstruments(settings, venue.listed)
    return {
      perps,
      catalogueTransport,
      venueClock,
      signer,
      proxyAddress: credentials.proxy,
      credentials: key,
      key,
      salts,
      proxyExpiry,
      domain,
      instruments,
      laterTurn: laterTurn(() => perpsTransport.writing?.() ?? false),
      close: () => venue.close(),
    }
  } catch (e) {
    await venue.close()
    throw e
  }
}
