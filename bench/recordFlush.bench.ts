/**
 * What a recording flush holds the event loop for, late in the hour (the case the 30 s tick-to-trade
 * pairs never reach): 100 instruments, a ticker, a bbo and a 10-level book per instrument per second,
 * 59 minutes into the hour, flushed every 60 s.
 *
 * - baseline, in the same run: the earlier writer, which rewrote each open hour whole at every flush
 *   (`store.writeChunk`: stringify and gzip the hour on the event loop);
 * - ours: rows stringified as they arrive (timed per row), then a flush that compresses only the last
 *   minute on zlib's thread pool and appends it; the longest event-loop stall during it is measured
 *   with `monitorEventLoopDelay`. Also the flush that closes the hour (recompresses it whole, off the
 *   loop).
 *
 *   node --expose-gc --import tsx bench/recordFlush.bench.ts [--instruments 100] [--minute 59]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { chunkPath, type RowOf } from '../src/research/dataset/format.ts'
import { DatasetStore } from '../src/research/dataset/store.ts'
import { createHourlyWriter } from '../src/research/record/hourlyWriter.ts'
import { emitResult, numberFlag } from './stats.ts'

const N = numberFlag('instruments', 100)
const MINUTE = numberFlag('minute', 59)
const T0 = Date.UTC(2026, 0, 5, 10)
const symbols = Array.from({ length: N }, (_, i) => `SYM${i}-USD`)

const level = (p: number, i: number): [string, string] => [(p + i * 0.5).toFixed(1), String(1 + (i % 7))]
const rowsAt = (t: number, k: number) => ({
  tickers: { t, ts: t - 3, i: (100 + k).toFixed(2), m: (100.01 + k).toFixed(2), r: '0.0000125' },
  bbo: { t, bp: '99.5', bq: '12', ap: '100.5', aq: '9' },
  book: {
    t,
    b: Array.from({ length: 10 }, (_, i) => level(99.5, -i)),
    a: Array.from({ length: 10 }, (_, i) => level(100.5, i)),
  },
})

const dir = mkdtempSync(join(tmpdir(), 'perpbot-record-flush-'))
try {
  // Ours first (the baseline's million row objects would be garbage collected during our flushes):
  // the hour appended a minute at a time; the last minute's flush is the one measured.
  const store = DatasetStore.openOrCreate(join(dir, 'new'), 'bench', 1_000)
  const w = createHourlyWriter(store, 1e12)
  let addMs = 0
  let added = 0
  const feedMinute = (m: number): void => {
    const start = performance.now()
    for (let i = m * 60; i < (m + 1) * 60; i++)
      for (const [k, s] of symbols.entries()) {
        const r = rowsAt(T0 + i * 1_000, k)
        w.add('tickers', s, r.tickers)
        w.add('bbo', s, r.bbo)
        w.add('book', s, r.book)
        added += 3
      }
    addMs += performance.now() - start
  }
  for (let m = 0; m < MINUTE - 1; m++) {
    feedMinute(m)
    await w.flush()
  }
  const gc = (globalThis as { gc?: () => void }).gc
  const measureFlush = async (): Promise<{ wallMs: number; maxStallMs: number }> => {
    // A collection now rather than in the measured window (run with --expose-gc).
    gc?.()
    const h = monitorEventLoopDelay({ resolution: 1 })
    h.enable()
    const start = performance.now()
    await w.flush()
    const wallMs = performance.now() - start
    h.disable()
    return { wallMs, maxStallMs: h.max / 1e6 }
  }
  feedMinute(MINUTE - 1)
  const lastMinute = await measureFlush()
  // A row of the next hour closes this one: that flush recompresses every chunk of the hour.
  for (const [k, s] of symbols.entries()) {
    const r = rowsAt(T0 + 3_600_000, k)
    w.add('tickers', s, r.tickers)
    w.add('bbo', s, r.bbo)
    w.add('book', s, r.book)
  }
  const closing = await measureFlush()

  // Baseline: the whole hour so far, rewritten per chunk on the event loop.
  const seconds = MINUTE * 60
  type Hour = { tickers: RowOf['tickers'][]; bbo: RowOf['bbo'][]; book: RowOf['book'][] }
  const hour = new Map<string, Hour>()
  for (const [k, s] of symbols.entries()) {
    const h: Hour = { tickers: [], bbo: [], book: [] }
    for (let i = 0; i < seconds; i++) {
      const r = rowsAt(T0 + i * 1_000, k)
      h.tickers.push(r.tickers)
      h.bbo.push(r.bbo)
      h.book.push(r.book)
    }
    hour.set(s, h)
  }
  const old = DatasetStore.openOrCreate(join(dir, 'old'), 'bench', 1_000)
  const oldStart = performance.now()
  for (const [s, h] of hour) {
    const to = T0 + seconds * 1_000
    old.writeChunk(chunkPath('tickers', s, T0), { kind: 'tickers', symbol: s, from: T0, to }, h.tickers)
    old.writeChunk(chunkPath('bbo', s, T0), { kind: 'bbo', symbol: s, from: T0, to }, h.bbo)
    old.writeChunk(chunkPath('book', s, T0), { kind: 'book', symbol: s, from: T0, to }, h.book)
  }
  const oldMs = performance.now() - oldStart
  hour.clear()

  console.log(
    `record flush, ${N} instruments, minute ${MINUTE} of the hour (ticker + bbo + 10-level book per instrument per second):` +
      ` baseline (whole-hour rewrite on the loop) ${oldMs.toFixed(0)} ms blocked per flush` +
      ` · ours: rows stringified as they arrive ${((1000 * addMs) / added).toFixed(2)} µs each (${(addMs / MINUTE).toFixed(1)} ms a minute, spread over it);` +
      ` the minute's flush ${lastMinute.wallMs.toFixed(0)} ms wall, longest event-loop stall ${lastMinute.maxStallMs.toFixed(1)} ms;` +
      ` the hour-closing flush ${closing.wallMs.toFixed(0)} ms wall, longest stall ${closing.maxStallMs.toFixed(1)} ms`,
  )
  emitResult({
    bench: 'recordFlush',
    instruments: N,
    minute: MINUTE,
    baselineBlockedMs: oldMs,
    addMicrosPerRow: (1000 * addMs) / added,
    flushWallMs: lastMinute.wallMs,
    flushMaxStallMs: lastMinute.maxStallMs,
    closeWallMs: closing.wallMs,
    closeMaxStallMs: closing.maxStallMs,
  })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
