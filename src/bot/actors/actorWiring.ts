/**
 * The wiring of instrument actors, shared by the bot and the benchmarks so both run the same thing:
 * an actor's dependencies from the settings and its resolved strategy, and the supervisor whose
 * children submit their plans through the order gateway.
 */
import { createActor } from 'xstate'
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Settings } from '../../settings/schema.ts'
import type { ResolvedStrategy } from '../../strategy/registry.ts'
import { type InstrumentDeps, instrumentMachine } from '../instrument/instrument.machine.ts'
import type { PlanOutcome, SubmitPlanInput } from '../quoting/orderPlan.ts'
import { createPlanFn } from '../quoting/planFunction.ts'
import { planSubmitter } from './planSubmitter.ts'
import { fromUnabortablePromise } from './promiseActor.ts'
import { type SupervisedInstrument, type SupervisorActor, supervisorMachine } from './supervisor.machine.ts'

/**
 * The longest a best bid/offer waits for a plan, and a halted actor's re-assessment period (an active
 * actor sleeps until something is due; see timeDue.ts). Also the first pause after a rejected plan.
 */
const RECHECK_MS = 1_000
const REJECT_BACKOFF_MS = 1_000

export function instrumentDeps(
  settings: Settings,
  strategy: ResolvedStrategy,
  o: {
    clock: Pick<Clock, 'now'>
    logger: Logger
    minRepriceIntervalMs?: number | undefined
    repeated?: InstrumentDeps['repeated']
    /** Input ages the streams renew without events (absent: none). */
    ages?: InstrumentDeps['ages']
  },
): InstrumentDeps {
  return {
    clock: o.clock,
    ages: o.ages,
    logger: o.logger,
    repeated: o.repeated,
    plan: createPlanFn(strategy, {
      priceTicks: settings.quoting.priceToleranceTicks,
      priceBps: settings.quoting.priceToleranceBps,
      maxOrderAgeMs: settings.quoting.maxOrderAgeMs,
    }),
    revisitAt: (snapshot) => strategy.revisitAt(snapshot),
    reads: strategy.reads,
    risk: { ...settings.risk, ...settings.quoting },
    recheckMs: RECHECK_MS,
    minRepriceIntervalMs: o.minRepriceIntervalMs ?? settings.quoting.minRepriceIntervalMs,
    rejectBackoffMs: REJECT_BACKOFF_MS,
    maxOrderAgeMs: settings.quoting.maxOrderAgeMs,
    guard: {
      maxIndexJump: fractionToDecimal(settings.risk.maxIndexJump),
      degradeAfter: settings.risk.degradeAfter,
      positionCap: strategy.positionCap,
    },
  }
}

/** A config fraction as a plain decimal string (never exponent notation), for exact comparisons. */
export function fractionToDecimal(x: number): string {
  return x.toFixed(12).replace(/\.?0+$/, '') || '0'
}

/**
 * Where the actors send their plans and a halted instrument's cancel-all: the joint from the actors to
 * the orders, declared here by the actors (the order gateway provides it).
 */
export interface PlanSink {
  submitPlan(input: SubmitPlanInput): Promise<PlanOutcome>
  cancelAll(instrumentId: number): Promise<void>
}

/** The supervisor over `instruments`, its children wired to `gateway` (not started). */
export function createInstrumentSupervisor(
  gateway: PlanSink,
  o: { clock: Clock; instruments: SupervisedInstrument[]; logger: Logger; maxRestarts?: number | undefined },
): SupervisorActor {
  const machine = supervisorMachine.provide({
    actors: {
      instrument: instrumentMachine.provide({
        actors: {
          // The actor's one submitter: each plan through the gateway, answered when it settles.
          submitter: planSubmitter((input) => gateway.submitPlan(input)),
          cancelAll: fromUnabortablePromise<void, { instrumentId: number }>((input) =>
            gateway.cancelAll(input.instrumentId),
          ),
        },
      }),
    },
  })
  return createActor(machine, {
    clock: o.clock,
    input: { instruments: o.instruments, logger: o.logger, maxRestarts: o.maxRestarts ?? 5 },
  })
}
