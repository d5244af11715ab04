/**
 * `perpbot run`'s journal: where it lives (live, dry run, accelerated dry run, paper: each its own
 * file, or DATABASE_URL), and the journal part over the opened database, labelled by venue.
 */
import { createHash } from 'node:crypto'
import type { Clock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import { type JournalDb, journalTarget, openJournalDb } from '../../journal/database.ts'
import { createJournal, type Journal } from '../../journal/journal.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Settings } from '../../settings/schema.ts'

/** Opens the run's journal database (undefined when the journal is off); a bad one is exit 2. */
export function journalOpener(
  settings: Settings,
  env: Readonly<Record<string, string | undefined>>,
): () => Promise<JournalDb | undefined> {
  return () =>
    settings.journal.enabled
      ? openJournalDb(
          journalTarget({
            stateDir: settings.ops.stateDir,
            mode: settings.mode,
            env,
            accelerated: settings.mock.clock === 'accelerated' || settings.mock.speed !== 1,
          }),
        )
      : Promise.resolve(undefined)
}

/**
 * The journal part over the opened database, pruned in the background; undefined without one. The
 * paper book's module (and what it loads) is imported only for a paper run.
 */
export async function createRunJournal(o: {
  journalDb: JournalDb | undefined
  clock: Clock
  settings: Settings
  /** Which local venue the run trades, if any: its rows are keyed apart from the real venue's. */
  venue: 'paper' | 'embedded-mock' | 'venue'
  clockRate: number
  version: string
  logger: Logger
}): Promise<Journal | undefined> {
  const { journalDb, logger, settings } = o
  if (!journalDb) return undefined
  const paperVenue = o.venue === 'paper' ? (await import('../../paper/paperAccount.ts')).PAPER_VENUE : ''
  const journal = createJournal({
    db: journalDb,
    clock: o.clock,
    settings: settings.journal,
    // The embedded mock numbers trades from 1 in every dry run: its rows are keyed by this run.
    // The paper book continues its numbering from the journal (paperAccount.ts): one label.
    venue: o.venue === 'paper' ? paperVenue : o.venue === 'embedded-mock' ? 'per-run' : '',
    // The account is known once connected (startBot binds it); rows wait for it.
    bindLater: true,
    clockRate: o.clockRate,
    onRefused: (r) =>
      logger.warn(
        { table: r.table, key: r.key, differs: r.differs },
        `journal refused a ${r.table === 'fills' ? 'fill' : 'funding row'} the venue reported: ${r.key} is held with other content (${r.differs}); counted in perpbot_journal_rows_refused`,
      ),
    run: {
      version: o.version,
      mode: settings.mode,
      configHash: createHash('sha256').update(JSON.stringify(settings)).digest('hex'),
    },
    onStateChange: (state, stats) => {
      if (state === 'failing')
        logger.error(
          { journal: stats.where, err: stats.lastError },
          `journal database lost: writes are buffered (up to ${stats.capacity} rows), trading goes on`,
        )
      else logger.info({ journal: stats.where }, 'journal database back: buffered rows written')
    },
  })
  void journal.prune().catch((e: unknown) => logger.warn({ err: describeError(e) }, 'journal prune failed'))
  return journal
}
