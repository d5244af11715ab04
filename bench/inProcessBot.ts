/**
 * The bot's order path assembled in one process, without network, for the benches: a supervisor with
 * N instrument actors (index-peg from the registry, `createPlanFn`), the real batcher and weight
 * limiter, the real order gateway, and the real perps client signing with the real `CommandSigner`
 * (public dev proxy key, protocol-notes a.4) over an undici `MockAgent`. The transport is wrapped so
 * every request is time-stamped (`performance.now()`) at the moment the signed batch is handed to it,
 * before JSON serialisation; a small in-memory venue answers modify/create/cancel so actors apply
 * real per-order results. The parts are the bot's own (src/bot/runtime: the perps client as the bot
 * builds it, the open-order book, the order desk and the instrument actors); only the venue differs.
 */

import { performance } from 'node:perf_hooks'
import { MockAgent } from 'undici'
import { createInstrumentActors } from '../src/bot/actors/instrumentActors.ts'
import type { InstrumentContext } from '../src/bot/instrument/instrument.machine.ts'
import { createOpenOrderBook } from '../src/bot/orders/openOrderBook.ts'
import { createOrderDesk } from '../src/bot/orders/orderDesk.ts'
import { createSignal } from '../src/bot/shared/signal.ts'
import { createBotPerpsClient } from '../src/bot/startup/botPerpsClient.ts'
import type { ResolvedInstrumentConfig } from '../src/bot/startup/resolveConfig.ts'
import { type Clock, systemClock } from '../src/clock.ts'
import { mulDecimal } from '../src/decimal.ts'
import { createHttpTransport, type HttpRequest, type HttpTransport } from '../src/http/transport.ts'
import { createLogger } from '../src/logging/logger.ts'
import { generateInstruments, instrumentToWire } from '../src/mock/perps/instruments.ts'
import type { PerpsClient } from '../src/perps/client/createPerpsClient.ts'
import type { Instrument } from '../src/perps/schemas/info.ts'
import type { Order } from '../src/perps/schemas/orders.ts'
import { CommandSigner } from '../src/perps/signing/commandSigner.ts'
import { OPEN_GATE } from '../src/perps/throttle/requestGate.ts'
import {
  type BreakerState,
  createWeightLimiter,
  type WeightLimiter,
} from '../src/perps/throttle/weightLimiter.ts'
import { seededRandom } from '../src/random.ts'
import { Settings } from '../src/settings/schema.ts'
import { sizeFor } from '../src/sim/generatedInstruments.ts'
import { loadStrategies } from '../src/strategy/registry.ts'
import { instrumentForStrategy } from '../src/strategy/snapshot.ts'
import type { StrategyInstrument, StrategyStatistics } from '../src/strategy/strategy.ts'

/** The public development key of Hardhat's and Anvil's test account #1, known to everyone: a proxy key for tests only; never fund it. */
export const DEV_PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'

const ORIGIN = 'http://venue.bench'

/**
 * - `large`: the real limiter with budgets far above the load (admission never waits for weight);
 * - `default`: the real limiter with the bot's default settings (venue 1,000 / 5,000 per minute);
 * - `none`: no limiter (`schedule` runs the job at once), to isolate the limiter's share.
 */
export type LimiterMode = 'large' | 'default' | 'none'

export interface InProcessBotOptions {
  instruments: number
  /** Quotes per side (index-peg `levels`). Default 1: one bid and one ask per instrument. */
  levels?: number | undefined
  limiter?: LimiterMode | undefined
  /** The actors' `minRepriceIntervalMs`. Default 0 (no throttle, so each input is a repricing). */
  minRepriceIntervalMs?: number | undefined
  clock?: Clock | undefined
  /** Called synchronously as each signed batch is handed to the transport (a bench's CPU reading). */
  onHandoff?: (() => void) | undefined
}

/** A signed batch as it was handed to the transport. */
export interface Handoff {
  at: number
  body: { op: { type: string; args: unknown } }
}

export interface BenchInstrument {
  id: number
  symbol: string
  instrument: StrategyInstrument
  /** The two index prices the benches alternate between (a 0.5 % move: every quote reprices). */
  prices: readonly [string, string]
  /** Which of `prices` was sent last. */
  side: 0 | 1
}

export interface InProcessBot {
  instruments: BenchInstrument[]
  limiter: Pick<WeightLimiter, 'schedule'>
  batcherState(): { queueLength: number; inFlightBatches: number; batchesSent: number; itemsSent: number }
  /** Every batch handed to the transport since the last `takeHandoffs`. */
  takeHandoffs(): Handoff[]
  /** The instrument ids whose commands a handed-off batch carries. */
  instrumentsOf(h: Handoff): number[]
  /** Sends STATISTICS, ACCOUNT, ORDERS([]) and INDEX to every actor and waits for the first quotes. */
  feedInitial(statistics?: ReadonlyMap<number, StrategyStatistics>): Promise<void>
  /**
   * Re-sends ACCOUNT and STATISTICS (inputs the benches do not vary) so they never go stale. With
   * `statistics`, each instrument gets its entry (e.g. parsed klines); otherwise an empty kline list.
   */
  refreshSlowInputs(statistics?: ReadonlyMap<number, StrategyStatistics>): void
  /** Sends an INDEX that moves instrument `i` to its other price; returns `performance.now()` before the send. */
  moveIndex(i: BenchInstrument): number
  /** Resolves when no actor is repricing and the batcher has nothing queued or in flight. */
  waitIdle(timeoutMs?: number): Promise<void>
  /** Open orders per instrument id, as the actors see them. */
  openOrders(): Map<number, number>
  stop(): Promise<void>
}

const nextTick = (): Promise<void> => new Promise((r) => setImmediate(r))

/** Builds the in-process bot. Nothing is sent until `feedInitial`. */
export async function createInProcessBot(o: InProcessBotOptions): Promise<InProcessBot> {
  const clock = o.clock ?? systemClock
  const levels = o.levels ?? 1
  // The bot's own defaults for everything the benches do not set.
  const settings = Settings.parse({
    instruments: [{ symbol: 'X', strategy: 'index-peg' }],
    // Its stand-in venue has no open-order cap: the bot must not trim the ladders to one either.
    quoting: {
      minRepriceIntervalMs: o.minRepriceIntervalMs ?? 0,
      accountOpenOrderCap: Math.max(1_000, 2 * levels * o.instruments),
    },
  })
  const logger = createLogger({ level: 'warn', pretty: 'never', destination: { write: () => undefined } })
  const registry = await loadStrategies()

  // --- the venue: an undici MockAgent answering the three batch endpoints ---
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(ORIGIN)
  const oidToIid = new Map<number, { iid: number; buy: boolean }>()
  let nextOid = 1_000_000
  const json = (data: unknown) => ({
    statusCode: 200,
    data: JSON.stringify(data),
    responseOptions: { headers: { 'content-type': 'application/json' } },
  })
  const parse = (body: unknown): { op: { args: unknown } } =>
    JSON.parse(typeof body === 'string' ? body : '{}') as { op: { args: unknown } }
  pool
    .intercept({ path: '/v1/trade/orders', method: 'POST' })
    .reply((req) => {
      const args = parse(req.body).op.args as { iid: number; buy: boolean }[]
      return json(
        args.map((a) => {
          const oid = nextOid++
          oidToIid.set(oid, { iid: a.iid, buy: a.buy })
          return { status: 'ok', oid }
        }),
      )
    })
    .persist()
  pool
    .intercept({ path: '/v1/trade/orders', method: 'PATCH' })
    .reply((req) => {
      const args = parse(req.body).op.args as { oid: number; p: string; qty: string }[]
      const now = Date.now()
      return json(
        args.map((a) => {
          const known = oidToIid.get(a.oid)
          if (known === undefined) return { status: 'err', error: 'order_not_found' }
          const order: Order = {
            oid: a.oid,
            iid: known.iid,
            buy: known.buy,
            p: a.p,
            qty: a.qty,
            tif: 'gtc',
            po: true,
            ro: false,
            rest: a.qty,
            fill: '0',
            cts: now,
            uts: now,
            status: 'open',
          }
          return { status: 'ok', order }
        }),
      )
    })
    .persist()
  pool
    .intercept({ path: '/v1/trade/orders', method: 'DELETE' })
    .reply((req) => {
      const oids = parse(req.body).op.args as number[]
      return json(oids.map((oid) => ({ status: 'ok', oid })))
    })
    .persist()
  pool
    .intercept({ path: '/v1/trade/orders/all', method: 'DELETE' })
    .reply(() => json({ status: 'ok' }))
    .persist()
  // Reconciliation after an unknown outcome (none happen here): nothing rests at this venue.
  pool
    .intercept({ path: /^\/v1\/account\/open-orders/, method: 'GET' })
    .reply(() => json([]))
    .persist()

  // --- transport: time-stamp the hand-off, then the real undici transport over the MockAgent ---
  let handoffs: Handoff[] = []
  const inner = createHttpTransport({ baseUrl: ORIGIN, dispatcher: agent })
  const transport: HttpTransport = {
    origin: inner.origin,
    request(req: HttpRequest) {
      const at = performance.now()
      if (req.body !== undefined) handoffs.push({ at, body: req.body as Handoff['body'] })
      o.onHandoff?.()
      return inner.request(req)
    },
    close: () => inner.close(),
  }

  // --- limiter, client, batcher, gateway: as in bot.ts ---
  const random = seededRandom(11)
  let limiter: Pick<WeightLimiter, 'schedule' | 'admit'> & { stop?: () => Promise<void> }
  const mode = o.limiter ?? 'large'
  if (mode === 'none') limiter = { schedule: (_job, fn) => fn(), admit: OPEN_GATE.admit }
  else {
    const l = settings.limiter
    limiter = createWeightLimiter({
      requestBudget: mode === 'large' ? 1e9 : l.requestBudgetPerMinute,
      actionBudget: mode === 'large' ? 1e9 : l.actionBudgetPerMinute,
      headroom: l.headroom,
      riskReserve: l.riskReserve,
      breakerThreshold: l.breakerThreshold,
      breakerWindowMs: l.breakerWindowMs,
      breakerCoolDownMs: l.breakerCooldownMs,
      clock,
      random,
    })
  }
  const signer = new CommandSigner({ privateKey: DEV_PROXY_PK, clock, salts: random })
  const perps: PerpsClient = createBotPerpsClient({
    settings,
    transport,
    clock,
    random,
    signer,
    gate: limiter,
  })
  const logSink = logger.child({ component: 'bot' })
  const specs = generateInstruments(o.instruments)
  const openOrders = createOpenOrderBook({ perps, clock, instrumentIds: specs.map((x) => x.id) })
  const orders = createOrderDesk({ perps, openOrders, settings, clock, logger: logSink })
  const batcher = orders.batcher

  // --- instruments and actors: the bot's instrument actors ---
  const instruments: BenchInstrument[] = []
  const strategies: ResolvedInstrumentConfig[] = []
  const listed = new Map<string, Instrument>()
  for (const spec of specs) {
    const wire = instrumentToWire(spec)
    const size = sizeFor(spec.initialPrice)
    strategies.push({
      symbol: spec.symbol,
      strategy: registry.resolve('index-peg', {
        size,
        positionCap: mulDecimal(size, '10'),
        levels,
        halfSpreadBps: 10,
      }),
    })
    listed.set(spec.symbol, wire)
    instruments.push({
      id: spec.id,
      symbol: spec.symbol,
      instrument: instrumentForStrategy(wire),
      prices: [spec.initialPrice, mulDecimal(spec.initialPrice, '1.005')],
      side: 0,
    })
  }
  const actors = createInstrumentActors({
    settings,
    strategies,
    listed,
    gateway: orders.gateway,
    openOrders,
    breaker: createSignal<BreakerState>(),
    alerts: { send: () => undefined },
    clock,
    venueClock: clock,
    logger,
  })
  const contextOf = (id: number): InstrumentContext | undefined => actors.snapshotOf(id)?.context

  const refreshSlowInputs = (statistics?: ReadonlyMap<number, StrategyStatistics>): void => {
    const at = clock.now()
    for (const i of instruments) {
      actors.route([i.id], {
        type: 'ACCOUNT',
        margin: {
          accountValue: '10000000',
          initialMargin: '0',
          maintenanceMargin: '0',
          marginRatio: 0,
          inLiquidation: false,
        },
        position: undefined,
        receivedAt: at,
      })
      actors.route([i.id], {
        type: 'STATISTICS',
        statistics: statistics?.get(i.id) ?? { volume: '1000', openPrice: i.prices[0], klines: [] },
        receivedAt: at,
      })
    }
  }

  const bot: InProcessBot = {
    instruments,
    limiter,
    batcherState: () => batcher.state(),
    takeHandoffs() {
      const out = handoffs
      handoffs = []
      return out
    },
    instrumentsOf(h) {
      const args = h.body.op.args as unknown[]
      const ids = new Set<number>()
      for (const a of args) {
        if (typeof a === 'number') {
          const known = oidToIid.get(a)
          if (known) ids.add(known.iid)
        } else if (a !== null && typeof a === 'object') {
          const r = a as { iid?: number; oid?: number }
          if (r.iid !== undefined) ids.add(r.iid)
          else if (r.oid !== undefined) {
            const known = oidToIid.get(r.oid)
            if (known) ids.add(known.iid)
          }
        }
      }
      return [...ids]
    },
    async feedInitial(statistics) {
      refreshSlowInputs(statistics)
      const at = clock.now()
      for (const i of instruments) {
        actors.route([i.id], { type: 'ORDERS', orders: [], receivedAt: at })
        actors.route([i.id], { type: 'INDEX', index: { price: i.prices[0], ts: at }, receivedAt: at })
      }
      await bot.waitIdle()
      const counts = bot.openOrders()
      const missing = instruments.filter((i) => (counts.get(i.id) ?? 0) !== 2 * levels)
      if (missing.length > 0) {
        throw new Error(
          `${missing.length} instrument(s) did not reach ${2 * levels} resting quotes, e.g. ${missing[0]?.symbol} (${counts.get(missing[0]?.id ?? -1) ?? 0})`,
        )
      }
      bot.takeHandoffs()
    },
    refreshSlowInputs,
    moveIndex(i) {
      i.side = i.side === 0 ? 1 : 0
      const price = i.prices[i.side]
      const t0 = performance.now()
      const at = clock.now()
      actors.route([i.id], { type: 'INDEX', index: { price, ts: at }, receivedAt: at })
      return t0
    },
    async waitIdle(timeoutMs = 60_000) {
      const deadline = performance.now() + timeoutMs
      for (;;) {
        const b = batcher.state()
        if (b.queueLength === 0 && b.inFlightBatches === 0) {
          let busy = false
          for (const i of instruments) {
            if (contextOf(i.id)?.pendingPlan !== undefined) {
              busy = true
              break
            }
          }
          if (!busy) return
        }
        if (performance.now() > deadline) throw new Error('in-process bot did not settle in time')
        await nextTick()
      }
    },
    openOrders() {
      const out = new Map<number, number>()
      for (const i of instruments) out.set(i.id, contextOf(i.id)?.openOrders.length ?? 0)
      return out
    },
    async stop() {
      actors.stopAll()
      await batcher.stop()
      await limiter.stop?.()
      actors.stop()
      await transport.close()
      await agent.close()
    },
  }
  return bot
}
