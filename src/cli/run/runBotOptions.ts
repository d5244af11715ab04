/** The bot's options for this run: the venue's addresses (or the local book's), keys, parts the CLI built. */
import type { ConfigSource } from '../../bot/control/botControl.ts'
import { deadManOnClockRate } from '../../bot/orders/deadManSwitch.ts'
import type { BotOptions } from '../../bot/startBot.ts'
import type { Journal } from '../../journal/journal.ts'
import type { StreamTap } from '../../perps/stream/frameTap.ts'
import { systemRandom } from '../../random.ts'
import type { Secrets } from '../../settings/schema.ts'
import type { WarmFleetStart } from '../fleetStart.ts'
import type { RunConfig } from './runConfig.ts'
import type { RunVenue } from './runVenue.ts'

export function runBotOptions(o: {
  config: RunConfig
  venue: RunVenue
  secrets: Secrets
  journal: Journal | undefined
  warm: WarmFleetStart | undefined
  streamTap: StreamTap | undefined
  configSource: ConfigSource
}): BotOptions {
  const { settings, strategies } = o.config.loaded
  const { mock, paper, clock } = o.venue
  const { secrets } = o
  return {
    // On the accelerated mock the switch's deadline is in wall time (deadManSwitch.ts).
    settings: mock ? deadManOnClockRate(settings, mock.clock.info().rate) : settings,
    secrets: paper?.secrets ?? secrets,
    logger: o.config.logger,
    secretBag: o.config.secretBag,
    strategies,
    clock,
    random: systemRandom,
    perpsUrl: mock?.url ?? secrets.PERPS_URL ?? settings.perps.url ?? '',
    // The embedded mock serves its WebSocket on its HTTP port, as the venue serves /v1/ws.
    streamUrl: mock?.wsUrl ?? secrets.PERPS_WS_URL,
    catalogueUrl: paper?.catalogueUrl ?? mock?.url ?? secrets.CATALOGUE_URL ?? settings.catalogue.url ?? '',
    selfProvision: mock !== undefined && paper === undefined,
    journal: o.journal,
    fleet: o.warm?.joined?.part,
    venue: o.warm?.venue,
    streamTap: o.streamTap,
    configSource: o.configSource,
  }
}
