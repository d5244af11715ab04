/**
 * What `src/research/` reaches of the bot, in one place (issue 37: research reaches the engine through
 * at most 3 entry points; test/architecture/imports.test.ts counts them). The backtest runs the bot's
 * own instrument machine with xstate's pure transitions and feeds it as the bot's pollers do; the
 * live download throttles itself with the bot's weight limiter. Re-exports only: the live bot imports
 * none of this.
 */
import type { SnapshotFrom } from 'xstate'
import { formatStatePath, type StateValueLike } from '../ops/metrics.ts'
import type { InstrumentMachine } from './instrument/instrument.machine.ts'

export { instrumentInput, shareOrderSlots } from './actors/instrumentInputs.ts'
export { indexFromTicker } from './inputs/pollers.ts'
export {
  botChangeFilter,
  routePush,
  STREAM_ROUTES,
  type StreamRouteTargets,
} from './inputs/streams/streamRoutes.ts'
export {
  type InstrumentContext,
  type InstrumentEvent,
  type InstrumentInput,
  type InstrumentMachine,
  instrumentMachine,
  instrumentStateValue,
  type PlanAnswer,
  type PlanRequest,
} from './instrument/instrument.machine.ts'
export type { InputEvent } from './instrument/steps.ts'
export type {
  ItemOutcome,
  OrderPlan,
  PlannedCreate,
  PlanOutcome,
  SubmitPlanInput,
} from './quoting/orderPlan.ts'
export { allocateOrderSlots } from './quoting/orderSlots.ts'
export { resolveStrategies } from './startup/resolveConfig.ts'

/** A snapshot of the instrument machine (what `transition` takes and returns). */
export type InstrumentSnapshot = SnapshotFrom<InstrumentMachine>

/** An instrument's state path as `/status` names it (the `ticker` region left out). */
export const instrumentStatePath = (value: StateValueLike): string => formatStatePath(value, ['ticker'])
