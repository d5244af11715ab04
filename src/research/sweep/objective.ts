/**
 * What a sweep point scored: metrics of one backtest from its record (pure), and the objectives
 * ranking points (higher is better for each).
 */

import { isOneOf } from '../../guards.ts'
import type { SimRecord } from '../../sim/simulate/model.ts'
import { maxDrawdown, summarize } from '../../sim/simulate/summary.ts'

export const OBJECTIVES = ['net-pnl', 'sharpe', 'drawdown'] as const
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
}

export function metricsOf(record: SimRecord): PointMetrics {
  const s = summarize(record)
  const pnl = record.account.map((p) => p.v[0]).filter((v): v is number => typeof v === 'number')
  const d: number[] = []
  for (const [i, v] of pnl.entries()) if (i > 0) d.push(v - (pnl[i - 1] ?? v))
  const mean = d.reduce((a, b) => a + b, 0) / Math.max(1, d.length)
  const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, d.length - 1))
  return {
    netPnl: s.netPnl,
    sharpe: sd > 0 ? (mean / sd) * Math.sqrt(d.length) : 0,
    drawdown: maxDrawdown(pnl),
    fills: s.fills,
    volume: s.volume,
  }
}

/** The score to maximise. */
export function score(m: PointMetrics, o: Objective): number {
  return o === 'net-pnl' ? m.netPnl : o === 'sharpe' ? m.sharpe : -m.drawdown
}
