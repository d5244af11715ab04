/**
 * The one assembly: `startEngine` builds the engine (src/bot/startBot.ts's parts, in order) against
 * a venue port. run (live, dry run, paper), simulate and replay, the integration harness and the
 * benchmarks all start here; what differs between them is the adapter (venueAdapters.ts).
 */
import { type BotOptions, type RunningBot, startBot } from '../bot/startBot.ts'
import type { VenuePort } from './venuePort.ts'

/** The bot's options the venue port supplies (its clock, addresses, transports and account). */
type VenueKeys =
  | 'clock'
  | 'perpsUrl'
  | 'catalogueUrl'
  | 'streamUrl'
  | 'streamSource'
  | 'transports'
  | 'secrets'
  | 'selfProvision'
  | 'venue'

/** The engine's own options: everything but the venue. */
export type EngineOptions = Omit<BotOptions, VenueKeys> & { venue: VenuePort }

export type RunningEngine = RunningBot

export function startEngine(o: EngineOptions): Promise<RunningEngine> {
  const { venue, ...engine } = o
  return startBot({ ...engine, ...botVenueOptions(venue) })
}

/** What the bot's connect step takes from the port. */
function botVenueOptions(venue: VenuePort): Pick<BotOptions, VenueKeys> {
  const c = venue.commands
  const addresses =
    c.via === 'http'
      ? { perpsUrl: c.perpsUrl, catalogueUrl: c.catalogueUrl }
      : c.via === 'in-process-perps'
        ? { perpsUrl: c.perps.origin, catalogueUrl: c.catalogueUrl, transports: { perps: c.perps } }
        : {
            perpsUrl: c.transports.perps.origin,
            catalogueUrl: c.transports.catalogue.origin,
            transports: c.transports,
          }
  return {
    clock: venue.clock,
    ...addresses,
    streamUrl: venue.events.streamUrl,
    streamSource: venue.events.source,
    secrets: venue.account.secrets,
    selfProvision: venue.account.kind === 'self-provisioned',
    venue: venue.link,
  }
}
