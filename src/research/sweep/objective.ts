/**
 * What a sweep point scored: metrics of one backtest from its record (pure), and the objectives
 * ranking points (higher is better for each).
 */

import { isOneOf } from '../../guards.ts'
import type { SimRecord } from '../../sim/simulate/index.ts'
import { maxDrawdown, summarize } from '../../sim/simulate/index.ts'
import { changeMoments } from './overfit.ts'

export const OBJECTIVES = [
  'net-pnl',
  'sharpe',
  'drawdown',
  'sortino',
  'calmar',
  'profit-factor',
  'markout',
] as const
export type Objective = (typeof OBJECTIVES)[number]
export function isObjective(v: string): v is Objective {
  return isOneOf(OBJECTIVES, v)
}

export interface PointMetrics {
  netPnl: number
  /** Mean over standard deviation of the net PnL's changes between samples, × √samples (0 when flat). */
  sharpe: number
  /** Largest fall of net PnL from a previous high (≥ 0). */
  drawdown: number
  fills: number
  volume: number
  /** Annualised (src/analytics/ratios.ts); 0 where unknown. */
  sortino: number
  calmar: number
  /** Round trips' gross profit ÷ gross loss; 0 without a profit, 100 with profit and no loss. */
  profitFactor: number
  /** Notional-weighted markout 60 s after the fills, bps for us; 0 without fills. */
  markout60Bps: number
  /** Per-sample Sharpe, sample count, skew and kurtosis of the PnL changes (the deflated Sharpe). */
  moments: { sr: number; samples: number; skew: number; kurtosis: number }
}

export function metricsOf(record: SimRecord): PointMetrics {
  const s = summarize(record)
  const pnl = record.account.map((p) => p.v[0]).filter((v): v is number => typeof v === 'number')
  const d: number[] = []
  for (const [i, v] of pnl.entries()) if (i > 0) d.push(v - (pnl[i - 1] ?? v))
  const mean = d.reduce((a, b) => a + b, 0) / Math.max(1, d.length)
  const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, d.length - 1))
  const mm = record.marketMaking
  const trips = mm?.roundTrips
  return {
    netPnl: s.netPnl,
    sharpe: sd > 0 ? (mean / sd) * Math.sqrt(d.length) : 0,
    drawdown: maxDrawdown(pnl),
    fills: s.fills,
    volume: s.volume,
    sortino: mm?.ratios.sortino ?? 0,
    calmar: mm?.ratios.calmar ?? 0,
    profitFactor:
      trips === undefined || trips.grossProfit <= 0 ? 0 : (trips.profitFactor ?? PROFIT_FACTOR_NO_LOSS),
    markout60Bps: mm?.markouts.markoutBps[60_000] ?? 0,
    moments: { ...changeMoments(d), samples: d.length },
  }
}

/** The profit factor of a point with profit and no losing round trip (a cap, so it ranks and prints). */
export const PROFIT_FACTOR_NO_LOSS = 100

/** The score to maximise. */
export function score(m: PointMetrics, o: Objective): number {
  switch (o) {
    case 'net-pnl':
      return m.netPnl
    case 'sharpe':
      return m.sharpe
    case 'drawdown':
      return -m.drawdown
    case 'sortino':
      return m.sortino
    case 'calmar':
      return m.calmar
    case 'profit-factor':
      return m.profitFactor
    case 'markout':
      return m.markout60Bps
  }
}

/** Each objective's unit on the page and in the CSV header. */
export const OBJECTIVE_UNITS: Readonly<Record<Objective, string>> = {
  'net-pnl': 'USDC',
  sharpe: 'ratio',
  drawdown: '− USDC',
  sortino: 'ratio, annualised',
  calmar: 'ratio, annualised',
  'profit-factor': 'ratio',
  markout: 'bps at 60 s',
}
