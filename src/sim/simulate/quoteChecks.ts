/**
 * What a post-only strategy's chart must never show: our best bid at or above our best ask. The
 * recorder reads our quotes from the venue's book at each sample, so a crossed sample means two
 * orders of ours really rested crossed (or the record is wrong again): `simulate`'s tests and
 * `bench/restingQuotes.ts` count them (issue 33).
 */
import type { SimRecord } from './model.ts'

export interface CrossedQuotes {
  /** Samples (all instruments) with both our bid and our ask drawn. */
  twoSided: number
  /** Of those, samples with our bid >= our ask. */
  crossed: number
  /** The first crossed sample, for the failure message. */
  first?: { symbol: string; t: number; bid: number; ask: number } | undefined
}

export function crossedQuotes(record: Pick<SimRecord, 'instruments'>): CrossedQuotes {
  const out: CrossedQuotes = { twoSided: 0, crossed: 0 }
  for (const i of record.instruments)
    for (const p of i.series) {
      // INSTRUMENT_COLUMNS: index, bid, ask, position.
      const bid = p.v[1]
      const ask = p.v[2]
      if (bid === null || bid === undefined || ask === null || ask === undefined) continue
      out.twoSided += 1
      if (bid < ask) continue
      out.crossed += 1
      out.first ??= { symbol: i.symbol, t: p.t, bid, ask }
    }
  return out
}
