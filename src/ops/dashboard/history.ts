/**
 * `GET /history?since=…`: the dashboard's long history (PnL per minute and the latest fills, beyond
 * the 30-minute timeline and across restarts), from whatever source the bot hands the ops server (the
 * journal's). The ops server only parses the query and serves the source's answer, read-only.
 */

/** The window asked for: an absolute start (Unix ms) or a span back from the bot's now. */
export interface HistoryQuery {
  since?: number | undefined
  spanMs?: number | undefined
}

export interface HistorySource {
  /** Bounded rows, whatever the window (the source caps points and fills). */
  read(q: HistoryQuery): Promise<unknown>
}

/** The longest span asked for; older history is `perpbot report`'s. */
export const HISTORY_MAX_SPAN_MS = 90 * 86_400_000
export const HISTORY_DEFAULT_SPAN_MS = 7 * 86_400_000

const SPAN = /^(\d+(?:\.\d+)?)(m|h|d|w)$/
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/**
 * `since` as a span (`30m`, `24h`, `7d`), Unix ms, or an ISO date/time; missing: the default span.
 * A bad value is an error message for a 400.
 */
export function parseHistoryQuery(since: string | null): HistoryQuery | { error: string } {
  if (since === null || since === '') return { spanMs: HISTORY_DEFAULT_SPAN_MS }
  const span = SPAN.exec(since)
  if (span) {
    const ms = Number(span[1]) * (UNIT_MS[span[2] ?? 'd'] ?? 0)
    return ms > 0 ? { spanMs: Math.min(ms, HISTORY_MAX_SPAN_MS) } : { error: 'since must be above 0' }
  }
  if (/^\d{1,15}$/.test(since)) return { since: Number(since) }
  const t = Date.parse(since)
  if (Number.isFinite(t)) return { since: t }
  return { error: `since must be a span (30m, 24h, 7d), Unix ms or an ISO date, got '${since.slice(0, 40)}'` }
}

/** More distinct `/history` windows are being read than the bound: the caller answers 503, retry later. */
export class HistoryBusyError extends Error {
  readonly inFlight: number
  constructor(inFlight: number) {
    super(`${inFlight} history reads are running; try again shortly`)
    this.inFlight = inFlight
    this.name = 'HistoryBusyError'
  }
}

/**
 * A history source whose concurrent reads of the same window share one read, and at most
 * `maxDistinct` different windows are read at once (more: {@link HistoryBusyError}). Forty dashboards
 * asking for 90 days at once cost one read of the journal, not forty queued on its reader.
 */
export function coalescedHistory(source: HistorySource, maxDistinct = 4): HistorySource {
  const inFlight = new Map<string, Promise<unknown>>()
  return {
    read(q) {
      const key = `${q.since ?? ''}|${q.spanMs ?? ''}`
      const running = inFlight.get(key)
      if (running !== undefined) return running
      if (inFlight.size >= maxDistinct) return Promise.reject(new HistoryBusyError(inFlight.size))
      const read = source.read(q).finally(() => inFlight.delete(key))
      inFlight.set(key, read)
      return read
    },
  }
}
