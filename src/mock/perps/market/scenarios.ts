/**
 * Named market/account behaviours of the mock venue. A scenario sets the price regimes when it
 * becomes active and seeds every account (the existing ones on activation, new ones as they appear).
 * `flaky` is a calm market whose faults the mock's infrastructure layer applies.
 */

import { isOneOf } from '../../../guards.ts'
import type { WithdrawalOutcome } from '../account/withdrawals.ts'
import type { InstrumentSpec } from '../instruments.ts'
import type { RegimeName } from './priceProcess.ts'

export const SCENARIO_NAMES = [
  'calm',
  'trending',
  'liquidation',
  'withdrawal-failure',
  'flaky',
  'calm-slow-premium',
] as const
export type ScenarioName = (typeof SCENARIO_NAMES)[number]

export function isScenarioName(name: string): name is ScenarioName {
  return isOneOf(SCENARIO_NAMES, name)
}

/** What a scenario may do to the exchange (implemented by the exchange core). */
export interface ScenarioControls {
  now(): number
  instruments(): readonly InstrumentSpec[]
  /** Switches the regime now and drops any scheduled switches. */
  setRegime(iid: number, regime: RegimeName): void
  /** Adds a regime switch at `at` (ms). */
  scheduleRegime(iid: number, at: number, regime: RegimeName): void
  /** The current regime and the scheduled ones. */
  regimes(iid: number): readonly RegimeName[]
  /** A uniform draw from the scenario stream (independent of the market streams). */
  random(): number
  /** Replaces the account's position on `iid` with a long of `notional` USD at the mark, sets its collateral and leverage. */
  seedLeveragedLong(
    owner: string,
    args: { iid: number; notional: string; collateral: string; leverage: number },
  ): void
  requestWithdrawal(owner: string, args: { amount: string; outcome: WithdrawalOutcome }): number
}

export interface ScenarioDefinition {
  name: ScenarioName
  description: string
  activate(c: ScenarioControls): void
  seedAccount(c: ScenarioControls, owner: string): void
}

/** Liquidation scenario parameters: equity starts at 1.2× initial margin, so a ~3.5 % drop liquidates. */
export const LIQUIDATION_SEED = Object.freeze({
  notional: '200000',
  collateral: '12000',
  leverage: 20,
  /** The crash starts this long after an account is seeded, and lasts `crashMs`. */
  crashDelayMs: 30_000,
  crashMs: 5 * 60_000,
})

const allCalm = (c: ScenarioControls): void => {
  for (const i of c.instruments()) c.setRegime(i.id, 'calm')
}

/** Every account gets one ordinary withdrawal that confirms within a minute, so history is never empty. */
const confirmingWithdrawal = (c: ScenarioControls, owner: string): void => {
  c.requestWithdrawal(owner, { amount: '100', outcome: 'confirm' })
}

/** The instrument the liquidation scenario crashes: the first one allowing 20× leverage, else the first. */
export function liquidationTarget(instruments: readonly InstrumentSpec[]): InstrumentSpec | undefined {
  return instruments.find((i) => i.maxLeverage >= LIQUIDATION_SEED.leverage) ?? instruments[0]
}

export const SCENARIOS: Readonly<Record<ScenarioName, ScenarioDefinition>> = Object.freeze({
  calm: {
    name: 'calm',
    description: 'Low-volatility random walk on every instrument.',
    activate: allCalm,
    seedAccount: confirmingWithdrawal,
  },
  trending: {
    name: 'trending',
    description: 'Every instrument drifts (about 2 in 3 up, the rest down); funding follows the basis.',
    activate: (c) => {
      for (const i of c.instruments()) c.setRegime(i.id, c.random() < 2 / 3 ? 'trending-up' : 'trending-down')
    },
    seedAccount: confirmingWithdrawal,
  },
  liquidation: {
    name: 'liquidation',
    description:
      'Each account is seeded with a 20× long and thin collateral on the target instrument; a crash starts 30 s later and drives it into in_liquidation within minutes.',
    activate: allCalm,
    seedAccount: (c, owner) => {
      const target = liquidationTarget(c.instruments())
      if (target === undefined) return
      const leverage = Math.min(LIQUIDATION_SEED.leverage, target.maxLeverage)
      c.seedLeveragedLong(owner, {
        iid: target.id,
        notional: LIQUIDATION_SEED.notional,
        collateral: LIQUIDATION_SEED.collateral,
        leverage,
      })
      // One crash serves every account seeded before it starts.
      if (!c.regimes(target.id).includes('crash')) {
        const start = c.now() + LIQUIDATION_SEED.crashDelayMs
        c.scheduleRegime(target.id, start, 'crash')
        c.scheduleRegime(target.id, start + LIQUIDATION_SEED.crashMs, 'calm')
      }
    },
  },
  'withdrawal-failure': {
    name: 'withdrawal-failure',
    description:
      'Calm market; each account gets a withdrawal that is mined, then fails after 3 confirmations.',
    activate: allCalm,
    seedAccount: (c, owner) => {
      c.requestWithdrawal(owner, { amount: '250', outcome: 'fail' })
    },
  },
  flaky: {
    name: 'flaky',
    description: 'Calm market; transport faults are injected by the mock server, not the exchange.',
    activate: allCalm,
    seedAccount: confirmingWithdrawal,
  },
  'calm-slow-premium': {
    name: 'calm-slow-premium',
    description:
      'The calm market before 2026-12-06: the premium sits ~1 bp over the index and reverts over 10 minutes (fewer fills); for like-with-like benchmarks.',
    activate: (c) => {
      for (const i of c.instruments()) c.setRegime(i.id, 'calm-slow-premium')
    },
    seedAccount: confirmingWithdrawal,
  },
})
