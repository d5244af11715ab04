/**
 * Orders by lease epoch: a successor cancels the orders a zombie left (our tag, an older epoch); a
 * process that lost its lease cancels only its own (our tag, its epoch). By order id, never
 * `cancelAll`, which is account-wide and would take the other process's orders too.
 */
import type { PerpsClient } from '../perps/client/createPerpsClient.ts'
import { parseClientOrderId } from '../perps/orderTag.ts'
import type { Order } from '../perps/schemas/orders.ts'

/** Pure: the ids of open orders with our tag whose epoch matches. */
export function oidsByEpoch(
  orders: readonly Pick<Order, 'oid' | 'coid'>[],
  tag: string,
  match: (epoch: number) => boolean,
): number[] {
  return orders.flatMap((o) => {
    const id = parseClientOrderId(o.coid)
    return id !== undefined && id.tag === tag && match(id.epoch) ? [o.oid] : []
  })
}

/** The highest epoch among our orders (0 when none): a floor for the next lease epoch. */
export function highestEpoch(orders: readonly Pick<Order, 'coid'>[], tag: string): number {
  let max = 0
  for (const o of orders) {
    const id = parseClientOrderId(o.coid)
    if (id !== undefined && id.tag === tag && id.epoch > max) max = id.epoch
  }
  return max
}

const CHUNK = 50

/** Reads the open orders and cancels those that match, at risk priority. Returns how many were sent. */
export async function cancelByEpoch(
  perps: Pick<PerpsClient, 'getOpenOrders' | 'cancelOrders'>,
  tag: string,
  match: (epoch: number) => boolean,
  signal?: AbortSignal,
): Promise<number> {
  const open = await perps.getOpenOrders(undefined, { signal })
  const oids = oidsByEpoch(open, tag, match)
  for (let i = 0; i < oids.length; i += CHUNK)
    await perps.cancelOrders(oids.slice(i, i + CHUNK), { priority: 'risk', signal })
  return oids.length
}
