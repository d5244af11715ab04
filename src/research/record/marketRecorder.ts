/**
 * Records the mock's market as a dataset while the bot trades it (the ground truth the fill model is
 * checked against): the mock's market tap gives each market after each step; rows are buffered per
 * kind, instrument and hour and written as a chunk when the hour turns (and at `finish`), so memory
 * holds at most an hour and the files rotate hourly.
 */
import type { Market, MarketTap } from '../../mock/perps/index.ts'
import { rateString } from '../../mock/perps/index.ts'
import { chunkPath, type DataKind, HOUR_MS, type RowOf } from '../dataset/format.ts'
import { DatasetStore } from '../dataset/store.ts'
import { instrumentOfSpec, tapRows } from '../download/mockSource.ts'

type Buffers = { [K in 'klines' | 'trades' | 'tickers' | 'funding']: RowOf[K][] }

export interface MarketRecorder {
  readonly tap: MarketTap
  /** Writes what is buffered; returns the chunks written in all. */
  finish(): number
}

export function createMarketRecorder(dir: string, source: string, startMs: number): MarketRecorder {
  const store = DatasetStore.openOrCreate(dir, source, 1_000)
  const buffers = new Map<string, { market: Market; hour: number; from: number; rows: Buffers }>()
  let written = 0

  const empty = (): Buffers => ({ klines: [], trades: [], tickers: [], funding: [] })
  function flush(symbol: string, to: number): void {
    const b = buffers.get(symbol)
    if (b === undefined) return
    for (const kind of ['klines', 'trades', 'tickers', 'funding'] as const satisfies readonly DataKind[]) {
      store.writeChunk(chunkPath(kind, symbol, b.hour), { kind, symbol, from: b.from, to }, b.rows[kind])
      written++
    }
  }

  const tap: MarketTap = (m, t, dtMs) => {
    // The mock's pre-generated history (before the run) is not part of the recording.
    if (t - dtMs < startMs) return
    const symbol = m.spec.symbol
    let b = buffers.get(symbol)
    if (b === undefined) {
      store.setInstrument(instrumentOfSpec(m.spec))
      b = { market: m, hour: Math.floor((t - dtMs) / HOUR_MS) * HOUR_MS, from: t - dtMs, rows: empty() }
      buffers.set(symbol, b)
    }
    const hour = Math.floor((t - dtMs) / HOUR_MS) * HOUR_MS
    if (hour !== b.hour) {
      flush(symbol, hour)
      b.hour = hour
      b.from = hour
      b.rows = empty()
    }
    const x = tapRows(m, t, dtMs)
    b.rows.klines.push(x.kline)
    if (x.trade) b.rows.trades.push(x.trade)
    b.rows.tickers.push(x.ticker)
    const interval = m.fundingIntervalMs
    const f = Math.floor(t / interval) * interval
    if (f > t - dtMs) b.rows.funding.push({ t: f, r: rateString(m.lastFundingRate) })
  }

  return {
    tap,
    finish() {
      for (const [symbol, b] of buffers) {
        const last = b.rows.klines.at(-1)
        flush(symbol, last === undefined ? b.from : last.t + 1_000)
      }
      buffers.clear()
      return written
    },
  }
}
