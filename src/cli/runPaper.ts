/**
 * `perpbot run --paper`: the paper venue started for the bot (src/paper/; the flags it refuses are in
 * run/paperFlags.ts): the venue's public addresses from the environment or the config, the paper
 * account's local keys in place of any venue keys (so no real key is ever loaded into a paper run's
 * signer).
 */
import { ConfigError, describeError } from '../errors.ts'
import type { JournalDb } from '../journal/database.ts'
import type { Logger } from '../logging/logger.ts'
import { PaperFeedError } from '../paper/liveFeed.ts'
import { PAPER_KEYS } from '../paper/paperAccount.ts'
import { type PaperVenue, startPaperVenue } from '../paper/paperVenue.ts'
import { VENUE_STREAM_URL } from '../perps/stream/streamTypes.ts'
import type { Secrets, Settings } from '../settings/schema.ts'

export interface StartedPaper {
  venue: PaperVenue
  /** The paper account's local keys: what the bot signs with (for the local book only). */
  secrets: Secrets
  /** The real catalogue (public): a strategy reading it must see the live one, not the mock's. */
  catalogueUrl: string
}

/**
 * Reads the venue's public REST and stream and starts the local book.
 * @throws {@link ConfigError} without a venue address; {@link PaperFeedError} when the venue's public
 * feed cannot be read (its message names the address).
 */
export async function startPaper(o: {
  settings: Settings
  secrets: Secrets
  journalDb: JournalDb | undefined
  logger: Logger
}): Promise<StartedPaper> {
  const restUrl = o.secrets.PERPS_URL ?? o.settings.perps.url
  if (restUrl === undefined || restUrl === '')
    throw new ConfigError('run --paper needs the venue’s public address', [
      'env PERPS_URL or the config key perps.url: the venue’s REST base URL (no keys are needed)',
    ])
  const catalogueUrl = o.secrets.CATALOGUE_URL ?? o.settings.catalogue.url
  if (catalogueUrl === undefined || catalogueUrl === '')
    throw new ConfigError('run --paper needs the catalogue’s public address', [
      'env CATALOGUE_URL or the config key catalogue.url (public: no keys are needed)',
    ])
  const wsUrl = o.secrets.PERPS_WS_URL ?? VENUE_STREAM_URL
  const symbols = o.settings.instruments.map((i) => i.symbol)
  o.logger.info({ restUrl, wsUrl }, `paper: reading the venue's public feed at ${restUrl} and ${wsUrl}`)
  const venue = await startPaperVenue({
    restUrl,
    wsUrl,
    symbols,
    startingCollateral: o.settings.mock.startingCollateral,
    journalDb: o.journalDb,
    onFeedSilence: (silent, h) => {
      if (silent)
        o.logger.error(
          { feed: h },
          `paper: the venue's public stream at ${wsUrl} has been silent for 15 s (${h.state}${h.lastError ? `: ${h.lastError}` : ''}); the paper book holds the last prices and nothing fills until it is back`,
        )
      else o.logger.info({ feed: h }, "paper: the venue's public stream is back")
    },
  }).catch((e: unknown) => {
    if (e instanceof PaperFeedError) throw e
    throw new PaperFeedError(`paper: the venue's public feed could not be started: ${describeError(e)}`)
  })
  const r = venue.resumed
  o.logger.info(
    {
      fills: r.fills,
      funding: r.funding,
      positions: r.positions.length,
      collateral: r.collateral,
    },
    r.fills + r.funding > 0
      ? `paper account resumed from the journal: ${r.collateral} USD cash, ${r.positions.length} open position(s) (${r.fills} fills, ${r.funding} funding charges); open orders are not resumed`
      : `paper account: ${r.collateral} USD, flat (nothing journaled yet)`,
  )
  o.logger.info(
    { fees: venue.feeCategory },
    `paper: local book in this process (fees: the venue's ${venue.feeCategory} schedule; fills: queue-aware fill model on live prints and book)`,
  )
  return {
    venue,
    catalogueUrl,
    secrets: {
      ...o.secrets,
      PERPS_PROXY_PRIVATE_KEY: PAPER_KEYS.proxyKey,
      PERPS_PROXY_SECRET: PAPER_KEYS.secret,
    },
  }
}
