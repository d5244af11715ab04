/**
 * The instrument actors: one actor per configured instrument under the supervisor, each submitting its
 * plans through the order gateway. It subscribes to what earlier parts publish (reconciled open
 * orders, breaker transitions) and routes them to the actors; an actor that keeps failing raises an
 * alert and has its orders cancelled.
 *
 * The traded instruments are a live list: a reload adds one (`add`: spawned under the supervisor, its
 * open orders tracked) or gives one a new strategy (`reconfigure`); either publishes the instrument on
 * `joined`, so the parts built later (input gates, pollers, streams, holds, protections, the journal)
 * serve it as it is now. Everything else reads `instruments` when it needs them.
 */
import type { SnapshotFrom } from 'xstate'
import type { AlertSink } from '../../alerts/alert.ts'
import { type Clock, systemClock } from '../../clock.ts'
import type { LaterTurn } from '../../http/writeFirst.ts'
import { componentLogger, type Logger } from '../../logging/logger.ts'
import type { Instrument } from '../../perps/schemas/info.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type { BreakerState } from '../../perps/throttle/weightLimiter.ts'
import type { Settings } from '../../settings/schema.ts'
import type { ResolvedStrategy } from '../../strategy/registry.ts'
import type { CatalogueQuery } from '../../strategy/strategy.ts'
import type { InstrumentDeps } from '../instrument/context.ts'
import type { DegradeCause, InstrumentEvent, instrumentMachine } from '../instrument/instrument.machine.ts'
import type { RunningSlots } from '../quoting/orderSlots.ts'
import { inChunks } from '../shared/chunks.ts'
import { createSignal, type Signal } from '../shared/signal.ts'
import { createInstrumentSupervisor, instrumentDeps, type PlanSink } from './actorWiring.ts'
import { instrumentInput, type ResolvedInstrumentConfig, shareOrderSlots } from './instrumentInputs.ts'
import { pacedTimers } from './pacedTimers.ts'
import { childId, routeToInstruments, type SupervisedInstrument } from './supervisor.machine.ts'

export type { ResolvedInstrumentConfig }

/** A traded instrument as the inputs see it (see inputs/actorInbox.ts). */
export interface ActorInstrument {
  id: number
  symbol: string
  asset: string
  /** The currency prices and PnL are quoted in, as the venue names it (e.g. "USDC"). */
  quoteAsset: string
  strategy: string
  catalogueQuery: CatalogueQuery | undefined
  /** Whether its strategy reads statistics (`Strategy.reads`): only then are they read for it. */
  readsStatistics: boolean
  /** Decimals of its prices (the venue's `price_decimals`): a flatten's bounded price. */
  priceDecimals: number
}

/** What `add` did: spawned the actor, or nothing (already traded; the actors are stopping). */
export type AddOutcome = 'added' | 'already traded' | 'stopping'

/** An instrument a reload adds: the venue's row, its resolved strategy, and its share of the cap. */
export interface AddedInstrument {
  listed: Instrument
  strategy: ResolvedStrategy
  /** The settings read with it (quoting, risk): its actor's dependencies. */
  settings: Settings
  /** The most orders it may rest when the account's cap trims its ladder; undefined: not trimmed. */
  share: number | undefined
}

export type InstrumentSnapshot = SnapshotFrom<typeof instrumentMachine>

export interface InstrumentActors {
  /** The traded instruments, live: a reload's `add` appends, `reconfigure` updates in place. */
  readonly instruments: readonly ActorInstrument[]
  /** An actor was restarted: its inputs must be re-fed (the pollers read them again). */
  readonly restarted: Signal<number>
  /**
   * An instrument the later parts must serve as it is now: added by a reload, or reconfigured to read
   * other inputs (statistics, a catalogue query). Published after the actor exists.
   */
  readonly joined: Pick<Signal<ActorInstrument>, 'subscribe'>
  /** Spawns an actor for an instrument added while running; not when it is traded or the actors stop. */
  add(added: AddedInstrument): AddOutcome
  /** A traded instrument's new strategy (a reload): its actor's dependencies replaced, kept across restarts. */
  reconfigure(id: number, strategy: ResolvedStrategy, settings: Settings): void
  /** Each traded instrument's order demand and share of the account's cap (a reload's room check). */
  slotDemands(): readonly RunningSlots[]
  /** Sends an input to the listed instruments' actors (all when `ids` is undefined). */
  route(ids: readonly number[] | undefined, event: InstrumentEvent): void
  /** The actor's current snapshot, or undefined once it is stopped. */
  snapshotOf(id: number): InstrumentSnapshot | undefined
  /** Stops planning everywhere (shutdown). */
  stopAll(): void
  /** Stops the supervisor and its actors. */
  stop(): void
}

export function createInstrumentActors(o: {
  settings: Settings
  strategies: readonly ResolvedInstrumentConfig[]
  /** The venue's instruments by symbol (start-up checked every configured one is listed). */
  listed: ReadonlyMap<string, Instrument>
  gateway: PlanSink
  /** Each complete open-orders read (awaited: the read resolves once the actors took it). */
  openOrders: {
    /** An instrument added while running: its open orders are read and published from now on. */
    track(id: number): void
    subscribe(
      listener: (u: {
        byInstrument: ReadonlyMap<number, Order[]>
        receivedAt: number
      }) => Promise<void> | void,
    ): () => void
  }
  breaker: Pick<Signal<BreakerState>, 'subscribe'>
  alerts: AlertSink
  /** Runs the actors' timers (the base clock: wall or the mock's virtual clock). */
  clock: Clock
  /** Venue-corrected time the actors read. */
  venueClock: Pick<Clock, 'now'>
  logger: Logger
  /** The bot's rate-limited log for lines that repeat (rejections, guard drops, strategy failures). */
  repeated?: InstrumentDeps['repeated']
  /** Input ages the streams renew without events (`InputAges`); absent: none. */
  ages?: InstrumentDeps['ages']
}): InstrumentActors {
  const supervised: SupervisedInstrument[] = []
  const instruments: ActorInstrument[] = []
  const slots = new Map<number, RunningSlots>()
  const shares = shareOrderSlots(o)
  /** One instrument's actor input and its entries in the lists above. */
  const enlist = (inst: Instrument, strategy: ResolvedStrategy, settings: Settings, share?: number) => {
    const actor: ActorInstrument = {
      id: inst.instrument_id,
      symbol: inst.symbol,
      asset: inst.base_asset,
      quoteAsset: inst.quote_asset,
      strategy: strategy.name,
      catalogueQuery: strategy.catalogueQuery,
      readsStatistics: strategy.reads.has('statistics'),
      priceDecimals: inst.price_decimals,
    }
    instruments.push(actor)
    slots.set(inst.instrument_id, {
      id: inst.instrument_id,
      symbol: inst.symbol,
      wants: strategy.maxOrders,
      venueMax: inst.max_order_count,
      share,
    })
    const entry: SupervisedInstrument = {
      id: inst.instrument_id,
      symbol: inst.symbol,
      asset: inst.base_asset,
      input: instrumentInput(inst, strategy, settings, share, depsOptions(inst.symbol, strategy)),
    }
    return { actor, entry }
  }
  const depsOptions = (symbol: string, strategy: ResolvedStrategy) => ({
    clock: o.venueClock,
    logger: o.logger.child({ instrument: symbol, strategy: strategy.name }),
    repeated: o.repeated,
    ages: o.ages,
  })
  const depsOf = (symbol: string, strategy: ResolvedStrategy, settings: Settings): InstrumentDeps =>
    instrumentDeps(settings, strategy, depsOptions(symbol, strategy))
  for (const r of o.strategies) {
    const inst = o.listed.get(r.symbol)
    if (inst) supervised.push(enlist(inst, r.strategy, o.settings, shares.get(inst.instrument_id)).entry)
  }
  const log = componentLogger(o.logger, 'bot')
  const supervisor = createInstrumentSupervisor(o.gateway, {
    clock: o.clock,
    instruments: supervised,
    logger: log,
  })
  const restarted = createSignal<number>()
  const joined = createSignal<ActorInstrument>()
  /** Dependencies a reload gave an actor: a restarted one gets them again, not those it started with. */
  const reconfigured = new Map<number, InstrumentDeps>()
  // Open degradation episodes per instrument, so a restart or a give-up resolves what the dead actor
  // can no longer resolve itself.
  const open = new Map<number, Set<DegradeCause>>()
  const degradedTitle: Record<DegradeCause, string> = {
    strategy: 'Strategy keeps failing',
    quotes: 'Quotes dropped by the price guard',
    index: 'Implausible index updates rejected',
    rejections: 'Venue rejects every order',
  }
  const resolveEpisodes = (id: number, why: string): void => {
    for (const cause of open.get(id) ?? []) {
      o.alerts.send({
        key: `degraded:${id}:${cause}`,
        severity: 'warning',
        title: `${symbolOf(id)}: ${degradedTitle[cause]} — over`,
        message: why,
        at: o.clock.now(),
        resolved: true,
      })
    }
    open.delete(id)
  }
  const symbolOf = (id: number): string => instruments.find((i) => i.id === id)?.symbol ?? String(id)
  supervisor.on('degraded', (e) => {
    const causes = open.get(e.instrumentId) ?? new Set<DegradeCause>()
    causes.add(e.cause)
    open.set(e.instrumentId, causes)
    o.alerts.send({
      key: `degraded:${e.instrumentId}:${e.cause}`,
      severity: 'warning',
      title: `${e.symbol}: ${degradedTitle[e.cause]}`,
      message: `${e.reason}; the instrument is degraded (see /status).`,
      details: { instrument: e.symbol, cause: e.cause },
      at: e.at,
    })
  })
  supervisor.on('recovered', (e) => {
    if (!open.get(e.instrumentId)?.delete(e.cause)) return
    o.alerts.send({
      key: `degraded:${e.instrumentId}:${e.cause}`,
      severity: 'warning',
      title: `${e.symbol}: ${degradedTitle[e.cause]} — over`,
      message: `recovered after ${Math.round((e.at - e.since) / 1000)} s`,
      at: e.at,
      resolved: true,
    })
  })
  supervisor.on('restarted', (e) => {
    log.warn({ instrumentId: e.id, attempt: e.attempt }, 'instrument actor restarted; re-feeding inputs')
    resolveEpisodes(e.id, 'the instrument actor was restarted')
    const deps = reconfigured.get(e.id)
    if (deps !== undefined) route([e.id], { type: 'RECONFIGURE', deps })
    restarted.emit(e.id)
  })
  supervisor.on('gaveUp', (e) => {
    resolveEpisodes(e.id, 'the instrument actor was stopped')
    const symbol = symbolOf(e.id)
    o.alerts.send({
      key: `actor:${e.id}`,
      severity: 'critical',
      title: 'Instrument actor stopped',
      message: `The actor for ${symbol} failed repeatedly and was stopped; its orders are cancelled.`,
      at: o.clock.now(),
    })
    void o.gateway.cancelAll(e.id).catch(() => undefined)
  })
  supervisor.start()
  const route = (ids: readonly number[] | undefined, event: InstrumentEvent): void =>
    routeToInstruments(supervisor, ids, event)

  o.openOrders.subscribe(({ byInstrument, receivedAt }) =>
    inChunks([...byInstrument], ([id, orders]) => route([id], { type: 'ORDERS', orders, receivedAt })),
  )
  o.breaker.subscribe((state) => route(undefined, { type: 'BREAKER', open: state === 'open' }))

  return {
    instruments,
    restarted,
    joined,
    add(a) {
      if (instruments.some((i) => i.id === a.listed.instrument_id)) return 'already traded'
      // After STOP_ALL the supervisor is done: a spawn would never run.
      if (supervisor.getSnapshot().status !== 'active') return 'stopping'
      const { actor, entry } = enlist(a.listed, a.strategy, a.settings, a.share)
      o.openOrders.track(actor.id)
      supervisor.send({ type: 'SPAWN', instrument: entry })
      log.info(
        { instrument: actor.symbol, strategy: actor.strategy, orderSlots: a.share },
        `${actor.symbol}: instrument actor started (${actor.strategy})`,
      )
      joined.emit(actor)
      return 'added'
    },
    reconfigure(id, strategy, settings) {
      const actor = instruments.find((i) => i.id === id)
      if (actor === undefined) return
      const deps = depsOf(actor.symbol, strategy, settings)
      reconfigured.set(id, deps)
      route([id], { type: 'RECONFIGURE', deps })
      const readsStatistics = strategy.reads.has('statistics')
      const inputsChanged =
        readsStatistics !== actor.readsStatistics ||
        JSON.stringify(strategy.catalogueQuery) !== JSON.stringify(actor.catalogueQuery)
      actor.strategy = strategy.name
      actor.readsStatistics = readsStatistics
      actor.catalogueQuery = strategy.catalogueQuery
      const slot = slots.get(id)
      if (slot !== undefined) slot.wants = strategy.maxOrders
      if (inputsChanged) joined.emit(actor)
    },
    slotDemands: () => [...slots.values()],
    route,
    snapshotOf(id) {
      const child = supervisor.getSnapshot().children[childId(id)]
      return child?.getSnapshot()
    },
    stopAll: () => supervisor.send({ type: 'STOP_ALL' }),
    stop: () => supervisor.stop(),
  }
}

/** The bot's instrument actors, from the parts before them: plans go to the order desk's gateway. */
export function createBotInstrumentActors(
  o: Omit<Parameters<typeof createInstrumentActors>[0], 'listed' | 'gateway' | 'breaker'> & {
    conn: { readonly instruments: ReadonlyMap<string, Instrument>; readonly laterTurn: LaterTurn }
    orders: { readonly gateway: PlanSink }
    limits: { readonly breaker: Pick<Signal<BreakerState>, 'subscribe'> }
  },
): InstrumentActors {
  return createInstrumentActors({
    ...o,
    // On the wall clock the actors' timers are paced behind the socket reads and the requests already
    // made (pacedTimers.ts, writeFirst.ts); a virtual or stepped clock keeps running them as its driver steps it.
    clock: o.clock === systemClock ? pacedTimers(o.clock, { schedule: o.conn.laterTurn }) : o.clock,
    listed: o.conn.instruments,
    gateway: o.orders.gateway,
    breaker: o.limits.breaker,
  })
}
