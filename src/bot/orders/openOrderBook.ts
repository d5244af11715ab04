/**
 * Open-order reconciliation: reads the venue's open orders (all, or per instrument when that is
 * cheaper) and publishes them per instrument. Built before the order path, which reconciles through
 * it after an unknown outcome; the instrument actors subscribe to what it publishes. Between reads,
 * order states pushed on the `orders` stream update it one order at a time (`observe`).
 *
 * Given `isOurs`, orders the bot did not place (no coid with our tag, see src/perps/orderTag.ts) are
 * kept apart: never published to the actors (so never repriced or cancelled by a plan), held by
 * `foreignOrders.ts` (bounded; summaries in the log, never the list).
 */
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import { DIFFABLE_ORDER_STATUSES } from '../quoting/quoteDiff.ts'
import { createForeignOrders } from './foreignOrders.ts'
import type { OrderOwnership } from './orderOwnership.ts'

/** The open orders of some instruments, read at `receivedAt` (clock ms). */
export interface OpenOrdersUpdate {
  /** Every instrument the read covered, with its orders (possibly none). */
  byInstrument: ReadonlyMap<number, Order[]>
  receivedAt: number
}

export interface OpenOrderBook {
  /** Reads open orders now (these instruments, or all tracked) and publishes them; `signal` aborts the read. */
  reconcile(
    instrumentIds?: readonly number[] | undefined,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<void>
  /** One order's pushed state: the instrument's open orders change and are published. */
  observe(order: Order): void
  /** Listeners are awaited: `reconcile` resolves once every subscriber has taken the update. */
  subscribe(listener: (update: OpenOrdersUpdate) => Promise<void> | void): () => void
  /**
   * The last complete read (every tracked instrument), if any; `foreign`: orders not ours, left alone
   * (at most `FOREIGN_KEPT_MAX`; `foreignOverflow`: more rest than are held).
   */
  snapshot(): {
    orders: readonly Order[]
    reconciledAt: number | undefined
    foreign: readonly Order[]
    foreignCount: number
    foreignOverflow: boolean
  }
  /** Whether orders not ours may rest on this instrument (any, when undefined). */
  foreignRestOn(iid: number | undefined): boolean
  /** An instrument traded from now on (a reload added it): read and published with the others. */
  track(id: number): void
}

/** Where the venue's order state changes go (the journal): pushed states, and what a read changed. */
export interface OrderStateRecorder {
  /** An order's state as the venue reported it (a push, or a read that saw it new or changed). */
  order(order: Order): void
  /** A read no longer lists this order (filled, cancelled or expired since the last we knew). */
  gone(order: Order, at: number): void
}

/** Foreign order ids per cancel (one request of small weight; the rest follow as each settles). */
const FOREIGN_CANCEL_CHUNK = 99

/** Per-instrument reads cost 1 each, an all-instrument read 20: below this many, read one by one. */
const PER_INSTRUMENT_BELOW = 20

export function createOpenOrderBook(o: {
  perps: Pick<PerpsClient, 'getOpenOrders'>
  clock: Pick<Clock, 'now'>
  /** Every instrument the bot trades. */
  instrumentIds: readonly number[]
  /** Which orders are the bot's own; absent: every order is (`orders.foreign: adopt`). */
  isOurs?: ((order: Order) => boolean) | undefined
  /** Says which foreign orders rest, when that changes. */
  logger?: Pick<Logger, 'info' | 'warn'> | undefined
  /**
   * `orders.foreign: cancel`: the foreign orders a read or push shows are cancelled by id (at risk
   * priority, once per order id); absent, they are left alone.
   */
  cancelForeign?: ((oids: readonly number[]) => Promise<unknown>) | undefined
  /** Told of each change the venue made (values only; nothing awaits). */
  record?: OrderStateRecorder | undefined
}): OpenOrderBook {
  const isOurs = o.isOurs ?? (() => true)
  /** Orders not ours (any instrument of the account), bounded (foreignOrders.ts). */
  const foreign = createForeignOrders()
  /** One foreign cancel in flight at a time: pushes meanwhile join the next one. */
  let cancelling = false
  const cancelForeign = (): void => {
    const cancel = o.cancelForeign
    if (cancel === undefined || cancelling) return
    const oids = foreign.takeNew().slice(0, FOREIGN_CANCEL_CHUNK)
    if (oids.length === 0) return
    cancelling = true
    o.logger?.warn(
      { foreignOrders: oids.length },
      `foreign orders: cancelling ${oids.length} order(s) the bot did not place (orders.foreign: cancel)`,
    )
    void cancel(oids).then(
      () => {
        cancelling = false
        // Those that arrived meanwhile go next.
        cancelForeign()
      },
      (e: unknown) => {
        cancelling = false
        foreign.putBack(oids)
        o.logger?.warn(
          { err: String(e) },
          'foreign orders: the cancel failed; trying again after the next read',
        )
      },
    )
  }
  const sayForeign = (): void => {
    cancelForeign()
    const s = foreign.summaryDue(o.clock.now())
    if (s === undefined) return
    const count = `${s.count}${s.overflow ? '+' : ''}`
    const where = s.busiest.map(([iid, n]) => `instrument ${iid}: ${n}`).join(', ')
    o.logger?.info(
      {
        foreignOrders: s.count,
        foreignOverflow: s.overflow,
        busiest: Object.fromEntries(s.busiest),
        added: s.added,
        removed: s.removed,
        events: s.events,
      },
      s.count === 0 && !s.overflow
        ? 'foreign orders: none rest now'
        : o.cancelForeign !== undefined
          ? `foreign orders: ${count} order(s) the bot did not place rest; cancelling them (orders.foreign: cancel)`
          : `foreign orders: leaving ${count} order(s) the bot did not place alone (${where}${s.busiest.length < s.count ? ', …' : ''}); they are never repriced or cancelled by the bot`,
    )
  }
  const listeners = new Set<(update: OpenOrdersUpdate) => Promise<void> | void>()
  const tracked = [...o.instrumentIds]
  // The last complete read with the pushes since laid over it: the read's orders of instruments not
  // pushed since, then each pushed instrument's orders in the order they were last pushed. Kept apart
  // and joined when read: a push per order would otherwise copy every open order (2,000 at 1,000
  // instruments) twice.
  let lastRead: readonly Order[] = []
  const pushedSince = new Map<number, Order[]>()
  let last: readonly Order[] | undefined = []
  const lastOrders = (): readonly Order[] => {
    last ??= [...lastRead.filter((x) => !pushedSince.has(x.iid)), ...[...pushedSince.values()].flat()]
    return last
  }
  let reconciledAt: number | undefined
  /** The open orders per tracked instrument, by order id: the last read, then pushes. */
  const open = new Map<number, Map<number, Order>>(tracked.map((id) => [id, new Map()]))
  const publish = (update: OpenOrdersUpdate): Promise<unknown> =>
    Promise.all([...listeners].map((l) => l(update)))
  return {
    async reconcile(instrumentIds, options = {}) {
      const { signal } = options
      const wanted =
        instrumentIds && instrumentIds.length > 0 && instrumentIds.length < PER_INSTRUMENT_BELOW
          ? instrumentIds
          : undefined
      const orders = wanted
        ? (
            await Promise.all(wanted.map((id) => o.perps.getOpenOrders({ instrumentId: id }, { signal })))
          ).flat()
        : await o.perps.getOpenOrders(undefined, { signal })
      const receivedAt = o.clock.now()
      const byInstrument = new Map<number, Order[]>((wanted ?? tracked).map((id) => [id, []]))
      const covered = new Set(wanted ?? [])
      const theirs: Order[] = []
      const ours: Order[] = []
      for (const x of orders) {
        if (!isOurs(x)) {
          theirs.push(x)
          continue
        }
        ours.push(x)
        byInstrument.get(x.iid)?.push(x)
      }
      foreign.read(wanted ? (iid) => covered.has(iid) : undefined, theirs)
      sayForeign()
      if (!wanted) {
        lastRead = ours
        pushedSince.clear()
        last = undefined
        reconciledAt = receivedAt
      }
      for (const [id, list] of byInstrument) {
        const next = new Map(list.map((x) => [x.oid, x]))
        if (o.record) recordRead(o.record, open.get(id), next, receivedAt)
        open.set(id, next)
      }
      await publish({ byInstrument, receivedAt })
    },
    observe(order) {
      if (!isOurs(order)) {
        if (DIFFABLE_ORDER_STATUSES.has(order.status)) foreign.rest(order)
        else foreign.gone(order.oid)
        sayForeign()
        return
      }
      const mine = open.get(order.iid)
      if (mine === undefined) return
      // A push never takes an order back to an older state (a read may have seen a newer one).
      const known = mine.get(order.oid)
      if (known !== undefined && known.uts > order.uts) return
      o.record?.order(order)
      if (DIFFABLE_ORDER_STATUSES.has(order.status)) mine.set(order.oid, order)
      else if (!mine.delete(order.oid)) return
      const orders = [...mine.values()]
      pushedSince.delete(order.iid)
      pushedSince.set(order.iid, orders)
      last = undefined
      void publish({ byInstrument: new Map([[order.iid, orders]]), receivedAt: o.clock.now() })
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    snapshot: () => ({
      orders: lastOrders(),
      reconciledAt,
      foreign: foreign.kept(),
      foreignCount: foreign.count(),
      foreignOverflow: foreign.overflow(),
    }),
    foreignRestOn: (iid) => foreign.restOn(iid),
    track(id) {
      if (open.has(id)) return
      tracked.push(id)
      open.set(id, new Map())
    },
  }
}

/** What a read changed against what the book held: new or changed orders, and those gone. */
function recordRead(
  record: OrderStateRecorder,
  before: ReadonlyMap<number, Order> | undefined,
  after: ReadonlyMap<number, Order>,
  at: number,
): void {
  for (const x of after.values()) {
    const prev = before?.get(x.oid)
    if (prev === undefined || prev.uts !== x.uts || prev.status !== x.status || prev.fill !== x.fill)
      record.order(x)
  }
  if (before === undefined) return
  for (const x of before.values()) if (!after.has(x.oid)) record.gone(x, at)
}

/**
 * The bot's open-order book, from the parts before it: the traded instruments, which orders are ours
 * (and, with `orders.foreign: cancel`, the others cancelled by id), the journal's order states.
 */
export function createBotOpenOrderBook(o: {
  perps: Pick<PerpsClient, 'getOpenOrders' | 'cancelOrders'>
  clock: Pick<Clock, 'now'>
  instrumentIds: readonly number[]
  ownership: Pick<OrderOwnership, 'isOurs' | 'cancelForeign'>
  log: Pick<Logger, 'info' | 'warn'>
  journal: { readonly orderStates: OrderStateRecorder | undefined }
}): OpenOrderBook {
  return createOpenOrderBook({
    perps: o.perps,
    clock: o.clock,
    instrumentIds: o.instrumentIds,
    isOurs: o.ownership.isOurs,
    cancelForeign: o.ownership.cancelForeign(o.perps),
    logger: o.log,
    record: o.journal.orderStates,
  })
}
