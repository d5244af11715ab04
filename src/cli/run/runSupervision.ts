/**
 * The running process around the bot: signals handled from before the bot starts (a SIGTERM during
 * the start waits for it to settle, then stops the bot by its exit policy instead of killing the
 * process with 143), the stop sequence's order (recording, bot, fleet lease, local book, journal), a
 * start that fails, the parent watch, a lost fleet lease (exit 75), the operator's stop command, the
 * status line every 10 s and `--duration`. Resolves with the exit code.
 */
import type { RunningBot } from '../../bot/startBot.ts'
import { BotError, describeError } from '../../errors.ts'
import type { HolderReports } from '../../fleet/fleetReport.ts'
import type { JoinedFleet } from '../../fleet/joinFleet.ts'
import type { Journal } from '../../journal/journal.ts'
import type { Logger } from '../../logging/logger.ts'
import { installShutdown } from '../../ops/shutdown.ts'
import type { Settings } from '../../settings/schema.ts'
import { botReportOf } from '../fleetStart.ts'
import { type ParentWatch, watchParent } from '../parentWatch.ts'
import type { RunRecording } from '../runRecording.ts'
import type { RunVenue } from './runVenue.ts'

export async function superviseRun(o: {
  starting: Promise<RunningBot>
  settings: Settings
  logger: Logger
  venue: RunVenue
  journal: Journal | undefined
  joined: JoinedFleet | undefined
  recording: RunRecording | undefined
  /** Where `--record` writes (for the closing line). */
  recordDir: string | undefined
  duration: number | undefined
  statusLine: (bot: RunningBot) => void
}): Promise<number> {
  const { starting, settings, logger, journal, joined, recording } = o
  const { paper, mock, clock } = o.venue
  const closeVenue = (): Promise<void> =>
    // The paper book's history goes to the journal before the book closes (paperAccount.ts).
    paper ? paper.venue.close(journal) : (mock?.close() ?? Promise.resolve())
  let statusTimer: ReturnType<typeof setInterval> | undefined
  let reports: HolderReports | undefined
  let stopTimer: unknown
  let orphan: ParentWatch | undefined
  let settle: ((code: number) => void) | undefined
  const exitCode = new Promise<number>((resolve) => {
    settle = resolve
  })
  const shutdown = installShutdown({
    logger,
    timeoutMs: settings.ops.shutdownTimeoutMs,
    onShutdown: async (reason) => {
      // The start settles first (the main flow awaited it earlier), so its timers exist by now.
      const bot = await starting.catch(() => undefined)
      orphan?.stop()
      clearInterval(statusTimer)
      reports?.stop()
      if (stopTimer !== undefined) clock.clearTimeout(stopTimer)
      if (bot) o.statusLine(bot)
      const recorded = await recording?.stop()
      if (recorded) logger.info(recorded, `recorded ${recorded.rows} rows into ${o.recordDir}`)
      const report = await bot?.stop(reason)
      await joined?.close()
      await closeVenue()
      const j = await journal?.close(reason)
      if (j && j.droppedTotal > 0)
        logger.warn({ dropped: j.dropped }, `journal: ${j.droppedTotal} row(s) could not be written`)
      // A live stop that may have left orders on the book is a failure (exit 1), not a clean stop.
      if (report?.cancelAllFailed && settings.mode === 'live')
        throw new BotError('the exit policy could not cancel every open order; check the venue')
    },
    exit: (code) => {
      shutdown()
      settle?.(code)
    },
  })
  // `npx perpbot run`: SIGTERM ends npm and its shell, not us; a bot nobody can stop any more stops
  // itself by its exit policy (ops.exitWhenOrphaned; a supervisor's child has pid 1 as parent).
  orphan = settings.ops.exitWhenOrphaned
    ? watchParent({
        pid: process.pid,
        ppid: () => process.ppid,
        onGone: (gone) => {
          logger.warn(
            { parentPid: gone.pid, parent: gone.name },
            `the process that started the bot exited (pid ${gone.pid}, ${gone.name}): stopping by the exit policy (ops.exitWhenOrphaned)`,
          )
          void shutdown.trigger(`parent process ${gone.pid} (${gone.name}) exited`, 0)
        },
      })
    : undefined
  // Lease lost (expired, taken): stop quoting and cancel our own orders now; 75 (EX_TEMPFAIL) asks
  // the supervisor to start us again, to stand by.
  joined?.lease.onChange((s) => {
    if (s.state === 'lost' && s.reason !== 'released')
      void shutdown.trigger(`fleet lease of ${joined.lease.account} lost (${s.reason})`, 75)
  })
  let running: RunningBot
  try {
    running = await starting
  } catch (e) {
    // A signal already shutting down owns the exit; otherwise the start error is the outcome.
    shutdown()
    orphan?.stop()
    await joined?.close()
    await closeVenue()
    await journal?.close(`start failed: ${describeError(e)}`).catch(() => undefined)
    throw e
  }
  // A fleet holder's line in the fleet's view (status --fleet, /fleet): its state and PnL, every 2 s.
  reports = joined?.startReports(() => botReportOf(running.status()))
  // `perpbot stop` (or the dashboard's, or a phone's): the same stop as SIGTERM.
  running.control.stopRequested.subscribe((reason) => void shutdown.trigger(reason, 0))
  statusTimer = setInterval(() => o.statusLine(running), 10_000)
  statusTimer.unref()
  if (o.duration !== undefined) {
    const seconds = o.duration
    stopTimer = clock.setTimeout(() => void shutdown.trigger('duration elapsed', 0), seconds * 1000)
  }
  return await exitCode
}
