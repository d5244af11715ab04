/**
 * vol-spread: a ladder whose half-spread follows realized volatility. σ is the sample standard
 * deviation of 1-minute log returns of kline closes over the last `volWindow` returns; the half-spread
 * is volMultiplier × σ in bps (a float signal, rounded up to whole bps) clamped to
 * [minSpreadBps, maxSpreadBps]. With too few or stale klines it quotes at maxSpreadBps.
 * Centre: the fresh index, else (documented fallback) the last close of fresh klines, else nothing.
 * Like every ladder, it keeps its post-only quotes behind a fresh best bid/offer (`maxBboAgeMs`).
 */
import { z } from 'zod'
import type { Kline } from '../src/perps/schemas/info.ts'
import { freshBbo } from '../src/strategy/book.ts'
import { buildLadder, freshIndexPrice, ladderMaxOrders } from '../src/strategy/ladder.ts'
import { bpsParam, ladderParamsShape, MsParam } from '../src/strategy/params.ts'
import { ageLimitEnds, earliestOf, ladderRevisitAt } from '../src/strategy/revisit.ts'
import { defineStrategy, type StrategySnapshot } from '../src/strategy/strategy.ts'

const { halfSpreadBps: _unused, ...shared } = ladderParamsShape

export const VolSpreadParams = z
  .strictObject({
    ...shared,
    /** Number of 1-minute log returns in the volatility window. */
    volWindow: z.number().int().min(2).max(1_440).default(30),
    /** Fewer returns than this → volatility unknown → maxSpreadBps. */
    minSamples: z.number().int().min(2).default(5),
    /** Half-spread = volMultiplier × σ (σ per 1-minute return). */
    volMultiplier: z.number().positive().max(1_000).default(2),
    minSpreadBps: bpsParam(1, 5_000).default(5),
    maxSpreadBps: bpsParam(1, 5_000).default(200),
    /** Klines whose newest open time is older than this are stale (0 = never stale). */
    maxKlineAgeMs: MsParam.default(300_000),
  })
  .refine((p) => p.minSpreadBps <= p.maxSpreadBps, {
    error: 'minSpreadBps must not exceed maxSpreadBps',
    path: ['minSpreadBps'],
  })
export type VolSpreadParams = z.infer<typeof VolSpreadParams>

/** The klines by open time, oldest first, when the newest is fresh; undefined when stale or empty. */
export function freshKlines(snapshot: StrategySnapshot, maxAgeMs: number): Kline[] | undefined {
  const klines = snapshot.statistics?.klines ?? []
  if (klines.length === 0) return undefined
  const sorted = [...klines].sort((a, b) => a[0] - b[0])
  const newest = sorted[sorted.length - 1] as Kline
  if (maxAgeMs > 0 && snapshot.now - newest[0] > maxAgeMs) return undefined
  return sorted
}

/** Sample stdev of log returns over the last `window` returns; undefined below `minSamples`. */
export function realizedVol(
  closes: readonly number[],
  window: number,
  minSamples: number,
): number | undefined {
  const recent = closes.slice(-(window + 1))
  const returns: number[] = []
  for (let i = 1; i < recent.length; i++) {
    const a = recent[i - 1] as number
    const b = recent[i] as number
    if (a > 0 && b > 0 && Number.isFinite(a) && Number.isFinite(b)) returns.push(Math.log(b / a))
  }
  if (returns.length < Math.max(2, minSamples)) return undefined
  const mean = returns.reduce((s, r) => s + r, 0) / returns.length
  const variance = returns.reduce((s, r) => s + (r - mean) ** 2, 0) / (returns.length - 1)
  return Math.sqrt(variance)
}

/** Half-spread in whole bps for a volatility (undefined → the ceiling). */
export function volHalfSpreadBps(sigma: number | undefined, params: VolSpreadParams): number {
  if (sigma === undefined || !Number.isFinite(sigma)) return params.maxSpreadBps
  const bps = Math.ceil(params.volMultiplier * sigma * 10_000)
  return Math.min(params.maxSpreadBps, Math.max(params.minSpreadBps, bps))
}

export const strategy = defineStrategy({
  name: 'vol-spread',
  description:
    'Ladder around the index (or the last 1-minute close) with a half-spread of volMultiplier × realized volatility, clamped to [minSpreadBps, maxSpreadBps].',
  paramsSchema: VolSpreadParams,
  quote(snapshot, params) {
    const klines = freshKlines(snapshot, params.maxKlineAgeMs)
    const centre = freshIndexPrice(snapshot, params.maxIndexAgeMs) ?? klines?.[klines.length - 1]?.[4]
    if (centre === undefined) return []
    const closes = klines?.map((k) => Number(k[4]))
    const sigma = closes === undefined ? undefined : realizedVol(closes, params.volWindow, params.minSamples)
    const halfSpreadBps = volHalfSpreadBps(sigma, params)
    return buildLadder(
      snapshot,
      { ...params, halfSpreadBps },
      { centre, reference: centre, bbo: freshBbo(snapshot, params.maxBboAgeMs) },
    )
  },
  // Time changes the quotes only when the index, the best bid/offer or the newest kline turns stale.
  reads: ['statistics', 'bbo'],
  maxOrders: (params) => ladderMaxOrders(params),
  revisitAt(snapshot, params) {
    let newest: number | undefined
    for (const k of snapshot.statistics?.klines ?? [])
      if (newest === undefined || k[0] > newest) newest = k[0]
    return earliestOf(
      ladderRevisitAt(snapshot, params),
      ageLimitEnds(snapshot.now, newest, params.maxKlineAgeMs),
    )
  },
})
