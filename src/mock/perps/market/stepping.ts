/**
 * Stepping: the simulation has no timers; every entry point first steps it in fixed increments from
 * the last simulated time up to the clock's now (prices, klines, funding, fills of resting orders,
 * withdrawals, liquidations). Scenario and price test hooks live here too.
 */
import { toTicks } from '../../../decimal.ts'
import { InputValidationError } from '../../../errors.ts'
import { isOneOf } from '../../../guards.ts'
import { progressWithdrawals } from '../account/accountWithdrawals.ts'
import { progressDeposits } from '../account/deposits.ts'
import { settleFunding } from '../account/funding.ts'
import { checkLiquidation } from '../account/margin.ts'
import { fireAutoCancels } from '../autoCancel.ts'
import { fillResting } from '../matching.ts'
import { unknownScenario } from '../options.ts'
import { type ExchangeState, marketForAsset, nowOf } from '../state.ts'
import { setMarketPrice, stepMarket } from './market.ts'
import { REGIMES, type RegimeName, stepConstants } from './priceProcess.ts'
import { replayFills, replayStep } from './replayMarket.ts'
import { activateScenario, seedAccount } from './scenarioControls.ts'
import { isScenarioName } from './scenarios.ts'

/** Simulates the history window (1-minute steps so statistics start full) and starts the scenario. */
export function startHistory(s: ExchangeState): void {
  const now = Math.floor(nowOf(s) / s.o.stepMs) * s.o.stepMs
  run(s, now, s.o.historyMinutes > 0 ? 60_000 : s.o.stepMs)
  activateScenario(s)
}

/**
 * Advances the simulation to the clock's now, then fires dead-man switches due by now (a deadline
 * between the last step and now must fire before the request that follows is handled).
 */
export function syncState(s: ExchangeState): void {
  advanceTo(s, s.clock.now())
  fireAutoCancels(s, nowOf(s))
}

/**
 * Steps the simulation up to `time` (ms). Jumps longer than `maxCatchUpMs` simulate only their
 * last part; long jumps use a coarser step so the work stays under `maxInstrumentStepsPerAdvance`.
 */
export function advanceTo(s: ExchangeState, time: number): void {
  const target = Math.floor(time / s.o.stepMs) * s.o.stepMs
  if (target <= s.simTime) return
  const maxGap = Math.floor(s.o.maxCatchUpMs / s.o.stepMs) * s.o.stepMs
  if (target - s.simTime > maxGap) s.simTime = target - maxGap
  const steps = (target - s.simTime) / s.o.stepMs
  const factor = Math.max(1, Math.ceil((steps * s.markets.length) / s.o.maxInstrumentSteps))
  run(s, target, factor * s.o.stepMs)
}

function run(s: ExchangeState, target: number, stride: number): void {
  while (s.simTime < target) {
    const dt = Math.min(stride, target - s.simTime)
    s.simTime += dt
    step(s, s.simTime, dt)
  }
}

function step(s: ExchangeState, t: number, dtMs: number): void {
  if (s.constants?.dt !== dtMs / 1000) s.constants = stepConstants(dtMs / 1000)
  const k = s.constants
  // A deadline inside this step cancels before the step's fills.
  fireAutoCancels(s, t)
  // A replay driver (replayMarket.ts) stands in for the price process and the fill rule.
  const driver = s.o.marketDriver
  for (const m of s.markets) {
    const boundaries = driver ? replayStep(driver, m, t, dtMs) : stepMarket(m, t, dtMs, k)
    for (const b of boundaries) settleFunding(s, m, b)
    if (driver) replayFills(s, driver, m, t, dtMs)
    else fillResting(s, m, t, dtMs)
    s.o.marketTap?.(m, t, dtMs)
  }
  progressWithdrawals(s, t)
  progressDeposits(s, t)
  for (const account of s.accounts.values()) checkLiquidation(s, account, t)
}

/** Switches the scenario now: sets its regimes and seeds every existing account. */
export function setScenario(s: ExchangeState, name: string): void {
  if (!isScenarioName(name)) throw unknownScenario(name)
  syncState(s)
  s.scenario = name
  for (const m of s.markets) m.schedule = []
  activateScenario(s)
  for (const account of s.accounts.values()) seedAccount(s, account)
}

/** Pins an asset's index and mark to `price` now (fills and liquidation checks run at once). */
export function setIndexPrice(s: ExchangeState, asset: string, price: string): void {
  syncState(s)
  const m = marketForAsset(s, asset)
  const ticks = toTicks(price, m.spec.priceDecimals, 'half-even')
  if (ticks <= 0n) throw new InputValidationError('index price must be positive')
  setMarketPrice(m, ticks)
  m.klines.record(s.simTime, Number(ticks), 0, 0)
  fillResting(s, m, s.simTime, s.o.stepMs)
  for (const account of s.accounts.values()) checkLiquidation(s, account, s.simTime)
}

/** Sets an asset's regime now and drops its scheduled switches (`frozen` stops the price). */
export function setRegime(s: ExchangeState, asset: string, regime: RegimeName): void {
  if (!isOneOf(REGIMES, regime)) throw new InputValidationError(`unknown regime ${JSON.stringify(regime)}`)
  syncState(s)
  const m = marketForAsset(s, asset)
  m.regime = regime
  m.schedule = []
}
