/**
 * `perpbot download`'s engine: for every hour of the window, instrument and kind, fetch the pages
 * the chunk lacks and write it whole (store.ts). Resumable: a chunk the manifest lists (and whose
 * file has its size) is skipped, so a second run fetches only what is missing. Hour-major order, so
 * an interrupted run leaves complete early hours rather than one instrument done.
 */

import type { RowOf } from '../dataset/format.ts'
import { chunkPath, DatasetError, HOUR_MS } from '../dataset/format.ts'
import type { DatasetStore } from '../dataset/store.ts'
import { type HistoryKind, type HistoryPage, type HistorySource, PAGE_LIMIT } from './source.ts'

export interface DownloadPlan {
  symbols: readonly string[]
  kinds: readonly HistoryKind[]
  from: number
  to: number
}

export interface DownloadProgress {
  chunksDone: number
  chunksTotal: number
  skipped: number
  pages: number
  rows: number
  bytes: number
}

export interface DownloadOptions {
  source: HistorySource
  store: DatasetStore
  plan: DownloadPlan
  onProgress?: ((p: DownloadProgress) => void) | undefined
  signal?: AbortSignal | undefined
}

/** The longest window one download may ask for, and how far past now its end may lie (clock skew). */
export const MAX_WINDOW_MS = 366 * 86_400_000
export const FUTURE_SLACK_MS = 60_000

/**
 * Why a window is refused, or undefined: it must end by now (history of the future would be invented
 * by the mock and refused by the venue) and span at most `MAX_WINDOW_MS`.
 */
export function windowProblem(from: number, to: number, now: number): string | undefined {
  if (!(from < to)) return '--from must be before --to'
  if (to > now + FUTURE_SLACK_MS)
    return `the window ends in the future (${new Date(to).toISOString()}); history ends now`
  if (to - from > MAX_WINDOW_MS)
    return `the window spans ${Math.ceil((to - from) / 86_400_000)} days; at most ${MAX_WINDOW_MS / 86_400_000} per download (run it again for the next stretch)`
  return undefined
}

/** Lets timers and signal handlers run between chunks (a mock source answers without I/O). */
const yieldToLoop = (): Promise<void> => new Promise((r) => setImmediate(r))

/** Upper bound of pages for one chunk (a source that never ends its window stops here). */
function maxPages(kind: HistoryKind): number {
  return Math.ceil(HOUR_MS / 1000 / PAGE_LIMIT[kind]) * 4 + 10
}

export async function download(o: DownloadOptions): Promise<DownloadProgress> {
  const { source, store, plan } = o
  const known = new Map((await source.instruments()).map((i) => [i.symbol, i]))
  const missing = plan.symbols.filter((s) => !known.has(s))
  if (missing.length > 0)
    throw new DatasetError(
      `unknown instrument(s) ${missing.join(', ')} (the source has ${[...known.keys()].join(', ')})`,
    )
  for (const s of plan.symbols) {
    const i = known.get(s)
    if (i !== undefined && store.manifest.instruments[s] === undefined) store.setInstrument(i)
  }
  const hours: number[] = []
  for (let h = Math.floor(plan.from / HOUR_MS) * HOUR_MS; h < plan.to; h += HOUR_MS) hours.push(h)
  const p: DownloadProgress = {
    chunksDone: 0,
    chunksTotal: hours.length * plan.symbols.length * plan.kinds.length,
    skipped: 0,
    pages: 0,
    rows: 0,
    bytes: 0,
  }
  for (const h of hours) {
    const from = Math.max(h, plan.from)
    const to = Math.min(h + HOUR_MS, plan.to)
    for (const symbol of plan.symbols) {
      for (const kind of plan.kinds) {
        await yieldToLoop()
        if (o.signal?.aborted) return p
        const path = chunkPath(kind, symbol, h)
        if (store.hasChunk(path, from, to)) {
          p.skipped++
        } else {
          const rows = await fetchWindow(source, kind, symbol, from, to, () => p.pages++)
          const entry = store.writeChunk(path, { kind, symbol, from, to }, rows)
          p.rows += entry.rows
          p.bytes += entry.bytes
        }
        p.chunksDone++
        o.onProgress?.(p)
      }
    }
  }
  return p
}

/** Every page of one window, oldest first. */
async function fetchWindow<K extends HistoryKind>(
  source: HistorySource,
  kind: K,
  symbol: string,
  from: number,
  to: number,
  onPage: () => void,
): Promise<RowOf[K][]> {
  const rows: RowOf[K][] = []
  let cursor: number | undefined = from
  for (let n = 0; cursor !== undefined && n < maxPages(kind); n++) {
    const page: HistoryPage<K> = await source.page(kind, symbol, cursor, to)
    onPage()
    rows.push(...page.rows)
    if (page.next !== undefined && page.next <= cursor)
      throw new DatasetError(`${source.name} returned a cursor that does not advance (${kind} ${symbol})`)
    cursor = page.next
  }
  return rows
}
