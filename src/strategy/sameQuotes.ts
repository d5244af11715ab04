/**
 * A strategy's last accepted output, kept to tell whether its next output is the same: with an
 * unchanged index most plans ask the same ladder again (37 % of the strategy calls of a simulated
 * day), and its checks and diff would only repeat their last answer (issue 36 point 3). The fields
 * are copied, so an output array or quote the strategy mutates afterwards is never taken as seen.
 */
import type { DesiredQuote } from './strategy.ts'

/** The fields of a quote that the venue's rules and the quote diff read. */
interface QuoteFields {
  readonly side: unknown
  readonly price: unknown
  readonly qty: unknown
  readonly reduceOnly: unknown
  readonly coid: unknown
}

/** A copy of quotes' fields, to compare later outputs with. */
export type QuotesSeen = readonly QuoteFields[]

/** Copies the fields of `quotes` (an output that passed its checks). */
export function seeQuotes(quotes: readonly DesiredQuote[]): QuotesSeen {
  const out: QuoteFields[] = []
  for (const q of quotes)
    out.push({ side: q.side, price: q.price, qty: q.qty, reduceOnly: q.reduceOnly, coid: q.coid })
  return out
}

/** True when `quotes` (untrusted: checked as `validateQuotes` checks it) has the same quotes as `seen`, in order. */
export function sameQuotes(seen: QuotesSeen, quotes: readonly DesiredQuote[]): boolean {
  if (!Array.isArray(quotes) || quotes.length !== seen.length) return false
  for (let i = 0; i < seen.length; i++) {
    const q = quotes[i]
    const s = seen[i]
    if (q === null || typeof q !== 'object' || s === undefined) return false
    if (
      q.side !== s.side ||
      q.price !== s.price ||
      q.qty !== s.qty ||
      q.reduceOnly !== s.reduceOnly ||
      q.coid !== s.coid
    )
      return false
  }
  return true
}
