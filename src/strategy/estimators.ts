/**
 * Online estimates a strategy reads off the snapshot's 1-minute klines (each kline summarises the
 * minute's prints): volatility as an exponentially weighted variance of log returns, and the arrival
 * intensity of fills at a distance δ from the price, λ(δ) = A·e^(−kδ), fitted to how often the
 * minute's prints reached δ. Pure and deterministic (the same klines give the same numbers); floats
 * are signals only, never prices.
 */
import type { Kline } from '../perps/schemas/info.ts'

const MINUTE_S = 60

/**
 * Volatility of the log price per √second from the closes of 1-minute klines (oldest first): an EWMA
 * of squared log returns with the given half-life in minutes (the newest return weighs most).
 * Undefined below `minSamples` returns.
 */
export function ewmaVolatility(
  klines: readonly Kline[],
  halfLifeMin: number,
  minSamples: number,
): number | undefined {
  const decay = 2 ** (-1 / Math.max(halfLifeMin, 1e-9))
  let weight = 0
  let sum = 0
  let n = 0
  let prev: number | undefined
  for (const k of klines) {
    const close = Number(k[4])
    if (!(close > 0) || !Number.isFinite(close)) {
      prev = undefined
      continue
    }
    if (prev !== undefined) {
      const r = Math.log(close / prev)
      sum = sum * decay + r * r
      weight = weight * decay + 1
      n++
    }
    prev = close
  }
  if (n < Math.max(2, minSamples) || !(weight > 0)) return undefined
  const sigma = Math.sqrt(sum / weight / MINUTE_S)
  return Number.isFinite(sigma) ? sigma : undefined
}

export interface FillIntensity {
  /** Arrivals per second at distance 0 (per side). */
  a: number
  /** Decay per unit of relative distance (δ as a fraction of the price). */
  k: number
}

/** Distances sampled for the fit, as multiples of the median excursion. */
const GRID = Array.from({ length: 16 }, (_, i) => 0.25 + i * 0.25)

/**
 * Fits λ(δ) = A·e^(−kδ) to the last `window` klines: each kline gives two sides (how far above its
 * open the prints reached, and how far below); at each distance δ of a grid scaled to the median
 * excursion, the share p of sides that reached δ is a per-minute fill probability, λ = −ln(1 − p) / 60 s;
 * a least-squares line through (δ, ln λ) gives k (its slope, negated) and A. Undefined with fewer than
 * three distances reached by some but not all sides, or a slope that does not decay.
 */
export function fillIntensity(klines: readonly Kline[], window: number): FillIntensity | undefined {
  const excursions: number[] = []
  for (const k of klines.slice(-window)) {
    const o = Number(k[1])
    const h = Number(k[2])
    const l = Number(k[3])
    if (!(o > 0 && h >= o && l <= o && l > 0) || !Number.isFinite(h)) continue
    excursions.push(h / o - 1, 1 - l / o)
  }
  if (excursions.length < 4) return undefined
  const sorted = [...excursions].sort((x, y) => x - y)
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0
  if (!(median > 0)) return undefined
  const xs: number[] = []
  const ys: number[] = []
  for (const g of GRID) {
    const delta = g * median
    let reached = 0
    for (const e of sorted) if (e >= delta) reached++
    const p = reached / sorted.length
    if (p <= 0 || p >= 1) continue
    xs.push(delta)
    ys.push(Math.log(-Math.log(1 - p) / MINUTE_S))
  }
  if (xs.length < 3) return undefined
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length
  const my = ys.reduce((s, y) => s + y, 0) / ys.length
  let sxy = 0
  let sxx = 0
  xs.forEach((x, i) => {
    sxy += (x - mx) * ((ys[i] ?? my) - my)
    sxx += (x - mx) ** 2
  })
  const slope = sxx > 0 ? sxy / sxx : 0
  if (!(slope < 0) || !Number.isFinite(slope)) return undefined
  return { k: -slope, a: Math.exp(my - slope * mx) }
}

/**
 * Avellaneda–Stoikov (2008) in relative units: with inventory q (in order sizes), risk aversion γ
 * (per unit of relative price), volatility σ (per √s), horizon T (s) and intensity decay k, the
 * reservation price sits q·γ·σ²·T below the mid (a fraction of it) and the optimal total spread is
 * γ·σ²·T + (2/γ)·ln(1 + γ/k). Returns both in bps.
 */
export function avellanedaStoikovBps(o: {
  inventory: number
  gamma: number
  sigma: number
  horizonS: number
  k: number
}): { reservationShiftBps: number; halfSpreadBps: number } {
  const risk = o.gamma * o.sigma * o.sigma * o.horizonS
  const spread = risk + (2 / o.gamma) * Math.log(1 + o.gamma / o.k)
  return { reservationShiftBps: -o.inventory * risk * 10_000, halfSpreadBps: (spread / 2) * 10_000 }
}
