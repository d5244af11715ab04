/**
 * `perpbot run [--live | --paper]`: the bot. Dry run (default) starts the embedded mock in-process and
 * points the normal clients at it, so dry run exercises the same transport, signing and limiter as
 * live. The process root: a list of named steps, each in its own module under `run/`; the engine
 * starts through `startEngine` with the venue port's adapter for this run.
 */
import { resolve } from 'node:path'
import { startEngine } from '../engine/startEngine.ts'
import { SCENARIO_NAMES } from '../mock/perps/market/scenarios.ts'
import type { CliContext } from './context.ts'
import { parseRunArgs } from './run/runArgs.ts'
import { passStartChecks } from './run/runChecks.ts'
import { loadRunConfig } from './run/runConfig.ts'
import { runEngineOptions } from './run/runEngineOptions.ts'
import { createRunJournal, journalOpener } from './run/runJournal.ts'
import { logStatusLine } from './run/runStatusLine.ts'
import { superviseRun } from './run/runSupervision.ts'
import { noteRuntime } from './run/runtimeNotes.ts'
import { startRunVenue } from './run/runVenue.ts'

export const RUN_USAGE = `usage: perpbot run [--live | --paper] [--config FILE] [--scenario NAME] [--seed N] [--speed F]
                   [--faults NAME] [--ops-host ADDR] [--ops-port N] [--log-level LEVEL]
                   [--duration SECONDS] [--fleet]
  Dry run (default): trades the embedded mock; no keys needed.
  --paper            paper trading on the live market, no keys: the venue's public stream and REST
                     (PERPS_WS_URL, PERPS_URL) drive a local book where our orders rest and fill by
                     the queue-aware fill model against live prints and the book; fees and rules
                     from the venue's schedule; nothing signed reaches the venue. Its own journal
                     (journal-paper.sqlite, venue 'paper'; perpbot report --paper) and account,
                     resumed at a restart; alerts titled PAPER. See docs/research.md
  --live             trade the venue at PERPS_URL with PERPS_PROXY_PRIVATE_KEY / PERPS_PROXY_SECRET
  --fleet            (with --live) one of many processes: hold an account's lease in FLEET_REDIS_URL
                     (ACCOUNT=auto|ordinal|NAME of FLEET_ACCOUNTS; a warm standby while none is
                     free: venue linked and every candidate preflighted before the lease), read the
                     keys from FLEET_SECRETS_DIR, share FLEET_EGRESS_ID's request budget;
                     exits 75 when the lease is lost (restart it to stand by). See docs/fleet.md
  --scenario NAME    mock scenario (default calm):
                     ${SCENARIO_NAMES.join(', ')}
  --speed F          run the mock's clock F times faster than wall time
  --ops-host ADDR    bind the ops server here (default 127.0.0.1); any non-loopback address needs
                     env PERPBOT_OPS_TOKEN, then required as a Bearer token on all but /livez
  --duration S       stop by itself after S seconds (of the bot's clock)
  --record DIR       also record the public stream into a dataset folder (as 'perpbot record'):
                     the pushes the bot receives (tapped from its own sockets) plus trades and
                     books (on the recorder's), written by a low-priority child process, rotated
                     hourly, at most 1 GB`

export async function runCommand(ctx: CliContext, version = 'unknown'): Promise<number> {
  const args = parseRunArgs(ctx.argv)
  if (args === 'help') {
    ctx.stdout(RUN_USAGE)
    return 0
  }
  // Every setting, secret and strategy param is checked before anything starts or is sent.
  const config = await loadRunConfig(ctx, args)
  const { settings } = config.loaded
  const { logger } = config
  const openJournal = journalOpener(settings, ctx.env)
  // Nothing is started or sent before the checks hold (fleet warm start, preflight, ops port).
  const { warm, earlyJournalDb } = await passStartChecks(config, openJournal)
  const secrets = warm?.secrets ?? config.loaded.secrets
  noteRuntime(logger, settings)
  // The journal opens before anything starts: an unreachable or read-only database is exit 2.
  const journalDb = (await earlyJournalDb) ?? (await openJournal())
  if (journalDb) logger.info({ journal: journalDb.where }, `journal: ${journalDb.kind} at ${journalDb.where}`)
  const venue = await startRunVenue({ settings, secrets, journalDb, logger })
  const runStartedAt = venue.clock.now()
  const journal = await createRunJournal({
    journalDb,
    clock: venue.clock,
    settings,
    venue: venue.kind,
    clockRate: venue.mock ? venue.mock.clock.info().rate : 1,
    version,
    logger,
  })
  // Before the bot: its tap reads the bot's own public sockets from their first frame.
  const recording =
    args.record === undefined
      ? undefined
      : // Loaded only with --record (the recorder, its tap and the research formats).
        (await import('./runRecording.ts')).startRunRecording({
          dir: resolve(args.record),
          wsUrl: venue.mock?.wsUrl ?? secrets.PERPS_WS_URL,
          botStreams: settings.streams.enabled,
          mock: venue.mock,
          mockSeed: settings.mock.seed,
          restUrl: secrets.PERPS_URL ?? settings.perps.url ?? '',
          clock: venue.clock,
          logger,
        })
  const options = { config, venue, secrets, journal, warm, streamTap: recording?.tap }
  const starting = startEngine(runEngineOptions({ ...options, configSource: config.configSource }))
  return superviseRun({
    starting,
    settings,
    logger,
    venue,
    journal,
    joined: warm?.joined,
    recording,
    recordDir: args.record,
    duration: args.duration,
    statusLine: (bot) => logStatusLine(bot, runStartedAt, logger),
  })
}
