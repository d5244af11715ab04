/**
 * The instrument part's assembly, one fact for both engines (issue 37, point 1): each configured
 * instrument's share of the account's open-order cap and its actor's input (the instrument as the
 * strategy sees it, trimmed to its share, and the actor's dependencies). The live engine
 * (`startEngine` → instrumentActors.ts) starts an actor on each input; the fast backtest
 * (research/backtest/runBacktest.ts) runs the same machine on the same input with pure transitions.
 */
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Instrument } from '../../perps/schemas/info.ts'
import type { Settings } from '../../settings/schema.ts'
import type { ResolvedStrategy } from '../../strategy/registry.ts'
import { instrumentForStrategy } from '../../strategy/snapshot.ts'
import type { InstrumentDeps, InstrumentInput } from '../instrument/context.ts'
import { allocateOrderSlots, type SlotDemand } from '../quoting/orderSlots.ts'
import { instrumentDeps } from './actorWiring.ts'

/** An instrument as configured, with its strategy and params resolved (start-up resolves them). */
export interface ResolvedInstrumentConfig {
  symbol: string
  strategy: ResolvedStrategy
}

/**
 * Each instrument's share of the account's open-order cap, for those whose ladder it trims
 * (orderSlots.ts); says so once at start.
 * @throws {@link ConfigError} when the cap cannot give every instrument one order.
 */
export function shareOrderSlots(o: {
  settings: Settings
  strategies: readonly ResolvedInstrumentConfig[]
  listed: ReadonlyMap<string, Instrument>
  logger: Logger
}): ReadonlyMap<number, number> {
  const demands: SlotDemand[] = []
  for (const r of o.strategies) {
    const inst = o.listed.get(r.symbol)
    if (inst)
      demands.push({
        id: inst.instrument_id,
        symbol: inst.symbol,
        wants: r.strategy.maxOrders,
        venueMax: inst.max_order_count,
      })
  }
  const cap = o.settings.quoting.accountOpenOrderCap
  const plan = allocateOrderSlots(demands, cap)
  if (plan.trimmed.size > 0) {
    const fewest = Math.min(...plan.trimmed.values())
    o.logger.warn(
      { wanted: plan.wanted, cap, trimmed: plan.trimmed.size, fewest },
      `the ladders want ${plan.wanted} resting orders, the account may hold ${cap} (quoting.accountOpenOrderCap): ${plan.trimmed.size} instrument(s) quote trimmed ladders, down to ${fewest} order(s) each`,
    )
  }
  return plan.trimmed
}

/** One instrument's actor input: the account's cap trims a ladder as the venue's own count does. */
export function instrumentInput(
  inst: Instrument,
  strategy: ResolvedStrategy,
  settings: Settings,
  share: number | undefined,
  o: {
    clock: Pick<Clock, 'now'>
    logger: Logger
    repeated?: InstrumentDeps['repeated']
    ages?: InstrumentDeps['ages']
  },
): InstrumentInput {
  return {
    instrument: {
      ...instrumentForStrategy(inst),
      ...(share === undefined ? {} : { maxOrderCount: share }),
    },
    deps: instrumentDeps(settings, strategy, o),
  }
}
