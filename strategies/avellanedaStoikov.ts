/**
 * avellaneda-stoikov: quotes around a reservation price that leans against the inventory, with a
 * spread from the market's volatility and how fast fills thin out with distance (Avellaneda & Stoikov,
 * "High-frequency trading in a limit order book", 2008; the model Hummingbot ships). Both estimated
 * online from the snapshot's 1-minute klines (src/strategy/estimators.ts): σ as an EWMA of log
 * returns, the intensity decay k fitted to how far each minute's prints reached from its open.
 *
 * Inventory q = position / size (in order sizes). Reservation = index × (1 − q·γ·σ²·T), capped at
 * ±maxSkewBps; half-spread = (γ·σ²·T + (2/γ)·ln(1 + γ/k)) / 2, clamped to [minSpreadBps, maxSpreadBps].
 * Too few or stale klines: σ = fallbackVolBpsPerMin, k = fallbackK, and the half-spread at least
 * halfway to maxSpreadBps (the model is guessing). The ladder (src/strategy/ladder.ts) does the rest:
 * integer ticks, the position cap, price bounds, behind the fresh best bid/offer, risk modes, and the
 * optional book-imbalance and funding skews.
 */
import { z } from 'zod'
import { freshBbo } from '../src/strategy/book.ts'
import { avellanedaStoikovBps, ewmaVolatility, fillIntensity } from '../src/strategy/estimators.ts'
import { buildLadder, freshIndexPrice, ladderMaxOrders } from '../src/strategy/ladder.ts'
import { bpsParam, ladderParamsShape, MsParam } from '../src/strategy/params.ts'
import { ageLimitEnds, earliestOf, ladderRevisitAt } from '../src/strategy/revisit.ts'
import { defineStrategy } from '../src/strategy/strategy.ts'
import { freshKlines } from './volSpread.ts'

const { halfSpreadBps: _spread, skewBps: _skew, ...shared } = ladderParamsShape

export const AvellanedaStoikovParams = z
  .strictObject({
    ...shared,
    /** Risk aversion γ, per unit of relative price (larger: a stronger lean against inventory). */
    gamma: z.number().positive().max(1_000_000).default(40),
    /** Horizon T of the inventory risk, seconds. */
    horizonS: z.number().positive().max(86_400).default(60),
    /** Half-life of the volatility EWMA, 1-minute returns. */
    volHalfLifeMin: z.number().positive().max(1_440).default(15),
    /** Fewer 1-minute returns than this: volatility unknown (the fallback). */
    minSamples: z.number().int().min(2).max(1_440).default(10),
    /** Klines the intensity fit reads (newest). */
    intensityWindow: z.number().int().min(2).max(1_440).default(60),
    /** Volatility assumed while unknown, bps per √minute. */
    fallbackVolBpsPerMin: z.number().positive().max(10_000).default(15),
    /** Intensity decay k assumed while the fit has too little, per unit of relative price. */
    fallbackK: z.number().positive().max(1e9).default(1_000),
    minSpreadBps: bpsParam(1, 5_000).default(2),
    maxSpreadBps: bpsParam(1, 5_000).default(100),
    /** Largest lean of the reservation price from the index, bps. */
    maxSkewBps: bpsParam(0, 5_000).default(50),
    /** Klines whose newest open time is older than this are stale (0 = never stale). */
    maxKlineAgeMs: MsParam.default(300_000),
  })
  .refine((p) => p.minSpreadBps <= p.maxSpreadBps, {
    error: 'minSpreadBps must not exceed maxSpreadBps',
    path: ['minSpreadBps'],
  })
export type AvellanedaStoikovParams = z.infer<typeof AvellanedaStoikovParams>

/** The model's reservation shift and half-spread (whole bps) for a snapshot's klines and inventory. */
export function avellanedaStoikovQuote(
  klines: Parameters<typeof ewmaVolatility>[0] | undefined,
  inventory: number,
  p: AvellanedaStoikovParams,
): { shiftBps: number; halfSpreadBps: number; estimated: boolean } {
  const sigma = klines === undefined ? undefined : ewmaVolatility(klines, p.volHalfLifeMin, p.minSamples)
  const fit = klines === undefined ? undefined : fillIntensity(klines, p.intensityWindow)
  const estimated = sigma !== undefined && fit !== undefined
  const model = avellanedaStoikovBps({
    inventory: Number.isFinite(inventory) ? inventory : 0,
    gamma: p.gamma,
    sigma: sigma ?? p.fallbackVolBpsPerMin / 10_000 / Math.sqrt(60),
    horizonS: p.horizonS,
    k: fit?.k ?? p.fallbackK,
  })
  const floor = estimated ? p.minSpreadBps : Math.ceil((p.minSpreadBps + p.maxSpreadBps) / 2)
  const half = Number.isFinite(model.halfSpreadBps) ? Math.ceil(model.halfSpreadBps) : p.maxSpreadBps
  const shift = Number.isFinite(model.reservationShiftBps) ? Math.trunc(model.reservationShiftBps) : 0
  return {
    halfSpreadBps: Math.min(p.maxSpreadBps, Math.max(floor, half)),
    shiftBps: Math.max(-p.maxSkewBps, Math.min(p.maxSkewBps, shift)) || 0,
    estimated,
  }
}

export const strategy = defineStrategy({
  name: 'avellaneda-stoikov',
  description:
    'Avellaneda–Stoikov: reservation price leaning against inventory (γ, horizon) and a spread from online volatility and fill intensity, both estimated from 1-minute klines; capped by positionCap, maxSkewBps and the spread bounds.',
  paramsSchema: AvellanedaStoikovParams,
  quote(snapshot, params) {
    const index = freshIndexPrice(snapshot, params.maxIndexAgeMs)
    if (index === undefined) return []
    const klines = freshKlines(snapshot, params.maxKlineAgeMs)
    const inventory = Number(snapshot.position?.size ?? '0') / Number(params.size)
    const m = avellanedaStoikovQuote(klines, inventory, params)
    return buildLadder(
      snapshot,
      { ...params, halfSpreadBps: m.halfSpreadBps, skewBps: 0 },
      { centre: index, reference: index, shiftBps: m.shiftBps, bbo: freshBbo(snapshot, params.maxBboAgeMs) },
    )
  },
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
