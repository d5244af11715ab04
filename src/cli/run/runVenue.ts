/**
 * Which venue the run trades, started before the bot: the paper book on the live market (`--paper`,
 * runPaper.ts), the embedded mock (dry run), or the real venue (nothing to start). The clock is the
 * local book's (virtual for an accelerated mock) or the system's.
 */
import { type Clock, systemClock } from '../../clock.ts'
import type { JournalDb } from '../../journal/database.ts'
import type { Logger } from '../../logging/logger.ts'
import type { RunningMock } from '../../mock/server.ts'
import type { Secrets, Settings } from '../../settings/schema.ts'
import type { StartedPaper } from '../runPaper.ts'

export interface RunVenue {
  paper: StartedPaper | undefined
  /** The embedded mock served on loopback (dry run); the paper book is in process (`paper`). */
  mock: RunningMock | undefined
  clock: Clock
  /** For the journal's rows. */
  kind: 'paper' | 'embedded-mock' | 'venue'
}

/** The paper book and the embedded mock are imported only when the run uses them (not for --live). */
export async function startRunVenue(o: {
  settings: Settings
  secrets: Secrets
  journalDb: JournalDb | undefined
  logger: Logger
}): Promise<RunVenue> {
  const { settings, logger } = o
  const paper =
    settings.mode === 'paper'
      ? await (await import('../runPaper.ts')).startPaper(o).catch(async (e: unknown) => {
          await o.journalDb?.close()
          throw e
        })
      : undefined
  const mock =
    settings.mode === 'dry-run'
      ? await (await import('../embeddedMock.ts')).startEmbeddedMock(settings.mock)
      : undefined
  if (mock) {
    logger.info(
      {
        url: mock.url,
        scenario: settings.mock.scenario,
        seed: settings.mock.seed,
        clock: settings.mock.clock,
      },
      `dry run against the embedded mock at ${mock.url} (scenario ${settings.mock.scenario})`,
    )
  }
  const kind = paper ? 'paper' : mock ? 'embedded-mock' : 'venue'
  return { paper, mock, clock: mock?.clock ?? paper?.venue.clock ?? systemClock, kind }
}
