/**
 * Paging over the `{data, more}` history endpoints (withdrawals, funding), walking backwards in time
 * with an end-of-window cursor.
 *
 * Paging contract (the spec only says "at most 100 per request; end defaults to now"; this is our
 * decision, and the mock implements exactly it):
 * - A request returns rows with `start_timestamp <= timestamp <= end_timestamp` (both inclusive; a
 *   missing end means now), the NEWEST first (timestamp descending), at most 100 of them.
 *   `more` is true when older rows in the window did not fit.
 * - The next request keeps `start_timestamp` and sets `end_timestamp` to the oldest timestamp on the
 *   page. That is inclusive, so rows sharing that millisecond which did not fit are fetched again;
 *   rows already yielded are dropped by their id (withdrawals: `withdraw_id`; funding: `id`, or
 *   `instrument_id:timestamp` when the venue omits it).
 * - A page that brings nothing new while `more` is true (over a page of rows in one millisecond) moves
 *   the end to oldest − 1 so paging always progresses; such a millisecond's overflow is unreachable.
 * - Paging stops when `more` is false, a page is empty, the end passes the start, or `maxPages` is hit;
 *   a page with `more` whose rows all lie after the end (the window ignored) is an `UnexpectedResponseError`.
 * The walker does not rely on the row order within a page: it sorts each page newest first itself.
 */
import { TransportError, UnexpectedResponseError } from '../../errors.ts'
import type { PerpsReadOptions } from './perpsCall.ts'

export interface HistoryWindow {
  /** Unix ms, inclusive. */
  startTimestamp?: number | undefined
  /** Unix ms, inclusive; the venue uses now when omitted. */
  endTimestamp?: number | undefined
}

export interface HistoryPage<T> {
  data: T[]
  more: boolean
}

export interface PaginateHistoryOptions extends PerpsReadOptions {
  /** Stop after this many requests. */
  maxPages?: number | undefined
}

export interface HistoryWalk<T> {
  path: string
  window: HistoryWindow
  fetchPage: (window: HistoryWindow) => Promise<HistoryPage<T>>
  timestampOf: (row: T) => number
  keyOf: (row: T) => string
  options: PaginateHistoryOptions
}

/** Yields pages of not-yet-seen rows, newest first, walking the window backwards. */
export async function* walkHistoryBackwards<T>(
  walk: HistoryWalk<T>,
): AsyncGenerator<HistoryPage<T>, void, undefined> {
  const { startTimestamp } = walk.window
  const maxPages = walk.options.maxPages ?? Number.POSITIVE_INFINITY
  let end = walk.window.endTimestamp
  /** Keys of rows already yielded whose timestamp equals `end` (the only ones a later page can repeat). */
  let seenAtEnd = new Set<string>()
  for (let pages = 0; pages < maxPages; pages++) {
    const signal = walk.options.signal
    if (signal?.aborted)
      throw new TransportError(walk.path, 'aborted', { cause: signal.reason, maybeDelivered: false })
    const page = await walk.fetchPage({ startTimestamp, endTimestamp: end })
    const rows = [...page.data].sort((a, b) => walk.timestampOf(b) - walk.timestampOf(a))
    const fresh = rows.filter((r) => {
      const ts = walk.timestampOf(r)
      if (end !== undefined && ts > end) return false
      return !(ts === end && seenAtEnd.has(walk.keyOf(r)))
    })
    yield { data: fresh, more: page.more }
    const oldestRow = rows[rows.length - 1]
    if (!page.more || oldestRow === undefined) return
    const oldest = walk.timestampOf(oldestRow)
    const nextEnd = fresh.length === 0 ? oldest - 1 : oldest
    // Nothing new and no earlier end: the venue ignored the window (a repeated page), paging would never end.
    if (fresh.length === 0 && end !== undefined && nextEnd >= end)
      throw new UnexpectedResponseError(walk.path, [
        'more: true, but the page repeats rows after end_timestamp',
      ])
    const atNextEnd = rows.filter((r) => walk.timestampOf(r) === nextEnd).map(walk.keyOf)
    seenAtEnd = nextEnd === end ? new Set([...seenAtEnd, ...atNextEnd]) : new Set(atNextEnd)
    end = nextEnd
    if (end < 0 || (startTimestamp !== undefined && end < startTimestamp)) return
  }
}
