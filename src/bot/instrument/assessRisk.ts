/**
 * Which risk mode an instrument should be in, from its inputs: pure, with hysteresis. Modes by
 * severity: normal < widened < reduce-only < halted. Escalation is immediate; stepping down needs the
 * driver back inside its threshold by the hysteresis margin and a minimum dwell in the current mode.
 * Stale or missing inputs halt at once and resume as soon as fresh data arrives (no dwell: nothing
 * about the account got worse).
 */

export type RiskMode = 'normal' | 'widened' | 'reduce-only' | 'halted'

export const RISK_RANK: Readonly<Record<RiskMode, number>> = {
  normal: 0,
  widened: 1,
  'reduce-only': 2,
  halted: 3,
}

export interface RiskConfig {
  widenAtMarginRatio: number
  reduceOnlyAtMarginRatio: number
  haltAtMarginRatio: number
  widenAtLiquidationDistance: number
  reduceOnlyAtLiquidationDistance: number
  hysteresis: number
  minModeDwellMs: number
  staleIndexMs: number
  staleStatisticsMs: number
  staleMarginMs: number
}

export interface RiskInputs {
  now: number
  indexAt: number | undefined
  statisticsAt: number | undefined
  /** False when the strategy does not read statistics: then they are no input at all (default true). */
  needsStatistics?: boolean | undefined
  marginAt: number | undefined
  marginRatio: number | undefined
  inLiquidation: boolean
  /**
   * The account value is zero or below (a closed-out account; default false): the venue refuses every
   * order, and the margin ratio reads 0 with no margin in use, so it must not read as "within limits".
   */
  marginExhausted?: boolean | undefined
  /** |mark − liquidation price| / mark of this instrument's position; undefined when flat. */
  liquidationDistance: number | undefined
  /** Quoting paused by the rate-limit breaker. */
  breakerOpen: boolean
  /** Held halted from outside (an operator's pause, a protection): the reason; resumes at once when released. */
  held?: string | undefined
}

export interface RiskAssessment {
  mode: RiskMode
  reason: string
}

export interface CurrentMode {
  mode: RiskMode
  since: number
  /** Whether the current mode was caused by stale inputs or the breaker (resumes without dwell). */
  transient: boolean
}

const fmt = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : '∞')
const age = (now: number, at: number): string => `${Math.round((now - at) / 1000)} s old`

/** Returns the mode to be in and why; `transient` tells whether it comes from stale inputs/breaker. */
export function assessRisk(
  inputs: RiskInputs,
  current: CurrentMode,
  cfg: RiskConfig,
): RiskAssessment & { transient: boolean } {
  const { now } = inputs
  // 1. Stale inputs and the breaker: halt now, resume at once.
  const stale: string[] = []
  if (inputs.indexAt === undefined) stale.push('no index price yet')
  else if (now - inputs.indexAt > cfg.staleIndexMs) stale.push(`index stale (${age(now, inputs.indexAt)})`)
  if (inputs.needsStatistics !== false) {
    if (inputs.statisticsAt === undefined) stale.push('no statistics yet')
    else if (now - inputs.statisticsAt > cfg.staleStatisticsMs)
      stale.push(`statistics stale (${age(now, inputs.statisticsAt)})`)
  }
  if (inputs.marginAt === undefined) stale.push('no margin data yet')
  else if (now - inputs.marginAt > cfg.staleMarginMs)
    stale.push(`margin stale (${age(now, inputs.marginAt)})`)
  if (inputs.breakerOpen) stale.push('rate-limit breaker open')
  if (inputs.held !== undefined) stale.push(inputs.held)

  // 2. Account risk, with hysteresis against the current mode.
  const account = accountRisk(inputs, current, cfg)
  if (stale.length > 0) {
    // Account-driven halts are not transient even when inputs are also stale.
    return account.mode === 'halted'
      ? { mode: account.mode, reason: `${account.reason}; ${stale.join(', ')}`, transient: false }
      : { mode: 'halted', reason: stale.join(', '), transient: true }
  }
  return { mode: account.mode, reason: account.reason, transient: false }
}

/** The modes a step down may hold at, highest first. */
const STEP_DOWN = ['halted', 'reduce-only', 'widened'] as const

function accountRisk(inputs: RiskInputs, current: CurrentMode, cfg: RiskConfig): RiskAssessment {
  const cur = current.transient ? 'normal' : current.mode
  const curRank = RISK_RANK[cur]
  const ratio = inputs.marginRatio ?? 0
  const dist = inputs.liquidationDistance

  // Raw target, ignoring hysteresis: the highest mode any driver asks for, the first reason for it.
  let target: RiskAssessment = { mode: 'normal', reason: 'margin and liquidation distance within limits' }
  if (inputs.inLiquidation)
    target = raised(target, 'halted', 'liquidated: the venue reports the account in liquidation')
  if (inputs.marginExhausted === true)
    target = raised(target, 'halted', 'margin exhausted: the account value is 0 or less')
  if (ratio >= cfg.haltAtMarginRatio)
    target = raised(target, 'halted', `margin ratio ${fmt(ratio)} ≥ ${cfg.haltAtMarginRatio}`)
  if (ratio >= cfg.reduceOnlyAtMarginRatio)
    target = raised(target, 'reduce-only', `margin ratio ${fmt(ratio)} ≥ ${cfg.reduceOnlyAtMarginRatio}`)
  if (ratio >= cfg.widenAtMarginRatio)
    target = raised(target, 'widened', `margin ratio ${fmt(ratio)} ≥ ${cfg.widenAtMarginRatio}`)
  if (dist !== undefined && dist <= cfg.reduceOnlyAtLiquidationDistance)
    target = raised(target, 'reduce-only', `liquidation ${(dist * 100).toFixed(1)}% away`)
  if (dist !== undefined && dist <= cfg.widenAtLiquidationDistance)
    target = raised(target, 'widened', `liquidation ${(dist * 100).toFixed(1)}% away`)

  if (RISK_RANK[target.mode] >= curRank) return target

  // Stepping down: only once every driver of the current mode is back inside by the margin h, and
  // after the minimum dwell.
  if (inputs.now - current.since < cfg.minModeDwellMs) {
    return { mode: cur, reason: `holding ${cur} (minimum dwell)` }
  }
  // Step down at most to the highest mode whose band still holds.
  for (const mode of STEP_DOWN) {
    if (RISK_RANK[mode] > curRank) continue
    if (RISK_RANK[mode] <= RISK_RANK[target.mode]) break
    if (stillAt(mode, inputs, cfg)) return { mode, reason: `holding ${mode} (inside hysteresis band)` }
  }
  return target
}

/** `target`, or `mode` for `reason` when that is higher (module-level: see quoteDiff.ts `atScale`). */
function raised(target: RiskAssessment, mode: RiskMode, reason: string): RiskAssessment {
  return RISK_RANK[mode] > RISK_RANK[target.mode] ? { mode, reason } : target
}

/** Whether a driver of `mode` is still inside its band widened by the hysteresis. */
function stillAt(mode: RiskMode, inputs: RiskInputs, cfg: RiskConfig): boolean {
  const h = cfg.hysteresis
  const ratio = inputs.marginRatio ?? 0
  const dist = inputs.liquidationDistance
  switch (mode) {
    case 'halted':
      return inputs.inLiquidation || inputs.marginExhausted === true || ratio > cfg.haltAtMarginRatio - h
    case 'reduce-only':
      return (
        ratio > cfg.reduceOnlyAtMarginRatio - h ||
        (dist !== undefined && dist < cfg.reduceOnlyAtLiquidationDistance + h)
      )
    case 'widened':
      return (
        ratio > cfg.widenAtMarginRatio - h ||
        (dist !== undefined && dist < cfg.widenAtLiquidationDistance + h)
      )
    default:
      return false
  }
}
