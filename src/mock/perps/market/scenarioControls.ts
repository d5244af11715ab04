/** The exchange side of the scenario hooks (`ScenarioControls`), as functions over the state. */
import { divRound, pow10 } from '../../../decimal.ts'
import { BotError } from '../../../errors.ts'
import { startWithdrawal } from '../account/accountWithdrawals.ts'
import { newPosition } from '../account/positions.ts'
import { maxBig, parseUsd, USD_DECIMALS } from '../money.ts'
import { type Account, type ExchangeState, marketOf, nowOf } from '../state.ts'
import { SCENARIOS, type ScenarioControls } from './scenarios.ts'

export function scenarioControls(s: ExchangeState): ScenarioControls {
  return {
    now: () => nowOf(s),
    instruments: () => s.markets.map((m) => m.spec),
    setRegime: (iid, regime) => {
      const m = marketOf(s, iid)
      m.regime = regime
      m.schedule = []
    },
    scheduleRegime: (iid, at, regime) => {
      const m = marketOf(s, iid)
      m.schedule.push({ at, regime })
      m.schedule.sort((a, b) => a.at - b.at)
    },
    regimes: (iid) => {
      const m = marketOf(s, iid)
      return [m.regime, ...m.schedule.map((x) => x.regime)]
    },
    random: () => s.scenarioRng.next(),
    seedLeveragedLong: (owner, args) => {
      const account = s.accounts.get(owner.toLowerCase())
      if (account === undefined) return
      const m = marketOf(s, args.iid)
      const { priceDecimals: pd, quantityDecimals: qd } = m.spec
      const qty = maxBig(
        1n,
        divRound(parseUsd(args.notional) * pow10(qd + pd), m.markTicks * pow10(USD_DECIMALS), 'down'),
      )
      const pos = newPosition(m.spec.id)
      pos.size = qty
      pos.cost = qty * m.markTicks
      account.positions.set(m.spec.id, pos)
      account.collateral = parseUsd(args.collateral)
      account.leverage.set(m.spec.id, Math.min(args.leverage, m.spec.maxLeverage))
      account.inLiquidation = false
    },
    requestWithdrawal: (owner, args) => {
      const account = s.accounts.get(owner.toLowerCase())
      if (account === undefined) return -1
      try {
        return startWithdrawal(s, account, { amount: args.amount, outcome: args.outcome })
      } catch (e) {
        // A scenario seed never breaks account creation: an unaffordable seed withdrawal is skipped.
        if (e instanceof BotError) return -1
        throw e
      }
    },
  }
}

/** Lets the current scenario seed an account (a new one, or every one on a scenario switch). */
export function seedAccount(s: ExchangeState, account: Account): void {
  SCENARIOS[s.scenario].seedAccount(scenarioControls(s), account.owner)
}

/** Starts the current scenario (its regimes and schedules). */
export function activateScenario(s: ExchangeState): void {
  SCENARIOS[s.scenario].activate(scenarioControls(s))
}
