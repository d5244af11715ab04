/**
 * Where history comes from: a small reader interface over the venue's paged history reads
 * (`/v1/info/klines`, `/trades`, `/funding`: a window and a cursor, at most one page per call). The
 * downloader knows only this; the embedded mock (mockSource.ts) and the live venue (liveSource.ts)
 * implement it.
 */

import { isOneOf } from '../../guards.ts'
import type { DatasetInstrument, RowOf } from '../dataset/format.ts'

export const HISTORY_KINDS = ['klines', 'trades', 'funding'] as const
export type HistoryKind = (typeof HISTORY_KINDS)[number]
export function isHistoryKind(v: string): v is HistoryKind {
  return isOneOf(HISTORY_KINDS, v)
}

/** Rows per call the venue serves (protocol notes: klines 1,000; trades and funding 100). */
export const PAGE_LIMIT: Readonly<Record<HistoryKind, number>> = { klines: 1_000, trades: 100, funding: 100 }
/** Request weight per call (the venue's table; the live source spends it through the limiter). */
export const PAGE_WEIGHT: Readonly<Record<HistoryKind, number>> = { klines: 5, trades: 10, funding: 10 }

export interface HistoryPage<K extends HistoryKind> {
  /** Rows in [from, to), oldest first. */
  rows: RowOf[K][]
  /** Where the next page starts (ms), or undefined when the window is exhausted. */
  next: number | undefined
}

export interface HistorySource {
  /** Recorded in the manifest: a dataset holds data of one source only. */
  readonly name: string
  readonly klineIntervalMs: number
  instruments(): Promise<DatasetInstrument[]>
  page<K extends HistoryKind>(kind: K, symbol: string, from: number, to: number): Promise<HistoryPage<K>>
}
