/**
 * The protections part: every second of the bot's clock it reads the PnL ledger's snapshot and the
 * marks, asks the pure rules (protectionRules.ts) what is breached, and applies it — the instruments
 * concerned held halted (their actors cancel their orders), a critical alert naming the limit and the
 * figures, optionally a flatten — and keeps the state (the day's starting net PnL, the peak, the
 * breaches) across restarts in a live run, so a restart does not lift a halt.
 */
import { resolve as resolvePath } from 'node:path'
import { z } from 'zod'
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import { componentLogger, type Logger } from '../../logging/logger.ts'
import type { BotMode } from '../../ops/status.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { PnlSnapshot } from '../../pnlTypes.ts'
import type { ProtectionSettings } from '../../settings/protectionSettings.ts'
import { createStateStore, type StateStore } from '../account/supervision/stateStore.ts'
import { type Poller, startPoller } from '../shared/poller.ts'
import { createFlattener, type Flattener, type FlattenLine } from './flatten.ts'
import type { Holds } from './holds.ts'
import {
  type Breach,
  evaluateProtections,
  initialProtectionState,
  type ProtectionFigures,
  type ProtectionState,
  resumeProtections,
} from './protectionRules.ts'

/** How often the limits are checked (bot clock). */
export const PROTECTION_INTERVAL_MS = 1_000

export interface ProtectionView {
  /** The limits configured (quote currency), as in the configuration. */
  limits: ProtectionSettings
  /** Each figure now (undefined: unknown). */
  figures: ProtectionFigures | undefined
  /** The breaches holding instruments halted now. */
  breaches: readonly Breach[]
  /** Instruments cooling down after a loss, until when (bot clock). */
  cooldowns: readonly { symbol: string; until: number }[]
}

export interface Protections {
  view(): ProtectionView
  /** Evaluates now (the poller does every second); returns the new breaches. */
  check(): Breach[]
  /** Ends every breach (`perpbot resume`); returns those ended. */
  resume(): Breach[]
  /** Every breach so far in this run (the simulator's report). */
  history(): readonly Breach[]
  /**
   * New limits (`perpbot reload`): checked from the next second; active breaches stay until resumed.
   * Returns whether anything changed.
   */
  reconfigure(next: ProtectionSettings): boolean
  stop(): Promise<void>
}

export function createProtections(o: {
  settings: { protections: ProtectionSettings }
  clock: Clock
  logger: Logger
  alerts: AlertSink
  holds: Holds
  account: { pnl(): PnlSnapshot }
  /** The traded instruments, read each time (a reload may add one). */
  instruments: readonly { id: number; symbol: string; quoteAsset: string }[]
  /** An instrument a reload added (already in `instruments`): the active breaches hold it at once. */
  joined?: { subscribe(listener: (i: { id: number }) => void): () => void } | undefined
  /** The mark (or index) of an instrument now. */
  mark(id: number): string | undefined
  flattener: Flattener
  /** Where the state outlives the process (a live run); absent: it starts afresh. */
  store?: StateStore | undefined
  storeName?: string | undefined
  /** Check on the clock every second (default true; tests call `check`). */
  poll?: boolean | undefined
}): Protections {
  let cfg = o.settings.protections
  const log = componentLogger(o.logger, 'protections')
  const currency = o.instruments[0]?.quoteAsset ?? 'USDC'
  const symbolOf = (id: number): string => o.instruments.find((i) => i.id === id)?.symbol ?? String(id)
  let state: ProtectionState =
    restore(o.store?.read(o.storeName ?? 'protections')) ?? initialProtectionState()
  let figures: ProtectionFigures | undefined
  const history: Breach[] = [...state.breaches]
  let saved = JSON.stringify(state)
  const persist = (): void => {
    const now = JSON.stringify(state)
    if (now === saved) return
    saved = now
    o.store?.write(o.storeName ?? 'protections', state)
  }
  const holdReason = (b: Breach): string =>
    `halted by protections.${b.limit}${b.until === undefined ? ' until perpbot resume' : ` until ${new Date(b.until).toISOString()}`}`
  /** Holds exactly the instruments the active breaches name (all for an account-wide one). */
  const applyHolds = (): void => {
    for (const i of o.instruments) {
      const mine = state.breaches.filter((b) => b.instrumentId === undefined || b.instrumentId === i.id)
      o.holds.set('protection', [i.id], mine.length === 0 ? undefined : mine.map(holdReason).join('; '))
    }
  }
  const alertKey = (b: Breach): string =>
    `protection:${b.limit}${b.symbol === undefined ? '' : `:${b.symbol}`}`
  const flatten = (b: Breach): void => {
    void o.flattener
      .flatten(b.instrumentId === undefined ? undefined : [b.instrumentId])
      .then((lines: FlattenLine[]) =>
        o.alerts.send({
          key: `${alertKey(b)}:flatten`,
          severity: 'critical',
          title: `Protection flatten (${b.limit})`,
          message:
            lines.map((l) => `${l.symbol}: ${l.outcome}, ${l.detail}`).join('; ') || 'nothing to close',
          at: o.clock.now(),
        }),
      )
      .catch((e: unknown) => log.error({ err: describeError(e) }, 'flatten on breach failed'))
  }
  const positionsOf = (pnl: PnlSnapshot) =>
    o.instruments.map((i) => ({
      id: i.id,
      symbol: i.symbol,
      position: pnl.instruments[i.id]?.position ?? '0',
      mark: o.mark(i.id),
      realizedPnl: pnl.instruments[i.id]?.realizedPnl ?? '0',
    }))

  const check = (): Breach[] => {
    const pnl = o.account.pnl()
    const step = evaluateProtections(
      state,
      { now: o.clock.now(), netPnl: pnl.account.netPnl, currency, instruments: positionsOf(pnl) },
      cfg,
    )
    state = step.state
    figures = step.figures
    for (const b of step.expired) {
      log.info({ limit: b.limit }, `protection ${b.limit}: the halt ended at the next UTC day`)
      o.alerts.send({
        key: alertKey(b),
        severity: 'critical',
        title: `Protection ${b.limit} — halt over`,
        message: 'a new UTC day began (protections.resume: next-utc-day): quoting again',
        at: o.clock.now(),
        resolved: true,
      })
    }
    for (const b of step.breached) {
      history.push(b)
      const scope = b.symbol === undefined ? 'every instrument' : b.symbol
      const until =
        b.until === undefined
          ? 'until `perpbot resume`'
          : `until ${new Date(b.until).toISOString()} (next UTC day)`
      log.error(
        { limit: b.limit, value: b.value, threshold: b.threshold, currency },
        `protection breached: ${b.message}`,
      )
      o.alerts.send({
        key: alertKey(b),
        severity: 'critical',
        title: `Protection ${b.limit} breached: ${scope} halted`,
        message: `${b.message}. Orders cancelled; ${scope} halted ${until}.${cfg.flattenOnBreach ? ' Flattening (reduce-only IOC).' : ''}`,
        details: { limit: b.limit, value: b.value, threshold: b.threshold, currency },
        at: b.at,
      })
    }
    if (step.breached.length > 0 || step.expired.length > 0) applyHolds()
    if (cfg.flattenOnBreach) for (const b of step.breached) flatten(b)
    for (const c of step.cooldownsStarted) {
      log.warn(
        { instrument: c.symbol, loss: c.loss, untilMs: c.until },
        `cooldown: ${c.symbol} realized a loss of ${c.loss} ${currency}; no quotes for ${cfg.cooldownAfterLossMs} ms (protections.cooldownAfterLossMs)`,
      )
      o.holds.set('cooldown', [c.id], `cooling down after a realized loss of ${c.loss} ${currency}`)
    }
    for (const id of step.cooldownsEnded) {
      if (step.cooldownsStarted.some((c) => c.id === id)) continue
      log.info({ instrument: symbolOf(id) }, `cooldown over: ${symbolOf(id)} quotes again`)
      o.holds.set('cooldown', [id], undefined)
    }
    persist()
    return step.breached
  }

  o.joined?.subscribe(() => applyHolds())
  // A restart keeps a halt: the breaches restored hold their instruments from the first moment.
  if (state.breaches.length > 0) {
    applyHolds()
    log.warn(
      { breaches: state.breaches.map((b) => b.limit) },
      `protections: still halted from before the restart (${state.breaches.map((b) => b.message).join('; ')}); perpbot resume lifts it`,
    )
  }
  // Nothing configured: nothing to check every second (the ledger's snapshot is not free at 1,000 instruments).
  let poller: Poller | undefined
  let stopped = false
  const startChecks = (): void => {
    if (poller !== undefined || stopped || o.poll === false || !anyProtection(cfg)) return
    poller = startPoller({
      name: 'protections',
      clock: o.clock,
      intervalMs: () => PROTECTION_INTERVAL_MS,
      run: async () => {
        check()
      },
      onError: (e) => log.warn({ err: describeError(e) }, 'protection check failed'),
    })
  }
  startChecks()

  return {
    view: () => ({
      limits: cfg,
      figures,
      breaches: state.breaches,
      cooldowns: Object.entries(state.cooldownUntil).map(([id, until]) => ({
        symbol: symbolOf(Number(id)),
        until,
      })),
    }),
    check,
    resume() {
      if (state.breaches.length === 0) return []
      const r = resumeProtections(state, o.account.pnl().account.netPnl)
      state = r.state
      applyHolds()
      for (const b of r.resumed)
        o.alerts.send({
          key: alertKey(b),
          severity: 'critical',
          title: `Protection ${b.limit} — resumed`,
          message: 'resumed by the operator; the daily loss and drawdown count from now',
          at: o.clock.now(),
          resolved: true,
        })
      persist()
      return r.resumed
    },
    history: () => history,
    reconfigure(next) {
      const changed = JSON.stringify(next) !== JSON.stringify(cfg)
      cfg = next
      startChecks()
      return changed
    },
    stop: async () => {
      stopped = true
      await poller?.stop()
      persist()
    },
  }
}

/** Whether any limit or the cooldown is set. */
export const anyProtection = (p: ProtectionSettings): boolean =>
  p.maxDailyLoss !== undefined ||
  p.maxDrawdown !== undefined ||
  p.maxAccountNotional !== undefined ||
  p.maxInstrumentNotional !== undefined ||
  p.cooldownAfterLossMs > 0

const StoredBreach = z.object({
  limit: z.enum(['maxDailyLoss', 'maxDrawdown', 'maxInstrumentNotional', 'maxAccountNotional']),
  instrumentId: z.number().optional(),
  symbol: z.string().optional(),
  value: z.string(),
  threshold: z.string(),
  currency: z.string(),
  message: z.string(),
  at: z.number(),
  until: z.number().optional(),
})
const StoredState = z.object({
  day: z.string().optional(),
  dayStartNet: z.string().optional(),
  peakNet: z.string().optional(),
  breaches: z.array(StoredBreach),
  lastRealized: z.record(z.string(), z.string()).default({}),
  cooldownUntil: z.record(z.string(), z.number()).default({}),
})

/** The stored state, if it reads as one (anything else starts afresh). */
function restore(v: object | undefined): ProtectionState | undefined {
  const parsed = StoredState.safeParse(v)
  if (!parsed.success) return undefined
  const d = parsed.data
  const byId = <T>(r: Record<string, T>): Record<number, T> =>
    Object.fromEntries(Object.entries(r).map(([k, x]) => [Number(k), x]))
  return {
    day: d.day,
    dayStartNet: d.dayStartNet,
    peakNet: d.peakNet,
    breaches: d.breaches.map((b) => ({
      ...b,
      instrumentId: b.instrumentId,
      symbol: b.symbol,
      until: b.until,
    })),
    lastRealized: byId(d.lastRealized),
    cooldownUntil: byId(d.cooldownUntil),
  }
}

/** The name of the protections' restart state for an account. */
export const protectionStateName = (proxyAddress: string): string =>
  `protections-${proxyAddress.toLowerCase()}`

/**
 * The bot's protections, from the parts before them: the ledger (account supervision), the marks
 * (the actors' index), the venue's price decimals and the perps client for a flatten, the holds.
 * A live run keeps its state in the journal's store (or `ops.stateDir`); a dry run starts afresh.
 */
export function createBotProtections(o: {
  settings: { protections: ProtectionSettings; mode: BotMode; ops: { stateDir: string } }
  clock: Clock
  log: Logger
  alerts: AlertSink
  holds: Holds
  account: { pnl(): PnlSnapshot }
  actors: {
    /** The traded instruments, live (a reload may add one). */
    readonly instruments: readonly { id: number; symbol: string; quoteAsset: string; priceDecimals: number }[]
    /** An instrument a reload added: the active breaches hold it at once. */
    readonly joined?: { subscribe(listener: (i: { id: number }) => void): () => void } | undefined
    snapshotOf(
      id: number,
    ): { context: { index: { price: string; mark?: string | undefined } | undefined } } | undefined
  }
  conn: { readonly proxyAddress: string }
  perps: Pick<PerpsClient, 'createOrders'>
  orders: { readonly orderIds?: { next(): string } | undefined }
  store: StateStore | undefined
  poll?: boolean | undefined
}): { protections: Protections; flattener: Flattener } {
  const mark = (id: number): string | undefined => {
    const index = o.actors.snapshotOf(id)?.context.index
    return index?.mark ?? index?.price
  }
  const instruments = o.actors.instruments
  const flattener = createFlattener({
    perps: o.perps,
    instruments,
    position: (id) => o.account.pnl().instruments[id]?.position,
    mark,
    slippageBps: o.settings.protections.flattenSlippageBps,
    orderIds: o.orders.orderIds,
    logger: o.log,
  })
  const protections = createProtections({
    ...o,
    logger: o.log,
    instruments,
    joined: o.actors.joined,
    mark,
    flattener,
    // A dry run's mock account is new every time; a live one keeps its halts across restarts.
    store:
      o.settings.mode !== 'live'
        ? undefined
        : (o.store ??
          createStateStore(resolvePath(o.settings.ops.stateDir), (e) =>
            o.log.warn({ err: describeError(e) }, 'cannot write the protections state'),
          )),
    storeName: protectionStateName(o.conn.proxyAddress),
  })
  return { protections, flattener }
}
