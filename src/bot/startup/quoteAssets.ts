/**
 * One quote asset per bot: PnL, fees, funding and margin are summed across instruments and shown in
 * one currency (status, dashboard, report, alerts), which is only right when every traded instrument
 * quotes in the same asset. A mix is refused with the instruments named, never summed.
 */
import type { Instrument } from '../../perps/schemas/info.ts'

type Quoted = Pick<Instrument, 'symbol' | 'quote_asset'>

/** Problems (empty when every instrument quotes in one asset), one line per asset with its symbols. */
export function quoteAssetProblems(instruments: Iterable<Quoted>): string[] {
  const bySymbol = new Map<string, string[]>()
  for (const i of instruments) {
    const symbols = bySymbol.get(i.quote_asset) ?? []
    symbols.push(i.symbol)
    bySymbol.set(i.quote_asset, symbols)
  }
  if (bySymbol.size <= 1) return []
  return [
    ...[...bySymbol].map(([asset, symbols]) => `quoted in ${asset}: ${symbols.join(', ')}`),
    'totals are summed in one currency: run one bot (or config) per quote asset',
  ]
}

/** Why `added` cannot join instruments already traded (undefined when it can). */
export function quoteAssetRefusal(added: Quoted, traded: readonly Quoted[]): string | undefined {
  const other = traded.find((t) => t.quote_asset !== added.quote_asset)
  if (other === undefined) return undefined
  return `it quotes in ${added.quote_asset}, the running instruments in ${other.quote_asset} (${other.symbol}); totals are summed in one currency`
}
