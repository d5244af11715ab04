/**
 * The engine's options for this run: the venue port's adapter (the real venue, the embedded mock, or
 * the paper book, src/engine/venueAdapters.ts) and the parts the CLI built (journal, fleet, tap).
 */
import type { ConfigSource } from '../../bot/control/botControl.ts'
import { deadManOnClockRate } from '../../bot/orders/deadManSwitch.ts'
import type { EngineOptions } from '../../engine/startEngine.ts'
import { httpVenue, loopbackMockVenue } from '../../engine/venueAdapters.ts'
import type { VenuePort } from '../../engine/venuePort.ts'
import type { Journal } from '../../journal/journal.ts'
import type { StreamTap } from '../../perps/stream/frameTap.ts'
import { systemRandom } from '../../random.ts'
import type { Secrets, Settings } from '../../settings/schema.ts'
import type { WarmFleetStart } from '../fleetStart.ts'
import type { RunConfig } from './runConfig.ts'
import type { RunVenue } from './runVenue.ts'

export function runEngineOptions(o: {
  config: RunConfig
  venue: RunVenue
  secrets: Secrets
  journal: Journal | undefined
  warm: WarmFleetStart | undefined
  streamTap: StreamTap | undefined
  configSource: ConfigSource
}): EngineOptions {
  const { settings, strategies } = o.config.loaded
  const { mock } = o.venue
  return {
    // On the accelerated mock the switch's deadline is in wall time (deadManSwitch.ts).
    settings: mock ? deadManOnClockRate(settings, mock.clock.info().rate) : settings,
    venue: venuePortOf(o.venue, settings, o.secrets, o.warm),
    logger: o.config.logger,
    secretBag: o.config.secretBag,
    strategies,
    random: systemRandom,
    journal: o.journal,
    fleet: o.warm?.joined?.part,
    streamTap: o.streamTap,
    configSource: o.configSource,
  }
}

/** The adapter for the venue this run trades. */
function venuePortOf(
  venue: RunVenue,
  settings: Settings,
  secrets: Secrets,
  warm: WarmFleetStart | undefined,
): VenuePort {
  const { mock, paper, clock } = venue
  // The paper book in process; the embedded mock serves its WebSocket on its HTTP port, as the venue /v1/ws.
  if (paper) return paper.venue.port({ settings, secrets: paper.secrets, catalogueUrl: paper.catalogueUrl })
  if (mock) return loopbackMockVenue({ url: mock.url, streamUrl: mock.wsUrl, clock, secrets })
  return httpVenue({
    perpsUrl: secrets.PERPS_URL ?? settings.perps.url ?? '',
    catalogueUrl: secrets.CATALOGUE_URL ?? settings.catalogue.url ?? '',
    streamUrl: secrets.PERPS_WS_URL,
    clock,
    secrets,
    link: warm?.venue,
  })
}
