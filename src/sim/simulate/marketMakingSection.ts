/**
 * The report's market-making section (issue 39.3), pure: markouts, spread captured, adverse
 * selection, round trips, inventory half-life, fill rate by distance from the mid and the risk ratios,
 * every figure with its unit. Figures a run could not measure show as n/a, never as 0.
 */
import type { MarketMakingReport } from '../../analytics/marketMaking.ts'
import { MARKOUT_HORIZONS_MS } from '../../analytics/markouts.ts'
import { amount } from '../../format/units.ts'
import { formatDuration } from './progress.ts'

const na = 'n/a'
export const bps = (x: number | undefined): string => (x === undefined ? na : `${x.toFixed(2)} bps`)
const ratio = (x: number | undefined): string => (x === undefined ? na : x.toFixed(2))
const pct = (x: number | undefined): string => (x === undefined ? na : `${(x * 100).toFixed(1)} %`)
const ms = (x: number | undefined): string => (x === undefined ? na : formatDuration(Math.round(x)))

/** [figure, value] rows, units in the values. */
export function marketMakingRows(r: MarketMakingReport, currency: string): [string, string][] {
  const m = r.markouts
  const t = r.roundTrips
  return [
    ['Spread captured (mid at fill − price, for us; notional-weighted)', bps(m.capturedBps)],
    ...MARKOUT_HORIZONS_MS.map((h): [string, string] => [
      `Markout at ${h / 1000} s (for us)`,
      bps(m.markoutBps[h]),
    ]),
    ['Adverse selection (captured − markout at 60 s)', bps(m.adverseSelectionBps)],
    ['Round trips (FIFO)', String(t.trips)],
    ['Win rate (round trips with PnL > 0 after fees)', pct(t.winRate)],
    ['Profit factor (gross profit ÷ gross loss)', ratio(t.profitFactor)],
    [
      'Gross profit / loss of round trips',
      `${amount(t.grossProfit, currency)} / ${amount(t.grossLoss, currency)}`,
    ],
    ['Mean holding time of a round trip', ms(t.meanHoldMs)],
    ['Inventory half-life (AR(1) of the position)', ms(r.inventoryHalfLifeMs)],
    ['Sharpe (annualised, net PnL changes)', ratio(r.ratios.sharpe)],
    ['Sortino (annualised)', ratio(r.ratios.sortino)],
    ['Calmar (net PnL per year ÷ max drawdown)', ratio(r.ratios.calmar)],
  ]
}

/** Fill rate by distance band: [band, resting time, fills, fills per quote-hour]. */
export function fillRateRows(r: MarketMakingReport): string[][] {
  return r.fillRate.map((b) => [
    b.toBps === undefined ? `≥ ${b.fromBps} bps` : `${b.fromBps}–${b.toBps} bps`,
    formatDuration(Math.round(b.restingMs)),
    String(b.fills),
    b.perHour === undefined ? na : `${b.perHour.toFixed(2)} /h`,
  ])
}

export const FILL_RATE_HEAD = [
  'Distance from mid',
  'Quote time resting',
  'Fills',
  'Fills per quote-hour',
] as const
