/**
 * Orders on the account the bot did not place (other clients', a trader's by hand), bounded in memory
 * and in the log (issue 34): at most `maxKept` are held by id (enough to cancel them by id or to
 * spare them in a cancel-all); beyond that only the fact that more rest is kept (`overflow`) until a
 * complete read that fits clears it. Counts per instrument are kept as they change (O(1) per push),
 * and the log gets a summary (counts, the busiest instruments, what changed) at most once per
 * `summaryEveryMs`, never the list: a client that pushes thousands of orders a second costs a line
 * every few seconds, not the whole list per push.
 */
import type { Order } from '../../perps/schemas/orders.ts'

/** Foreign orders held by id; beyond it only "more rest" is known. */
export const FOREIGN_KEPT_MAX = 1_000
/** At most one summary line per this long while foreign orders keep changing. */
export const FOREIGN_SUMMARY_EVERY_MS = 10_000
/** Instruments named in a summary line (the busiest). */
const SUMMARY_INSTRUMENTS = 5

export interface ForeignSummary {
  /** Foreign orders held now (at most `maxKept`). */
  readonly count: number
  /** More rest than are held (the count is a lower bound). */
  readonly overflow: boolean
  /** The busiest instruments: [instrument id, orders held]. */
  readonly busiest: readonly (readonly [number, number])[]
  /** Seen new and seen gone since the last summary line. */
  readonly added: number
  readonly removed: number
  /** Pushes or read rows about foreign orders since the last summary line. */
  readonly events: number
}

export interface ForeignOrders {
  /** A foreign order that rests (new or changed). */
  rest(order: Order): void
  /** A foreign order no longer rests. */
  gone(oid: number): void
  /**
   * A read covered these instruments (all when undefined) and listed these foreign orders: they
   * rest, and what it did not list is gone.
   */
  read(covered: ((iid: number) => boolean) | undefined, listed: readonly Order[]): void
  /** Whether foreign orders may rest on this instrument (any when undefined): held ones, or overflow. */
  restOn(iid: number | undefined): boolean
  /** The ones held (at most `maxKept`). */
  kept(): readonly Order[]
  count(): number
  overflow(): boolean
  /** Held order ids not yet handed out by `takeNew` (for `orders.foreign: cancel`), each once. */
  takeNew(): number[]
  /** Hands `oids` back to `takeNew` (their cancel failed). */
  putBack(oids: readonly number[]): void
  /** A summary to log now, or undefined (nothing changed, or one was logged within the interval). */
  summaryDue(now: number): ForeignSummary | undefined
}

export function createForeignOrders(
  o: { maxKept?: number | undefined; summaryEveryMs?: number | undefined } = {},
): ForeignOrders {
  const maxKept = o.maxKept ?? FOREIGN_KEPT_MAX
  const everyMs = o.summaryEveryMs ?? FOREIGN_SUMMARY_EVERY_MS
  const held = new Map<number, Order>()
  const perInstrument = new Map<number, number>()
  /** Held ids whose cancel was not handed out yet. */
  const fresh = new Set<number>()
  let overflow = false
  let changed = false
  let lastSaidAt: number | undefined
  const since = { added: 0, removed: 0, events: 0 }

  const count = (iid: number, by: number): void => {
    const n = (perInstrument.get(iid) ?? 0) + by
    if (n <= 0) perInstrument.delete(iid)
    else perInstrument.set(iid, n)
  }
  const drop = (oid: number): void => {
    const x = held.get(oid)
    if (x === undefined) return
    held.delete(oid)
    fresh.delete(oid)
    count(x.iid, -1)
    since.removed += 1
    changed = true
  }

  function rest(order: Order): void {
    since.events += 1
    const known = held.get(order.oid)
    if (known !== undefined) {
      held.set(order.oid, order)
      if (known.iid !== order.iid) {
        count(known.iid, -1)
        count(order.iid, 1)
      }
      return
    }
    if (held.size >= maxKept) {
      if (!overflow) changed = true
      overflow = true
      return
    }
    held.set(order.oid, order)
    fresh.add(order.oid)
    count(order.iid, 1)
    since.added += 1
    changed = true
  }

  return {
    rest,
    gone(oid) {
      since.events += 1
      drop(oid)
    },
    read(covered, listed) {
      const seen = new Set(listed.map((x) => x.oid))
      for (const [oid, x] of held) if ((covered === undefined || covered(x.iid)) && !seen.has(oid)) drop(oid)
      // A complete read lists them all again: what overflows it sets the flag again.
      if (covered === undefined && overflow) {
        overflow = false
        changed = true
      }
      for (const x of listed) rest(x)
    },
    restOn(iid) {
      if (overflow) return true
      return iid === undefined ? held.size > 0 : perInstrument.has(iid)
    },
    kept: () => [...held.values()],
    count: () => held.size,
    overflow: () => overflow,
    takeNew() {
      const oids = [...fresh]
      fresh.clear()
      return oids
    },
    putBack(oids) {
      for (const oid of oids) if (held.has(oid)) fresh.add(oid)
    },
    summaryDue(now) {
      if (!changed || (lastSaidAt !== undefined && now - lastSaidAt < everyMs)) return undefined
      changed = false
      lastSaidAt = now
      const busiest = [...perInstrument]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, SUMMARY_INSTRUMENTS)
      const summary = { count: held.size, overflow, busiest, ...since }
      since.added = 0
      since.removed = 0
      since.events = 0
      return summary
    },
  }
}
