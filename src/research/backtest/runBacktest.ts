/**
 * The fast backtest engine (`perpbot simulate --data DIR --engine fast`, the sweep's default): the
 * bot's own instrument machine, run with xstate's pure transitions (backtest/machineDriver.ts), with
 * the same strategy objects, against the mock exchange's own core replaying the dataset through the
 * same fill model (backtest/backtestVenue.ts), on a virtual clock that jumps from one due moment to
 * the next. What it leaves out is everything between a decision and the venue: HTTP, signing and
 * signature recovery, the request limiter, the batcher, the actor system's mailboxes and timers.
 * The inputs are read as the bot's pollers read them: every index `polling.indexMs`, the portfolio
 * every `polling.portfolioMs`, the open orders every `polling.openOrdersMs`, statistics every
 * `polling.statisticsMs` for strategies that read them. The tickers and the portfolio then go through
 * the live bot's own stream routes (`STREAM_ROUTES`, streams being on by default) with its change
 * filter (`botChangeFilter`): an unchanged index or account is held back and re-sent only when its
 * refresh is due, so the machine gets the events the live bot's routing gives it, not every poll.
 * The inputs of the polls due at one virtual moment reach an instrument's machine as one `INPUTS`
 * event (stored in order, planned once on all of them), a lone input as itself.
 * The same recorder as `runSimulation` writes the record, so the report and the sweep's metrics are
 * computed the same way.
 */
import {
  botChangeFilter,
  type InputEvent,
  instrumentInput,
  resolveStrategies,
  routePush,
  STREAM_ROUTES,
  type StreamRouteTargets,
  shareOrderSlots,
} from '../../bot/researchApi.ts'
import { InputValidationError } from '../../errors.ts'
import { createLogger, SecretBag } from '../../logging/logger.ts'
import type { Ticker } from '../../perps/schemas/tickers.ts'
import type { TickerPush } from '../../perps/stream/pushSchemas.ts'
import {
  createRecorder,
  type RecordedStatus,
  type SimulateOptions,
  type SimulationResult,
  simulationSettings,
} from '../../sim/simulate/index.ts'
import { statisticsForStrategy } from '../../strategy/snapshot.ts'
import { createBacktestVenue } from './backtestVenue.ts'
import { MachineDriver } from './machineDriver.ts'
import { withoutPretenuring } from './pretenuring.ts'

/** Wakes one instrument may take at the same moment (a due time that keeps coming back as now). */
const MAX_WAKES_PER_MOMENT = 16
/** Virtual time between yields to the event loop (an abort signal, a progress bar). */
const YIELD_EVERY_MS = 3_600_000

interface Poll {
  every: number
  next: number
  read: (t: number) => void
}

/** The fast engine's run (above), with V8's allocation-site pretenuring off while it runs (pretenuring.ts). */
export function runBacktest(o: SimulateOptions): Promise<SimulationResult> {
  return withoutPretenuring(() => backtest(o))
}

async function backtest(o: SimulateOptions): Promise<SimulationResult> {
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
  // The live engine's assembly of the instrument part (bot/actors/instrumentInputs.ts): the same
  // shares of the account's open-order cap and the same actor input for each instrument.
  const slots = shareOrderSlots({ settings, strategies, listed, logger })
  const runners = new Map<number, MachineDriver>()
  let readsStatistics = false
  // The live bot's change filter, on the virtual clock: it holds back unchanged values and keeps the
  // ages they renew, which the machine reads as its input ages (as the live bot's actors do).
  const changed = botChangeFilter(clock.now, settings.quoting)
  for (const r of strategies) {
    const inst = listed.get(r.symbol)
    if (inst === undefined) continue
    const id = inst.instrument_id
    readsStatistics ||= r.strategy.reads.has('statistics')
    runners.set(
      id,
      new MachineDriver(
        instrumentInput(inst, r.strategy, settings, slots.get(id), { clock, logger, ages: changed }),
        { submit: (plan) => venue.submit(plan), cancelAll: () => venue.cancelAll(id) },
      ),
    )
  }
  // The live bot's stream routing and change filter, on the virtual clock. A refresh the bot defers
  // until the pushes in hand are routed is routed at the same virtual moment here.
  const none = (): void => undefined
  // The inputs of the polls due at one virtual moment, per instrument, in the order they were read;
  // sent after every poll of the moment has been read (`deliver`).
  const inputs = new Map<number, InputEvent[]>()
  const receive = (id: number, event: InputEvent): void => {
    if (!runners.has(id)) return
    const list = inputs.get(id)
    if (list === undefined) inputs.set(id, [event])
    else list.push(event)
  }
  // One input alone is sent as itself; several of one moment as one `INPUTS`: the machine stores
  // them in order and plans once on all of them, instead of planning (and sending) on each in turn
  // with the moment's later inputs not yet seen.
  const deliver = (): void => {
    for (const [id, list] of inputs) {
      const runner = runners.get(id)
      const only = list.length === 1 ? list[0] : undefined
      if (only !== undefined) runner?.send(only)
      else runner?.send({ type: 'INPUTS', inputs: list })
    }
    inputs.clear()
  }
  const targets: StreamRouteTargets = {
    now: clock.now,
    traded: new Set(runners.keys()),
    route: (ids, event) => {
      // The backtest routes no book (no `bbo::` pushes); a BBO would be stored at once.
      for (const id of ids)
        if (event.type === 'BBO') runners.get(id)?.send(event)
        else receive(id, event)
    },
    klinesKept: settings.quoting.klinesKept,
    changed,
    orders: { observe: none },
    account: { observePortfolio: none, observeFill: none, observeWithdrawal: none },
  }

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
      data: `${replay.label}; engine fast (the bot's instrument machine without HTTP, signing, limiter or batcher)`,
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
          routePush(
            STREAM_ROUTES,
            {
              kind: 'tickers',
              ch: 'tickers::all',
              iid: undefined,
              ts: tk.timestamp ?? t,
              sq: 0,
              data: tickerPush(tk),
            },
            targets,
          )
      },
    },
    {
      every: settings.polling.portfolioMs,
      next: startMs,
      read: (t) => {
        const data = venue.exchange.portfolio(venue.owner)
        routePush(
          STREAM_ROUTES,
          { kind: 'portfolio', ch: 'portfolio', iid: undefined, ts: t, sq: 0, data },
          targets,
        )
      },
    },
    {
      every: settings.polling.openOrdersMs,
      next: startMs,
      read: (t) => {
        for (const id of runners.keys())
          receive(id, { type: 'ORDERS', orders: venue.openOrders(id), receivedAt: t })
      },
    },
  ]
  if (readsStatistics)
    polls.push({
      every: settings.polling.statisticsMs,
      next: startMs,
      read: (t) => {
        for (const item of venue.exchange.statistics(undefined, settings.quoting.klinesKept))
          receive(item.instrument_id, {
            type: 'STATISTICS',
            statistics: statisticsForStrategy(item),
            receivedAt: t,
          })
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
      deliver()
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

/** A ticker row as the `tickers::` push carries it (the venue's terse keys). */
function tickerPush(t: Ticker): TickerPush {
  return {
    iid: t.instrument_id,
    idx: t.index_price,
    mark: t.mark_price,
    last: t.last_price,
    mid: t.mid_price,
    oi: t.open_interest,
    fr: t.funding_rate,
    nxf: t.next_funding,
  }
}
