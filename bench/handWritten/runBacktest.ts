/**
 * The baseline of `npm run research:bench`'s fast case (issue 37): the hand-written fast engine as it
 * was at commit 7f14129 (src/research/backtest/runBacktest.ts with instrumentRunner.ts, removed from
 * src/ when the backtest came to run the bot's real instrument machine), kept here unchanged but for its
 * import paths, so the machine-driven engine is measured against it in the same run on the same code
 * of the bot's steps, strategies and the mock's core. Not an engine anyone runs: a yardstick.
 *
 * What it was: the same strategy objects and the same decisions as the bot (its instrument actor's
 * pure steps, quote diff, price guard; instrumentRunner.ts), against the mock exchange's own core
 * replaying the dataset through the same fill model, on a virtual clock that jumps from one due moment
 * to the next. The inputs arrive as the bot's pollers deliver them with streams off: every index
 * `polling.indexMs`, the portfolio every `polling.portfolioMs`, the open orders every
 * `polling.openOrdersMs`, statistics every `polling.statisticsMs` for strategies that read them.
 */
import { instrumentDeps } from '../../src/bot/actors/actorWiring.ts'
import { indexFromTicker } from '../../src/bot/inputs/pollers.ts'
import type { InputEvent } from '../../src/bot/instrument/steps.ts'
import { allocateOrderSlots } from '../../src/bot/quoting/orderSlots.ts'
import { resolveStrategies } from '../../src/bot/startup/resolveConfig.ts'
import { InputValidationError } from '../../src/errors.ts'
import { createLogger, SecretBag } from '../../src/logging/logger.ts'
import { createBacktestVenue } from '../../src/research/backtest/backtestVenue.ts'
import { createRecorder, type RecordedStatus } from '../../src/sim/simulate/recorder.ts'
import {
  type SimulateOptions,
  type SimulationResult,
  simulationSettings,
} from '../../src/sim/simulate/runSimulation.ts'
import {
  instrumentForStrategy,
  marginForStrategy,
  positionForStrategy,
  statisticsForStrategy,
} from '../../src/strategy/snapshot.ts'
import { InstrumentRunner } from './instrumentRunner.ts'

/** Wakes one instrument may take at the same moment (a due time that keeps coming back as now). */
const MAX_WAKES_PER_MOMENT = 16
/** Virtual time between yields to the event loop (an abort signal, a progress bar). */
const YIELD_EVERY_MS = 3_600_000

interface Poll {
  every: number
  next: number
  read: (t: number) => void
}

export async function runBacktest(o: SimulateOptions): Promise<SimulationResult> {
  const replay = o.replay
  if (replay === undefined)
    throw new InputValidationError('the fast engine replays a dataset: give --data DIR (or --engine bot)')
  const specs = replay.instruments
  const settings = simulationSettings(o, specs)
  const strategies = await resolveStrategies(settings)
  let now = replay.startMs
  const clock = { now: () => now }
  // The recorder (built after the venue) sees each market step's mid: markouts, fill rate.
  let priceTap: ((iid: number, t: number, mid: number) => void) | undefined
  const venue = createBacktestVenue({
    clock,
    seed: o.seed,
    instruments: specs,
    driver: replay.driver,
    marketTap: (m, t) => priceTap?.(m.spec.id, t, Number(m.markTicks) / 10 ** m.spec.priceDecimals),
  })
  const listed = new Map(venue.exchange.instruments().map((i) => [i.symbol, i]))
  const logger = createLogger({
    level: settings.logging.level,
    pretty: 'never',
    secrets: new SecretBag(),
    destination: { write: () => undefined },
  })
  const slots = allocateOrderSlots(
    strategies.flatMap((r) => {
      const i = listed.get(r.symbol)
      return i === undefined
        ? []
        : [
            {
              id: i.instrument_id,
              symbol: i.symbol,
              wants: r.strategy.maxOrders,
              venueMax: i.max_order_count,
            },
          ]
    }),
    settings.quoting.accountOpenOrderCap,
  ).trimmed
  const runners = new Map<number, InstrumentRunner>()
  let readsStatistics = false
  for (const r of strategies) {
    const inst = listed.get(r.symbol)
    if (inst === undefined) continue
    const id = inst.instrument_id
    const share = slots.get(id)
    readsStatistics ||= r.strategy.reads.has('statistics')
    runners.set(
      id,
      new InstrumentRunner(
        {
          instrument: {
            ...instrumentForStrategy(inst),
            ...(share === undefined ? {} : { maxOrderCount: share }),
          },
          deps: instrumentDeps(settings, r.strategy, { clock, logger }),
        },
        { submit: (plan) => venue.submit(plan), cancelAll: () => venue.cancelAll(id) },
      ),
    )
  }
  const route = (id: number, event: InputEvent, t: number): void => runners.get(id)?.input(event, t)

  const totalMs = Math.round(o.hours * 3_600_000)
  const startMs = replay.startMs
  const endMs = startMs + totalMs
  const recorder = createRecorder({
    exchange: venue.exchange,
    meta: {
      strategy: o.strategy,
      scenario: o.scenario,
      seed: o.seed,
      hours: o.hours,
      startMs,
      perpbotVersion: o.perpbotVersion,
      data: `${replay.label}; engine fast (the bot's decisions without HTTP, signing, limiter or batcher)`,
    },
    stepMs: Math.max(1_000, Math.round(totalMs / 1_000)),
  })
  recorder.follow(venue.owner)
  priceTap = (iid, t, mid) => recorder.price(iid, t, mid)
  const states = () =>
    [...runners.values()].map((r) => ({
      id: r.context.instrument.id,
      symbol: r.context.instrument.symbol,
      state: r.state,
      reason: r.context.assessment.reason,
    }))
  const status = (): RecordedStatus => ({ limiter: { budgets: {} }, instruments: states() })

  const polls: Poll[] = [
    {
      every: settings.polling.indexMs,
      next: startMs,
      read: (t) => {
        for (const tk of venue.exchange.tickers())
          route(tk.instrument_id, { type: 'INDEX', index: indexFromTicker(tk, t), receivedAt: t }, t)
      },
    },
    {
      every: settings.polling.portfolioMs,
      next: startMs,
      read: (t) => {
        const p = venue.exchange.portfolio(venue.owner)
        const margin = marginForStrategy(p)
        for (const id of runners.keys())
          route(id, { type: 'ACCOUNT', margin, position: positionForStrategy(p, id), receivedAt: t }, t)
      },
    },
    {
      every: settings.polling.openOrdersMs,
      next: startMs,
      read: (t) => {
        for (const id of runners.keys())
          route(id, { type: 'ORDERS', orders: venue.openOrders(id), receivedAt: t }, t)
      },
    },
  ]
  if (readsStatistics)
    polls.push({
      every: settings.polling.statisticsMs,
      next: startMs,
      read: (t) => {
        for (const item of venue.exchange.statistics(undefined, settings.quoting.klinesKept))
          route(
            item.instrument_id,
            { type: 'STATISTICS', statistics: statisticsForStrategy(item), receivedAt: t },
            t,
          )
      },
    })

  let steps = 0
  let yieldAt = startMs + YIELD_EVERY_MS
  try {
    for (let t = startMs; ; ) {
      now = t
      venue.advanceTo(t)
      for (const p of polls)
        if (p.next <= t) {
          p.read(t)
          p.next = t + p.every
        }
      for (const r of runners.values())
        for (let k = 0, d = r.nextDue(); d !== undefined && d <= t && k < MAX_WAKES_PER_MOMENT; k++) {
          r.wake(t)
          d = r.nextDue()
        }
      recorder.sample(t, { states, budgets: () => ({}) })
      o.onProgress?.(t - startMs, totalMs)
      if (t >= endMs || o.signal?.aborted === true) break
      let next = endMs
      for (const p of polls) next = Math.min(next, p.next)
      for (const r of runners.values()) {
        const d = r.nextDue()
        if (d !== undefined && d > t) next = Math.min(next, d)
      }
      t = next
      steps++
      if (t >= yieldAt) {
        yieldAt = t + YIELD_EVERY_MS
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
    return { record: recorder.finish(now, status()), steps, signatures: { deferred: 0, checked: 0 } }
  } finally {
    recorder.dispose()
  }
}
