/**
 * `perpbot report`: PnL, fees, funding, volume, fills, maker share, drawdown, time quoting and halted,
 * and alerts from the journal, per day or per instrument. A reader: it works beside the running bot
 * and after it stopped, never creates or migrates a database, and needs no credentials.
 */
import { parseArgs } from 'node:util'
import { type RoundTripStats, roundTripsOfFills } from '../analytics/roundTrips.ts'
import { fillSide } from '../format/units.ts'
import { describeTarget, journalTarget, openJournalDb } from '../journal/database.ts'
import { buildReport, type ReportBy, summarizeTransfers } from '../journal/report.ts'
import { loadReportInput, newestRecordAt } from '../journal/reportQueries.ts'
import { loadSettings } from '../settings/load.ts'
import { type CliContext, UsageError } from './context.ts'
import { formatCsv, formatJson, formatTable, formatTransfers } from './reportFormat.ts'

export const REPORT_USAGE = `usage: perpbot report [--live] [--since SPAN|DATE] [--until DATE] [--by day|instrument]
                      [--format table|csv|json] [--config FILE]
  The journal's numbers per UTC day or per instrument, and in total: net PnL (realized + change of
  unrealized − fees − funding), fees, funding, volume, fills, maker share, max drawdown, hours
  quoting and halted, alerts raised and resolved; deposits and withdrawals per status. Works while
  the bot runs.
  --live          the live journal (DATABASE_URL when set, else ops.stateDir/journal-live.sqlite);
                  default: the dry run's (ops.stateDir/journal-dry-run.sqlite), as 'run' picks them
  --since S       a span back from now (30m, 24h, 7d) or a date/time (2026-11-20, ISO 8601); default 7d
  --until D       end of the window (date/time); default now (a dry run: or its mock's clock, if ahead)
  --by K          day (default) or instrument
  --format F      table (default; amounts to the cent), csv or json (exact decimals)`

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

/** One line of round trips under the table (markouts need the mid at each fill: simulate reports have them). */
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
      since: { type: 'string', default: '7d' },
      until: { type: 'string' },
      by: { type: 'string', default: 'day' },
      format: { type: 'string', default: 'table' },
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
  if (by !== 'day' && by !== 'instrument') throw new UsageError(`--by must be day or instrument, got '${by}'`)
  const format = values.format
  if (format !== 'table' && format !== 'csv' && format !== 'json')
    throw new UsageError(`--format must be table, csv or json, got '${format}'`)
  const t = now()
  const since = parseWhen(values.since, t, 'since')
  let until = values.until === undefined ? t : parseWhen(values.until, t, 'until')
  if (since > until) throw new UsageError('--since must be before --until')
  const mode = values.live ? 'live' : 'dry-run'
  const { settings } = loadSettings({
    configDir: ctx.configDir,
    mode,
    file: values.config,
    env: ctx.env,
    needs: [],
  })
  const target = journalTarget({ stateDir: settings.ops.stateDir, mode, env: ctx.env })
  const db = await openJournalDb(target, { readonly: true })
  try {
    // A dry run journals on its mock's clock, which an accelerated mock runs ahead of the wall.
    const newest = mode === 'dry-run' && values.until === undefined ? await newestRecordAt(db) : undefined
    if (newest !== undefined && newest > until) until = newest
    const input = await loadReportInput(db, since, until)
    const rows = buildReport(input, by satisfies ReportBy)
    const transfers = summarizeTransfers(input)
    if (format === 'json')
      ctx.stdout(formatJson(rows, { since, until, by, database: describeTarget(target) }, transfers))
    else if (format === 'csv') for (const l of formatCsv(rows)) ctx.stdout(l)
    else {
      ctx.stdout(
        `journal ${describeTarget(target)}, ${new Date(since).toISOString()} → ${new Date(until).toISOString()}`,
      )
      for (const l of formatTable(rows)) ctx.stdout(l)
      ctx.stdout(roundTripLine(roundTripsOfFills(input.fills, (s) => fillSide(s) === 'buy')))
      for (const l of formatTransfers(transfers)) ctx.stdout(l)
    }
    return 0
  } finally {
    await db.close()
  }
}
