import { createActor, fromPromise, SimulatedClock } from 'xstate'
import { planSubmitter } from '../../../src/bot/actors/planSubmitter.ts'
import type { RiskConfig } from '../../../src/bot/instrument/assessRisk.ts'
import {
  type InstrumentDeps,
  type InstrumentEmitted,
  instrumentMachine,
  instrumentStateValue,
} from '../../../src/bot/instrument/instrument.machine.ts'
import type { OrderPlan, PlanOutcome, SubmitPlanInput } from '../../../src/bot/quoting/orderPlan.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import type { OptionalInput, StrategyMargin, StrategySnapshot } from '../../../src/strategy/strategy.ts'
import { restingOrder } from '../../helpers/orders.ts'

export const risk: RiskConfig = {
  widenAtMarginRatio: 0.5,
  reduceOnlyAtMarginRatio: 0.7,
  haltAtMarginRatio: 0.9,
  widenAtLiquidationDistance: 0.15,
  reduceOnlyAtLiquidationDistance: 0.08,
  hysteresis: 0.05,
  minModeDwellMs: 10_000,
  staleIndexMs: 15_000,
  staleStatisticsMs: 180_000,
  staleMarginMs: 30_000,
}

export function margin(ratio: number, inLiquidation = false): StrategyMargin {
  return {
    accountValue: '1000',
    initialMargin: String(ratio * 2000),
    maintenanceMargin: String(ratio * 1000),
    marginRatio: ratio,
    inLiquidation,
  }
}

export interface Harness {
  clock: SimulatedClock
  actor: ReturnType<typeof createActor<typeof instrumentMachine>>
  submitted: SubmitPlanInput[]
  cancelAlls: number[]
  snapshots: StrategySnapshot[]
  logs: string[]
  /** Events the actor emitted (alerts). */
  emitted: InstrumentEmitted[]
  /** Resolves the oldest pending submission with the given outcome builder. */
  resolveSubmit(outcome?: (p: OrderPlan, open: readonly Order[], now: number) => PlanOutcome): Promise<void>
  rejectSubmit(error: unknown): Promise<void>
  feedAll(opts?: { ratio?: number; inLiquidation?: boolean }): void
  value(): unknown
}

/** The venue accepts every item: a modified order comes back changed, as the venue answers it. */
const okAll = (p: OrderPlan, open: readonly Order[], now: number): PlanOutcome => ({
  modify: p.modify.map((m) => {
    const prev = open.find((o) => o.oid === m.oid)
    const order: Order = prev
      ? { ...prev, p: m.p, qty: m.qty, uts: now }
      : restingOrder(m.oid, { p: m.p, qty: m.qty, rest: m.qty, cts: now, uts: now })
    return { status: 'ok' as const, order }
  }),
  create: p.create.map((_, i) => ({ status: 'ok' as const, oid: 1000 + i })),
  cancel: p.cancel.map(() => ({ status: 'ok' as const })),
})

export function harness(
  plan: (s: StrategySnapshot) => OrderPlan,
  opts: {
    cancelFails?: boolean
    /** The strategy's `revisitAt` (absent: the actor re-asks every tick). */
    revisitAt?: ((s: StrategySnapshot) => number | undefined) | undefined
    /** The optional inputs the strategy reads (absent: every one). */
    reads?: readonly OptionalInput[] | undefined
    /** Input ages a feed renews without events (absent: none). */
    ages?: InstrumentDeps['ages']
  } = {},
): Harness {
  const clock = new SimulatedClock()
  clock.set(1_767_000_000_000)
  const submitted: SubmitPlanInput[] = []
  const cancelAlls: number[] = []
  const snapshots: StrategySnapshot[] = []
  const logs: string[] = []
  const pending: {
    resolve: (o: PlanOutcome) => void
    reject: (e: unknown) => void
    input: SubmitPlanInput
  }[] = []
  const logger = createLogger({
    pretty: 'never',
    level: 'debug',
    destination: { write: (line: string) => logs.push((JSON.parse(line) as { msg: string }).msg) },
  })
  const deps: InstrumentDeps = {
    clock,
    logger,
    plan: (s) => {
      snapshots.push(s)
      return plan(s)
    },
    ...(opts.revisitAt ? { revisitAt: opts.revisitAt } : {}),
    ...(opts.reads ? { reads: new Set(opts.reads) } : {}),
    ...(opts.ages ? { ages: opts.ages } : {}),
    risk,
    recheckMs: 1_000,
    minRepriceIntervalMs: 250,
    rejectBackoffMs: 1_000,
    maxOrderAgeMs: 120_000,
    guard: { maxIndexJump: '0.1', degradeAfter: 3 },
  }
  const machine = instrumentMachine.provide({
    actors: {
      submitter: planSubmitter(
        (input) =>
          new Promise<PlanOutcome>((resolve, reject) => {
            submitted.push(input)
            pending.push({ resolve, reject, input })
          }),
      ),
      cancelAll: fromPromise<void, { instrumentId: number }>(async ({ input }) => {
        cancelAlls.push(input.instrumentId)
        if (opts.cancelFails) throw new Error('cancel failed')
      }),
    },
  })
  const actor = createActor(machine, {
    clock,
    input: {
      instrument: {
        id: 7,
        symbol: 'BTC-USDC',
        priceDecimals: 1,
        quantityDecimals: 3,
        priceBounds: '0.05',
        minNotional: '1',
        maxOrderCount: 200,
      },
      deps,
    },
  })
  const emitted: InstrumentEmitted[] = []
  actor.on('*', (e) => emitted.push(e))
  actor.start()
  const flush = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await Promise.resolve()
  }
  const h: Harness = {
    clock,
    actor,
    submitted,
    cancelAlls,
    snapshots,
    logs,
    emitted,
    async resolveSubmit(outcome = okAll) {
      const p = pending.shift()
      if (!p) throw new Error('no pending submission')
      p.resolve(outcome(p.input.plan, p.input.openOrders ?? [], clock.now()))
      await flush()
    },
    async rejectSubmit(error) {
      const p = pending.shift()
      if (!p) throw new Error('no pending submission')
      p.reject(error)
      await flush()
    },
    feedAll({ ratio = 0.1, inLiquidation = false } = {}) {
      const now = clock.now()
      actor.send({ type: 'INDEX', index: { price: '50000', ts: now }, receivedAt: now })
      actor.send({
        type: 'STATISTICS',
        statistics: { volume: '10', openPrice: '49000', klines: [] },
        receivedAt: now,
      })
      actor.send({
        type: 'ACCOUNT',
        margin: margin(ratio, inLiquidation),
        position: undefined,
        receivedAt: now,
      })
      actor.send({ type: 'ORDERS', orders: [], receivedAt: now })
    },
    // The state value as the bot shows it (`repricing` while a plan is in flight).
    value: () => instrumentStateValue(actor.getSnapshot()),
  }
  return h
}

export const oneBid = (): OrderPlan => ({
  modify: [],
  create: [{ iid: 7, buy: true, p: '49990', qty: '0.01' }],
  cancel: [],
})
export const nothing = (): OrderPlan => ({ modify: [], create: [], cancel: [] })
