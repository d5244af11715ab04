/**
 * Open-order reconciliation: reads the venue's open orders (all, or per instrument when that is
 * cheaper) and publishes them per instrument. Built before the order path, which reconciles through
 * it after an unknown outcome; the instrument actors subscribe to what it publishes. Between reads,
 * order states pushed on the `orders` stream update it one order at a time (`observe`).
 */
import type { Clock } from '../../clock.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import { DIFFABLE_ORDER_STATUSES } from '../quoting/quoteDiff.ts'

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
  /** The last complete read (every tracked instrument), if any. */
  snapshot(): { orders: readonly Order[]; reconciledAt: number | undefined }
}

/** Where the venue's order state changes go (the journal): pushed states, and what a read changed. */
export interface OrderStateRecorder {
  /** An order's state as the venue reported it (a push, or a read that saw it new or changed). */
  order(order: Order): void
  /** A read no longer lists this order (filled, cancelled or expired since the last we knew). */
  gone(order: Order, at: number): void
}

/** Per-instrument reads cost 1 each, an all-instrument read 20: below this many, read one by one. */
const PER_INSTRUMENT_BELOW = 20

export function createOpenOrderBook(o: {
  perps: Pick<PerpsClient, 'getOpenOrders'>
  clock: Pick<Clock, 'now'>
  /** Every instrument the bot trades. */
  instrumentIds: readonly number[]
  /** Told of each change the venue made (values only; nothing awaits). */
  record?: OrderStateRecorder | undefined
}): OpenOrderBook {
  const listeners = new Set<(update: OpenOrdersUpdate) => Promise<void> | void>()
  const tracked = [...o.instrumentIds]
  let last: readonly Order[] = []
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
      for (const x of orders) byInstrument.get(x.iid)?.push(x)
      if (!wanted) {
        last = orders
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
      const mine = open.get(order.iid)
      if (mine === undefined) return
      // A push never takes an order back to an older state (a read may have seen a newer one).
      const known = mine.get(order.oid)
      if (known !== undefined && known.uts > order.uts) return
      o.record?.order(order)
      if (DIFFABLE_ORDER_STATUSES.has(order.status)) mine.set(order.oid, order)
      else if (!mine.delete(order.oid)) return
      const orders = [...mine.values()]
      last = [...last.filter((x) => x.iid !== order.iid), ...orders]
      void publish({ byInstrument: new Map([[order.iid, orders]]), receivedAt: o.clock.now() })
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    snapshot: () => ({ orders: last, reconciledAt }),
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
