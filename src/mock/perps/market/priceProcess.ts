/**
 * The seeded index-price process: a log-price random walk whose drift, volatility, jumps and mark
 * basis depend on a named regime. Floats live only here; callers quantize to ticks (money.ts).
 */
import type { Random } from '../../../random.ts'

export const REGIMES = [
  'frozen',
  'calm',
  'calm-slow-premium',
  'trending-up',
  'trending-down',
  'crash',
] as const
export type RegimeName = (typeof REGIMES)[number]

export interface RegimeParams {
  /** Drift of the log price per second. */
  drift: number
  /** Multiplier on the instrument's calm volatility. */
  volMultiplier: number
  /** Expected downward jumps per second, and their size range as fractions of the price. */
  jumpRate: number
  jumpMin: number
  jumpMax: number
  /** Level the mark basis (mark/index − 1) reverts to. */
  basisTarget: number
  /** Mean-reversion time of the basis (s), and its stationary standard deviation. */
  basisTauS: number
  basisStd: number
  /** Multiplier on traded volume. */
  activityMultiplier: number
}

/** Mean-reversion time of the basis, and its stationary standard deviation (issue 39: ~20 s, 5 bps). */
const BASIS = { basisTauS: 20, basisStd: 0.0005 } as const

export const REGIME_PARAMS: Readonly<Record<RegimeName, RegimeParams>> = Object.freeze({
  frozen: {
    drift: 0,
    volMultiplier: 0,
    jumpRate: 0,
    jumpMin: 0,
    jumpMax: 0,
    basisTarget: 0,
    ...BASIS,
    activityMultiplier: 1,
  },
  calm: {
    drift: 0,
    volMultiplier: 1,
    jumpRate: 0,
    jumpMin: 0,
    jumpMax: 0,
    basisTarget: 0,
    ...BASIS,
    activityMultiplier: 1,
  },
  // The calm market before issue 39 (until 2026-12-06): the premium sits about 1 bp above the index
  // and reverts over 10 minutes, so a market maker quoting around the index fills rarely. Kept for
  // like-with-like benchmarks (bench/simulate.ts) against figures measured before the change.
  'calm-slow-premium': {
    drift: 0,
    volMultiplier: 1,
    jumpRate: 0,
    jumpMin: 0,
    jumpMax: 0,
    basisTarget: 0.0001,
    basisTauS: 600,
    basisStd: 0.0003,
    activityMultiplier: 1,
  },
  // ≈ +3.6 %/hour.
  'trending-up': {
    drift: 0.00001,
    volMultiplier: 1.5,
    jumpRate: 0,
    jumpMin: 0,
    jumpMax: 0,
    basisTarget: 0.0006,
    ...BASIS,
    activityMultiplier: 1.5,
  },
  'trending-down': {
    drift: -0.00001,
    volMultiplier: 1.5,
    jumpRate: 0,
    jumpMin: 0,
    jumpMax: 0,
    basisTarget: -0.0004,
    ...BASIS,
    activityMultiplier: 1.5,
  },
  // ≈ −1.8 %/minute plus 1–3 % down-jumps about once a minute.
  crash: {
    drift: -0.0003,
    volMultiplier: 4,
    jumpRate: 1 / 60,
    jumpMin: 0.01,
    jumpMax: 0.03,
    basisTarget: -0.002,
    ...BASIS,
    activityMultiplier: 5,
  },
})

export interface PriceState {
  /** Index price (float, quantized by the caller). */
  price: number
  /** Mark premium over the index: mark = index × (1 + basis). */
  basis: number
}

/** Prices never fall below this (a crash must not reach zero). */
export const PRICE_FLOOR = 1e-6

/** Per-step constants, computed once per step for every instrument. */
export interface StepConstants {
  dt: number
  sqrtDt: number
}

export function stepConstants(dtSeconds: number): StepConstants {
  return { dt: dtSeconds, sqrtDt: Math.sqrt(dtSeconds) }
}

/**
 * Advances the state by one step under `regime`: log-normal return plus optional down-jumps; the
 * basis reverts to the regime's target. Both normal draws come from one Box–Muller pair.
 */
export function stepPrice(
  state: PriceState,
  regime: RegimeParams,
  volatility: number,
  k: StepConstants,
  rng: Random,
): void {
  if (regime.volMultiplier === 0 && regime.drift === 0 && regime.jumpRate === 0) {
    state.basis = regime.basisTarget
    return
  }
  const r = Math.sqrt(-2 * Math.log(1 - rng.next()))
  const theta = 2 * Math.PI * rng.next()
  const z0 = r * Math.cos(theta)
  const z1 = r * Math.sin(theta)
  const sigma = volatility * regime.volMultiplier
  let logReturn = (regime.drift - 0.5 * sigma * sigma) * k.dt + sigma * k.sqrtDt * z0
  if (regime.jumpRate > 0 && rng.next() < 1 - Math.exp(-regime.jumpRate * k.dt)) {
    const size = regime.jumpMin + (regime.jumpMax - regime.jumpMin) * rng.next()
    logReturn += Math.log(1 - size)
  }
  state.price = Math.max(PRICE_FLOOR, state.price * Math.exp(logReturn))
  // The regime's own reversion (an exponential decay over the step, noise keeping its stationary deviation).
  const decay = Math.exp(-k.dt / regime.basisTauS)
  const noise = regime.basisStd * Math.sqrt(1 - decay * decay)
  state.basis = state.basis * decay + regime.basisTarget * (1 - decay) + noise * z1
}

/** Traded volume in base units over the step: uniform around the instrument's activity. */
export function simulateVolume(
  activityUsdPerSecond: number,
  regime: RegimeParams,
  price: number,
  dtSeconds: number,
  rng: Random,
): { base: number; trades: number } {
  const u = rng.next()
  const usd = activityUsdPerSecond * regime.activityMultiplier * dtSeconds * (0.4 + 1.2 * u)
  const trades = Math.round((usd / 2_000) * (0.5 + 0.5 * u))
  return { base: usd / price, trades }
}
