/**
 * Bot configuration for the mock's generated instruments (`generateInstruments`), for runs with many
 * instruments (soak, benchmarks): each quoted by index-peg with one level per side and a size worth
 * 50–500 in quote currency.
 */
import { mulDecimal } from '../decimal.ts'
import type { InstrumentSpec } from '../mock/perps/instruments.ts'

/** Contracts worth 50–500 in quote currency, as an exact power of ten (float only picks the exponent). */
export function sizeFor(price: string): string {
  const e = Math.ceil(Math.log10(50 / Number(price)))
  return e >= 0 ? `1${'0'.repeat(e)}` : `0.${'0'.repeat(-e - 1)}1`
}

/**
 * The `instruments` config override quoting every spec with `strategy` (size worth 50–500, position
 * cap 10 sizes, plus `params`).
 */
export function generatedInstrumentConfig(
  specs: readonly InstrumentSpec[],
  strategy: string,
  params: Record<string, unknown> = {},
): Record<string, unknown>[] {
  return specs.map((s) => {
    const size = sizeFor(s.initialPrice)
    return { symbol: s.symbol, strategy, params: { size, positionCap: mulDecimal(size, '10'), ...params } }
  })
}

/** Index-peg with one level per side on every spec (soak, benchmarks). */
export function indexPegInstruments(specs: readonly InstrumentSpec[]): Record<string, unknown>[] {
  return generatedInstrumentConfig(specs, 'index-peg', { levels: 1 })
}
