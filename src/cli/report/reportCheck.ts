/**
 * `perpbot report --check`: the live journal's fills and funding of the account the credentials
 * name, against the venue's own history (the perps client's paged history reads) over the window;
 * every difference named, exit 1 when there is one.
 */
import { systemClock } from '../../clock.ts'
import { addDecimal, subDecimal } from '../../decimal.ts'
import type { JournalDb } from '../../journal/database.ts'
import { domainVenue, type JournalScope } from '../../journal/journalScope.ts'
import { perpsHistory } from '../../journal/perpsHistory.ts'
import {
  type CheckResult,
  compareBooks,
  comparePositions,
  type PositionDifference,
  sameTotals,
} from '../../journal/reading/check.ts'
import { takenAt } from '../../journal/reading/report.ts'
import type { FillInput, FundingInput } from '../../journal/reconcile.ts'
import { createPerpsClient } from '../../perps/client/createPerpsClient.ts'
import { perpsDomainFromExchangeInfo } from '../../perps/signing/domain.ts'
import { addressOfPrivateKey } from '../../perps/signing/privateKey.ts'
import { systemRandom } from '../../random.ts'
import type { Secrets, Settings } from '../../settings/schema.ts'
import { UsageError } from '../context.ts'

/** Pages per kind (the venue's history pages; a longer window is refused rather than half-read). */
const CHECK_MAX_PAGES = 2_000

export async function checkAgainstVenue(o: {
  db: JournalDb
  settings: Settings
  secrets: Secrets
  since: number
  until: number
}): Promise<{
  scope: JournalScope
  result: CheckResult
  incomplete: string[]
  positions: PositionDifference[]
}> {
  const key = o.secrets.PERPS_PROXY_PRIVATE_KEY
  const secret = o.secrets.PERPS_PROXY_SECRET
  const baseUrl = o.secrets.PERPS_URL ?? o.settings.perps.url
  if (!key || !secret || !baseUrl)
    throw new UsageError(
      '--check reads the venue: it needs PERPS_URL, PERPS_PROXY_PRIVATE_KEY and PERPS_PROXY_SECRET',
    )
  const perps = createPerpsClient({
    baseUrl,
    clock: systemClock,
    random: systemRandom,
    credentials: { proxy: addressOfPrivateKey(key, 'PERPS_PROXY_PRIVATE_KEY'), secret },
    authHeaderNames: { proxy: o.settings.perps.proxyHeader, secret: o.settings.perps.secretHeader },
  })
  try {
    const credentials = await perps.getCredentials()
    const domain = perpsDomainFromExchangeInfo(await perps.getExchange())
    const scope: JournalScope = { account: credentials.address.toLowerCase(), venue: domainVenue(domain) }
    const history = perpsHistory(perps)
    const window = { since: o.since, until: o.until }
    const incomplete: string[] = []
    const fills: FillInput[] = []
    let more = false
    for await (const page of history.fillPages(window, CHECK_MAX_PAGES)) {
      fills.push(...page.rows)
      more = page.more
    }
    if (more) incomplete.push(`fills: more than ${CHECK_MAX_PAGES} pages; choose a shorter window`)
    const funding: FundingInput[] = []
    more = false
    for await (const page of history.fundingPages(window, CHECK_MAX_PAGES)) {
      funding.push(...page.rows)
      more = page.more
    }
    if (more) incomplete.push(`funding: more than ${CHECK_MAX_PAGES} pages; choose a shorter window`)
    const journalFills = await o.db.db
      .selectFrom('fills')
      .select([
        'trade_id',
        'order_id',
        'ts',
        'iid',
        'side',
        'price',
        'qty',
        'fee',
        'realized_pnl',
        'liquidation',
      ])
      .where('account', '=', scope.account)
      .where('venue', '=', scope.venue)
      .where('ts', '>=', o.since)
      .where('ts', '<=', o.until)
      .execute()
    const journalFunding = await o.db.db
      .selectFrom('funding')
      .select(['key', 'ts', 'iid', 'size', 'amount'])
      .where('account', '=', scope.account)
      .where('venue', '=', scope.venue)
      .where('ts', '>=', o.since)
      .where('ts', '<=', o.until)
      .execute()
    const result = compareBooks({ fills: journalFills, funding: journalFunding }, { fills, funding })
    const positions = comparePositions(
      await journalPositions(o.db, scope),
      (await perps.getPortfolio()).positions,
    )
    return { scope, result, incomplete, positions }
  } finally {
    await perps.close()
  }
}

/**
 * The journal's position per instrument now: its last minute snapshot plus the fills journaled after
 * that minute; undefined for an instrument with fills but no snapshot (the journal cannot say).
 */
async function journalPositions(
  db: JournalDb,
  scope: JournalScope,
): Promise<Map<number, string | undefined>> {
  const last = await db.db
    .selectFrom('pnl_snapshots')
    .select((eb) => ['iid', eb.fn.max('minute').as('minute')])
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .groupBy('iid')
    .execute()
  const out = new Map<number, string | undefined>()
  for (const l of last) {
    const row = await db.db
      .selectFrom('pnl_snapshots')
      .select(['position', 'span_ms'])
      .where('account', '=', scope.account)
      .where('venue', '=', scope.venue)
      .where('iid', '=', l.iid)
      .where('minute', '=', Number(l.minute))
      .executeTakeFirst()
    let p = row?.position
    const after = await db.db
      .selectFrom('fills')
      .select(['side', 'qty'])
      .where('account', '=', scope.account)
      .where('venue', '=', scope.venue)
      .where('iid', '=', l.iid)
      .where('ts', '>', takenAt({ minute: Number(l.minute), spanMs: row?.span_ms }))
      .execute()
    for (const f of after)
      if (p !== undefined)
        p = f.side === 'long' ? addDecimal(p, f.qty) : f.side === 'short' ? subDecimal(p, f.qty) : p
    out.set(l.iid, p)
  }
  const unsnapped = await db.db
    .selectFrom('fills')
    .select('iid')
    .distinct()
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .execute()
  for (const f of unsnapped) if (!out.has(f.iid)) out.set(f.iid, undefined)
  return out
}

/** The check's lines: each difference, then the totals per instrument side by side. */
export function formatCheck(
  r: CheckResult,
  symbols: ReadonlyMap<number, string>,
  currency: string | undefined,
  incomplete: readonly string[],
  positions: readonly PositionDifference[] = [],
): string[] {
  const out: string[] = []
  for (const p of positions)
    out.push(
      `DIFF position ${symbols.get(p.iid) ?? `#${p.iid}`}: journal ${p.journal ?? 'unknown (no snapshot)'}, venue ${p.venue}`,
    )
  const unit = currency ?? 'unknown currency'
  for (const d of r.differences) out.push(`DIFF ${d.table}: ${d.problem}: ${d.key} (${d.detail})`)
  if (r.venueInvalid > 0)
    out.push(`DIFF the venue sent ${r.venueInvalid} row(s) its schema refused; they could not be compared`)
  for (const i of incomplete) out.push(`DIFF venue history not read to the end: ${i}`)
  const iids = [...new Set([...r.journal, ...r.venue].map((t) => t.iid))].sort((a, b) => a - b)
  for (const iid of iids) {
    const j = r.journal.find((t) => t.iid === iid)
    const v = r.venue.find((t) => t.iid === iid)
    const line = (t: typeof j): string =>
      t === undefined
        ? 'nothing'
        : `${t.fills} fills, realized ${t.realizedPnl}, fees ${t.fees}, funding ${t.funding} ${unit}`
    const symbol = symbols.get(iid) ?? `#${iid}`
    out.push(
      sameTotals(j, v)
        ? `ok   ${symbol}: ${line(j)}`
        : `DIFF ${symbol}: journal ${line(j)}; venue ${line(v)}`,
    )
  }
  const n = r.differences.length + (r.venueInvalid > 0 ? 1 : 0) + incomplete.length + positions.length
  out.push(n === 0 ? 'the journal matches the venue' : `${n} difference(s) between the journal and the venue`)
  return out
}

export const checkFailed = (
  r: CheckResult,
  incomplete: readonly string[],
  positions: readonly PositionDifference[] = [],
): boolean => r.differences.length > 0 || r.venueInvalid > 0 || incomplete.length > 0 || positions.length > 0
