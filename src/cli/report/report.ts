/**
 * `perpbot report`: PnL, fees, funding, volume, fills, maker share, drawdown, time quoting and halted,
 * alerts and end positions from the journal, per day, instrument or run, for one account on one venue,
 * with round trips and markouts under it; `--trades` every fill as CSV (with its mids and markouts); `--check` the journal against the venue's own fills and funding. A
 * reader: it works beside the running bot and after it stopped, never creates or migrates a database,
 * and needs no credentials (except `--check`, which reads the venue).
 */
import { parseArgs } from 'node:util'
import { type RoundTripStats, roundTripsOfFills } from '../../analytics/roundTrips.ts'
import { fillSide } from '../../format/units.ts'
import { describeTarget, journalTarget, openJournalDb } from '../../journal/database.ts'
import { type JournalScope, journalScopes, type ScopeSummary } from '../../journal/journalScope.ts'
import { loadFillMids } from '../../journal/reading/markoutQueries.ts'
import { markoutRows, withMids } from '../../journal/reading/markoutReport.ts'
import { buildReport, type ReportBy, summarizeTransfers } from '../../journal/reading/report.ts'
import { loadReportInput, newestRecordAt } from '../../journal/reading/reportQueries.ts'
import { loadSettings } from '../../settings/load.ts'
import { type CliContext, UsageError } from '../context.ts'
import { checkAgainstVenue, checkFailed, formatCheck } from './reportCheck.ts'
import { formatCsv, formatJson, formatTable, formatTradesCsv, formatTransfers } from './reportFormat.ts'
import { formatMarkoutTable, MARKOUT_CSV_HEAD, markoutCsvCells, markoutsJson } from './reportMarkouts.ts'

export const REPORT_USAGE = `usage: perpbot report [--live | --paper | --accelerated] [--since SPAN|DATE] [--until DATE]
                      [--by day|instrument|run] [--format table|csv|json] [--trades] [--check]
                      [--account ADDRESS] [--venue VENUE] [--config FILE]
  The journal's numbers for one account on one venue, per UTC day, instrument or run, and in total:
  net PnL (realized + change of unrealized − fees − funding; a position held before the account's
  first run is not in it: its change in value is shown apart), fees, funding, volume, fills, maker
  share, max drawdown, wall hours quoting and halted, alerts raised and resolved, end positions;
  deposits and withdrawals per status, in asset units. Every money column names its currency.
  Under the table: round trips, and per row the markouts of our fills in bps (positive = good for
  us): spread captured, 1 s, 10 s and 60 s after each fill, adverse selection, against the book's
  mid the bot recorded, with how many fills were measured ('unknown' when none).
  Works while the bot runs.
  --live          the live journal (DATABASE_URL when set, else ops.stateDir/journal-live.sqlite);
                  default: the dry run's (ops.stateDir/journal-dry-run.sqlite), as 'run' picks them
  --paper         the paper journal (ops.stateDir/journal-paper.sqlite, 'run --paper')
  --accelerated   the journal of dry runs on an accelerated mock clock (--speed ≠ 1), kept apart
  --since S       a span back from now (30m, 24h, 7d) or a date/time (2026-11-20, ISO 8601); default 7d
  --until D       end of the window (date/time); default now (a dry run: or its mock's clock, if ahead)
  --by K          day (default), instrument or run
  --format F      table (default; amounts to the cent), csv or json (exact decimals)
  --trades        every fill of the window as CSV (time, instrument, side, price, qty, notional, fee,
                  realized PnL, liquidity, liquidation, trade and order id, the mid at the fill and
                  1 s, 10 s, 60 s after it, captured and markouts in bps; empty: unknown)
  --check         with --live: read the venue's fills and funding of the window (PERPS_URL,
                  PERPS_PROXY_PRIVATE_KEY, PERPS_PROXY_SECRET) and name every difference from the
                  journal, and each position the journal holds otherwise; exit 1 when there is one
  --account A     the account (owner address) to report; default: the one of the newest run
                  ('unknown': rows of an earlier version that could not be attributed)
  --venue V       the venue (exchange domain such as Polymarket/1/137); default: the account's newest`

const SPAN = /^(\d+(?:\.\d+)?)(m|h|d|w)$/
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** `7d` → now − 7 days; a date or ISO time → that moment. */
export function parseWhen(text: string, now: number, flag: string): number {
  const span = SPAN.exec(text)
  if (span) return now - Number(span[1]) * (UNIT_MS[span[2] ?? 'd'] ?? 0)
  const t = Date.parse(text)
  if (!Number.isFinite(t))
    throw new UsageError(`--${flag} must be a span (30m, 24h, 7d, 2w) or a date, got '${text}'`)
  return t
}

/** The account and venue to report: asked for, else the newest run's; an unknown one is a usage error. */
export function chooseScope(
  scopes: readonly ScopeSummary[],
  account: string | undefined,
  venue: string | undefined,
): JournalScope | undefined {
  const a = account?.toLowerCase()
  const match = scopes.filter(
    (s) => (a === undefined || s.account === a) && (venue === undefined || s.venue === venue),
  )
  const first = match[0]
  if (first !== undefined) return { account: first.account, venue: first.venue }
  if (a === undefined && venue === undefined) return undefined
  const known = scopes.map((s) => `${s.account} on ${s.venue || "'' (an earlier version's)"}`).join(', ')
  throw new UsageError(
    `the journal holds no runs of ${a ?? 'any account'}${venue === undefined ? '' : ` on ${venue}`}${known === '' ? '' : ` (it holds: ${known})`}`,
  )
}

/** One line of round trips under the table (the markouts' table follows it). */
function roundTripLine(t: RoundTripStats): string {
  const pct = t.winRate === undefined ? 'n/a' : `${(t.winRate * 100).toFixed(1)} %`
  const pf = t.profitFactor === undefined ? 'n/a' : t.profitFactor.toFixed(2)
  return `round trips (FIFO over the window's fills): ${t.trips}, win rate ${pct}, profit factor ${pf}`
}

export async function reportCommand(ctx: CliContext, now: () => number = Date.now): Promise<number> {
  const { values } = parseArgs({
    args: [...ctx.argv],
    options: {
      live: { type: 'boolean', default: false },
      accelerated: { type: 'boolean', default: false },
      paper: { type: 'boolean', default: false },
      since: { type: 'string', default: '7d' },
      until: { type: 'string' },
      by: { type: 'string', default: 'day' },
      format: { type: 'string', default: 'table' },
      trades: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      account: { type: 'string' },
      venue: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    ctx.stdout(REPORT_USAGE)
    return 0
  }
  const by = values.by
  if (by !== 'day' && by !== 'instrument' && by !== 'run')
    throw new UsageError(`--by must be day, instrument or run, got '${by}'`)
  const format = values.format
  if (format !== 'table' && format !== 'csv' && format !== 'json')
    throw new UsageError(`--format must be table, csv or json, got '${format}'`)
  if (values.live && values.accelerated)
    throw new UsageError('--accelerated is a dry-run journal: not with --live')
  if (values.check && !values.live) throw new UsageError('--check reads the live venue: use it with --live')
  if (values.check && values.trades) throw new UsageError('--check and --trades are separate runs')
  if (values.account !== undefined && !/^(0x[0-9a-fA-F]{40}|unknown)$/.test(values.account))
    throw new UsageError(
      `--account must be an address (0x + 40 hex digits) or 'unknown', got '${values.account}'`,
    )
  const t = now()
  const since = parseWhen(values.since, t, 'since')
  let until = values.until === undefined ? t : parseWhen(values.until, t, 'until')
  if (since > until) throw new UsageError('--since must be before --until')
  if (values.live && values.paper)
    throw new UsageError('--live and --paper name different journals: pick one')
  if (values.paper && values.accelerated)
    throw new UsageError('--accelerated is a dry-run journal: not with --paper')
  const mode = values.live ? 'live' : values.paper ? 'paper' : 'dry-run'
  const { settings, secrets } = loadSettings({
    configDir: ctx.configDir,
    mode: mode === 'live' ? 'live' : 'dry-run',
    file: values.config,
    env: ctx.env,
    needs: [],
  })
  const target = journalTarget({
    stateDir: settings.ops.stateDir,
    mode,
    env: ctx.env,
    accelerated: values.accelerated,
  })
  const db = await openJournalDb(target, { readonly: true })
  try {
    if (values.check) {
      const { scope, result, incomplete, positions } = await checkAgainstVenue({
        db,
        settings,
        secrets,
        since,
        until,
      })
      const input = await loadReportInput(db, since, until, scope)
      ctx.stdout(
        `check: journal ${describeTarget(target)} against the venue, account ${scope.account} on ${scope.venue}, ${new Date(since).toISOString()} → ${new Date(until).toISOString()}`,
      )
      for (const l of formatCheck(result, input.symbols, input.currency, incomplete, positions)) ctx.stdout(l)
      return checkFailed(result, incomplete, positions) ? 1 : 0
    }
    const scopes = await journalScopes(db)
    const scope = chooseScope(scopes, values.account, values.venue) ?? { account: 'unknown', venue: '' }
    // A dry run journals on its mock's clock, which an accelerated mock runs ahead of the wall.
    const newest =
      mode === 'dry-run' && values.until === undefined ? await newestRecordAt(db, scope) : undefined
    if (newest !== undefined && newest > until) until = newest
    const loaded = await loadReportInput(db, since, until, scope)
    const mids = await loadFillMids(db, since, until, scope)
    const input = { ...loaded, fills: withMids(loaded.fills, mids) }
    if (values.trades) {
      const inWindow = input.fills.filter((f) => f.ts >= since && f.ts <= until)
      for (const l of formatTradesCsv(inWindow, input.symbols, input.currency)) ctx.stdout(l)
      return 0
    }
    const rows = buildReport(input, by satisfies ReportBy)
    // undefined: the journal predates the mids (migration 5), every markout unknown.
    const markouts = mids === undefined ? undefined : markoutRows(input, by)
    const transfers = summarizeTransfers(input)
    if (format === 'json')
      ctx.stdout(
        formatJson(
          rows,
          { since, until, by, database: describeTarget(target), ...scope, currency: input.currency },
          transfers,
          markoutsJson(markouts),
        ),
      )
    else if (format === 'csv')
      for (const l of formatCsv(rows, input.currency, {
        head: MARKOUT_CSV_HEAD,
        cells: (key) => markoutCsvCells(markouts?.find((m) => m.key === key)?.summary),
      }))
        ctx.stdout(l)
    else {
      ctx.stdout(
        `journal ${describeTarget(target)}, account ${scope.account} on ${scope.venue || "'' (an earlier version's rows)"}, ${new Date(since).toISOString()} → ${new Date(until).toISOString()}`,
      )
      const others = scopes.filter((s) => s.account !== scope.account || s.venue !== scope.venue)
      if (others.length > 0)
        ctx.stdout(
          `(this journal also holds ${others.length} other account/venue pair(s), not in these numbers: --account to choose)`,
        )
      for (const l of formatTable(rows, input.currency)) ctx.stdout(l)
      ctx.stdout(roundTripLine(roundTripsOfFills(input.fills, (s) => fillSide(s) === 'buy')))
      for (const l of formatMarkoutTable(markouts)) ctx.stdout(l)
      for (const l of formatTransfers(transfers)) ctx.stdout(l)
    }
    return 0
  } finally {
    await db.close()
  }
}
