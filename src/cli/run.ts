/**
 * `perpbot run [--live]`: the bot. Dry run (default) starts the embedded mock in-process and points
 * the normal clients at it, so dry run exercises the same transport, signing and limiter as live.
 */
import { createHash } from 'node:crypto'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { deadManOnClockRate } from '../bot/orders/deadManSwitch.ts'
import { type RunningBot, startBot } from '../bot/startBot.ts'
import { loadAndResolve } from '../bot/startup/resolveConfig.ts'
import { type Clock, systemClock } from '../clock.ts'
import { BotError, ConfigError, describeError } from '../errors.ts'
import type { HolderReports } from '../fleet/fleetReport.ts'
import { amount, percent } from '../format/units.ts'
import { fieldOf } from '../guards.ts'
import { journalTarget, openJournalDb } from '../journal/database.ts'
import { createJournal } from '../journal/journal.ts'
import { createLogger, SecretBag } from '../logging/logger.ts'
import { installShutdown } from '../ops/shutdown.ts'
import { PAPER_VENUE } from '../paper/paperAccount.ts'
import { checkPortFree } from '../preflight/portCheck.ts'
import { checkLogLevel, formatCheckLine, runPreflight } from '../preflight/preflight.ts'
import { systemRandom } from '../random.ts'
import { SCRUBBED_ENV_NAMES, SECRET_ENV_NAMES } from '../settings/schema.ts'
import { type CliContext, UsageError } from './context.ts'
import { startEmbeddedMock } from './embeddedMock.ts'
import { botReportOf, venueUrls, type WarmFleetStart, warmFleetStart } from './fleetStart.ts'
import { applyHeapPolicy } from './heapPolicy.ts'
import { nodeEndOfLifeWarning } from './nodeSupport.ts'
import { type ParentWatch, watchParent } from './parentWatch.ts'
import { checkPaperFlags, startPaper } from './runPaper.ts'
import { startRunRecording } from './runRecording.ts'

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
  --scenario NAME    mock scenario: calm, trending, liquidation, withdrawal-failure, flaky
  --speed F          run the mock's clock F times faster than wall time
  --ops-host ADDR    bind the ops server here (default 127.0.0.1); any non-loopback address needs
                     env PERPBOT_OPS_TOKEN, then required as a Bearer token on all but /livez
  --duration S       stop by itself after S seconds (of the bot's clock)
  --record DIR       also record the public stream into a dataset folder (as 'perpbot record'):
                     the pushes the bot receives (tapped from its own sockets) plus trades and
                     books (on the recorder's), written by a low-priority child process, rotated
                     hourly, at most 1 GB`

export async function runCommand(ctx: CliContext, version = 'unknown'): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      live: { type: 'boolean', default: false },
      paper: { type: 'boolean', default: false },
      config: { type: 'string' },
      scenario: { type: 'string' },
      seed: { type: 'string' },
      speed: { type: 'string' },
      faults: { type: 'string' },
      'ops-host': { type: 'string' },
      'ops-port': { type: 'string' },
      'log-level': { type: 'string' },
      duration: { type: 'string' },
      fleet: { type: 'boolean', default: false },
      record: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(RUN_USAGE)
    return 0
  }
  const num = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined
    const n = Number(v)
    if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number`)
    return n
  }
  const overrides: Record<string, unknown> = {}
  if (values.scenario) overrides['mock.scenario'] = values.scenario
  if (values.seed) overrides['mock.seed'] = num('seed', values.seed)
  if (values.speed) {
    overrides['mock.speed'] = num('speed', values.speed)
    overrides['mock.clock'] = 'accelerated'
  }
  if (values.faults) overrides['mock.faults'] = values.faults
  if (values['ops-host']) overrides['ops.host'] = values['ops-host']
  if (values['ops-port']) overrides['ops.port'] = num('ops-port', values['ops-port'])
  if (values['log-level']) overrides['logging.level'] = values['log-level']
  const duration = num('duration', values.duration)
  if (values.fleet && !values.live)
    throw new UsageError('--fleet needs --live (each dry run embeds its own mock)')
  if (values.paper) checkPaperFlags(values)
  // Paper runs load the dry-run overlay (no keys) and run in mode 'paper'.
  if (values.paper) overrides.mode = 'paper'

  // Fleet: the environment and every candidate account's keys are read first; the account is held
  // only after the warm-up (fleetStart.ts), so a standby's hand-over is the account's part alone.
  const standby = new AbortController()
  const abortStandby = (): void => standby.abort(new BotError('stopped while standing by'))
  // Imported only with --fleet: a single bot's start does not load the Redis client.
  const session = values.fleet
    ? (await import('../fleet/joinFleet.ts')).openFleet({
        env: ctx.env,
        logger: createLogger({ level: 'info', isTty: ctx.isTty }),
      })
    : undefined
  const firstKeys = session?.candidates[0]?.env

  // Every setting, secret and strategy param is checked before anything starts or is sent.
  const loaded = await loadAndResolve({
    configDir: ctx.configDir,
    mode: values.live ? 'live' : 'dry-run',
    file: values.config,
    overrides,
    env: firstKeys === undefined ? ctx.env : { ...ctx.env, ...firstKeys },
  }).catch(async (e: unknown) => {
    await session?.close()
    throw e
  })
  const { settings, strategies } = loaded
  const secretBag = new SecretBag(SECRET_ENV_NAMES.map((k) => loaded.secrets[k]))
  for (const k of SCRUBBED_ENV_NAMES) secretBag.register(ctx.env[k])
  const logger = createLogger({
    level: settings.logging.level,
    pretty: settings.logging.pretty,
    isTty: ctx.isTty,
    secrets: secretBag,
  })
  // Nothing is started or sent before the ops port is known to be free (dry run) or every preflight
  // check holds (live): a refusal names what to fix.
  const openJournal = () =>
    settings.journal.enabled
      ? openJournalDb(
          journalTarget({
            stateDir: settings.ops.stateDir,
            mode: settings.mode,
            env: ctx.env,
            accelerated: settings.mock.clock === 'accelerated' || settings.mock.speed !== 1,
          }),
        )
      : Promise.resolve(undefined)
  // A fleet process opens its journal before the lease (nothing in it depends on the account), so a
  // hand-over does not wait for it; a single process opens it after its preflight.
  const earlyJournalDb = session !== undefined ? openJournal() : Promise.resolve(undefined)
  let warm: WarmFleetStart | undefined
  if (session !== undefined) {
    await earlyJournalDb.catch(async (e: unknown) => {
      await session.close()
      throw e
    })
    process.once('SIGTERM', abortStandby)
    process.once('SIGINT', abortStandby)
    process.once('SIGHUP', abortStandby)
    warm = await warmFleetStart({ session, ...loaded, secretBag, logger, signal: standby.signal })
      .catch(async (e: unknown) => {
        await session.close()
        throw e
      })
      .finally(() => {
        process.off('SIGTERM', abortStandby)
        process.off('SIGINT', abortStandby)
        process.off('SIGHUP', abortStandby)
      })
  } else if (settings.mode === 'live') {
    const lines = await runPreflight({
      settings,
      maxOrders: new Map(strategies.map((i) => [i.symbol, i.strategy.maxOrders])),
      perpsUrl: venueUrls(settings, loaded.secrets).perpsUrl,
      proxyPrivateKey: loaded.secrets.PERPS_PROXY_PRIVATE_KEY,
      proxySecret: loaded.secrets.PERPS_PROXY_SECRET,
      streamUrl: loaded.secrets.PERPS_WS_URL,
      checkStream: true,
      clock: systemClock,
      random: systemRandom,
    })
    for (const l of lines)
      logger[checkLogLevel(l)]({ check: l.check, status: l.status }, `preflight ${formatCheckLine(l)}`)
    const failed = lines.filter((l) => l.status === 'fail')
    if (failed.length > 0)
      throw new ConfigError(
        'preflight failed; nothing was sent (see perpbot doctor --live)',
        failed.map(formatCheckLine),
      )
  } else {
    const busy = await checkPortFree(settings.ops.host, settings.ops.port)
    if (busy !== undefined)
      throw new ConfigError('the ops port is not available', [
        `ops.port: ${settings.ops.host}:${settings.ops.port} ${busy}; choose another with --ops-port N or the config key ops.port`,
      ])
  }
  const joined = warm?.joined
  const secrets = warm?.secrets ?? loaded.secrets
  const eol = nodeEndOfLifeWarning(process.version, Date.now())
  if (eol !== undefined) logger.warn({ node: process.version }, eol)
  const heap = applyHeapPolicy(settings.ops.heapGrowthPercent)
  logger.info(
    heap,
    heap.growthPercent === undefined
      ? 'heap: V8 default growth policy'
      : `heap: full collection once the heap grows ${heap.growthPercent}% past the live data (${heap.source})`,
  )
  // The journal opens before anything starts: an unreachable or read-only database is exit 2.
  const journalDb = (await earlyJournalDb) ?? (await openJournal())
  if (journalDb) logger.info({ journal: journalDb.where }, `journal: ${journalDb.kind} at ${journalDb.where}`)
  const paper =
    settings.mode === 'paper'
      ? await startPaper({ settings, secrets, journalDb, logger }).catch(async (e: unknown) => {
          await journalDb?.close()
          throw e
        })
      : undefined
  const mock = settings.mode === 'dry-run' ? await startEmbeddedMock(settings.mock) : paper?.venue.mock
  if (mock && !paper) {
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
  const clock: Clock = mock ? mock.clock : systemClock
  // PnL spanning runs is labelled with the account's first run ("since 2026-12-01 09:30"), not "start".
  const runStartedAt = clock.now()
  const journal =
    journalDb &&
    createJournal({
      db: journalDb,
      clock,
      settings: settings.journal,
      // The embedded mock numbers trades from 1 in every dry run: its rows are keyed by this run.
      // The paper book continues its numbering from the journal (paperAccount.ts): one label.
      venue: paper ? PAPER_VENUE : mock ? 'per-run' : '',
      // The account is known once connected (startBot binds it); rows wait for it.
      bindLater: true,
      clockRate: mock ? mock.clock.info().rate : 1,
      onRefused: (r) =>
        logger.warn(
          { table: r.table, key: r.key, differs: r.differs },
          `journal refused a ${r.table === 'fills' ? 'fill' : 'funding row'} the venue reported: ${r.key} is held with other content (${r.differs}); counted in perpbot_journal_rows_refused`,
        ),
      run: {
        version,
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
  void journal?.prune().catch((e: unknown) => logger.warn({ err: describeError(e) }, 'journal prune failed'))
  // A status line now and then, so progress is visible without the ops server.
  const summary = (bot: RunningBot): void => {
    const s = bot.status()
    const inst = s.instruments
      .map(
        (i) =>
          `${i.symbol} ${i.state} orders=${i.openOrders} reprices=${i.stats?.submitted ?? 0} index=${String(
            fieldOf(i.details, 'indexPrice') ?? '-',
          )}`,
      )
      .join(' | ')
    const pnl = s.account.pnl
    const since =
      pnl?.since !== undefined && pnl.since < runStartedAt
        ? new Date(pnl.since).toISOString().slice(0, 16).replace('T', ' ')
        : 'start'
    const money = pnl
      ? ` | net PnL since ${since} ${amount(pnl.netPnl, s.account.currency ?? 'unknown currency')}`
      : ''
    logger.info(
      { marginRatio: s.account.marginRatio },
      `status: ${inst} | margin ratio ${percent(s.account.marginRatio)}${money}`,
    )
  }
  // Before the bot: its tap reads the bot's own public sockets from their first frame.
  const recording =
    values.record === undefined
      ? undefined
      : startRunRecording({
          dir: resolve(values.record),
          wsUrl: mock?.wsUrl ?? secrets.PERPS_WS_URL,
          botStreams: settings.streams.enabled,
          mock,
          mockSeed: settings.mock.seed,
          restUrl: secrets.PERPS_URL ?? settings.perps.url ?? '',
          clock,
          logger,
        })
  // Signals are handled from before the bot starts: a SIGTERM during startup waits for the start to
  // settle and then stops the bot (exit policy included) instead of killing the process with 143.
  const starting = startBot({
    // On the accelerated mock the switch's deadline is in wall time (deadManSwitch.ts).
    settings: mock ? deadManOnClockRate(settings, mock.clock.info().rate) : settings,
    secrets: paper?.secrets ?? secrets,
    logger,
    secretBag,
    strategies,
    clock,
    random: systemRandom,
    perpsUrl: mock?.url ?? secrets.PERPS_URL ?? settings.perps.url ?? '',
    // The embedded mock serves its WebSocket on its HTTP port, as the venue serves /v1/ws.
    streamUrl: mock?.wsUrl ?? secrets.PERPS_WS_URL,
    catalogueUrl: paper?.catalogueUrl ?? mock?.url ?? secrets.CATALOGUE_URL ?? settings.catalogue.url ?? '',
    selfProvision: mock !== undefined && paper === undefined,
    journal,
    fleet: joined?.part,
    venue: warm?.venue,
    streamTap: recording?.tap,
    // `perpbot reload`: the same files, overrides and environment as this start.
    configSource: {
      read: () =>
        loadAndResolve({
          configDir: ctx.configDir,
          mode: values.live ? 'live' : 'dry-run',
          file: values.config,
          overrides,
          env: firstKeys === undefined ? ctx.env : { ...ctx.env, ...firstKeys },
        }),
    },
  })
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
      if (bot) summary(bot)
      const recorded = await recording?.stop()
      if (recorded) logger.info(recorded, `recorded ${recorded.rows} rows into ${values.record}`)
      const report = await bot?.stop(reason)
      await joined?.close()
      // The paper book's history goes to the journal before the book closes (paperAccount.ts).
      await (paper ? paper.venue.close(journal) : mock?.close())
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
    await (paper ? paper.venue.close(journal) : mock?.close())
    await journal?.close(`start failed: ${describeError(e)}`).catch(() => undefined)
    throw e
  }

  // A fleet holder's line in the fleet's view (status --fleet, /fleet): its state and PnL, every 2 s.
  reports = joined?.startReports(() => botReportOf(running.status()))
  // `perpbot stop` (or the dashboard's, or a phone's): the same stop as SIGTERM.
  running.control.stopRequested.subscribe((reason) => void shutdown.trigger(reason, 0))
  statusTimer = setInterval(() => summary(running), 10_000)
  statusTimer.unref()
  if (duration !== undefined) {
    stopTimer = clock.setTimeout(() => void shutdown.trigger('duration elapsed', 0), duration * 1000)
  }
  return await exitCode
}
