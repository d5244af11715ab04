/**
 * Which orders on the account are ours: our tag (from `orders.tag`) in the client order id, with the
 * fleet's lease epoch; the generator of those ids; what the exit may cancel. Others' orders are left
 * alone unless `orders.foreign` is `adopt` (managed as ours) or `cancel` (cancelled by id).
 */
import type { Clock } from '../../clock.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import {
  type ClientOrderIds,
  createClientOrderIds,
  isOwnOrder,
  orderTagFor,
  parseClientOrderId,
} from '../../perps/orderTag.ts'
import type { Order } from '../../perps/schemas/orders.ts'
import type { Settings } from '../../settings/schema.ts'

/** What ownership needs of a fleet process (the fleet part gives it). */
export interface EpochHolder {
  readonly epoch: number
  canWrite(): boolean
}

export interface OrderOwnership {
  /** Our 8-hex tag. */
  readonly tag: string
  /** Whether an order is ours; undefined when every order on the account is treated as ours (adopt). */
  readonly isOurs: ((x: { coid?: string | undefined }) => boolean) | undefined
  /**
   * The run's generator of client order ids for creates, its range starting at the clock's now: built
   * once, when the order desk is (after the start's reads).
   */
  clientOrderIds(): ClientOrderIds
  /**
   * The exit's narrowing: a fleet process that lost its lease cancels only its own epoch's orders, by
   * id (the switch is left armed: its deadline is within the lease TTL); otherwise undefined.
   */
  exitOnly(): ((order: Order) => boolean) | undefined
  /** `orders.foreign: cancel`: how the open-order book cancels foreign orders by id; else undefined. */
  cancelForeign(
    perps: Pick<PerpsClient, 'cancelOrders'>,
  ): ((oids: readonly number[]) => Promise<unknown>) | undefined
}

export function createOrderOwnership(o: {
  orders: Settings['orders']
  clock: Pick<Clock, 'now'>
  fleet?: EpochHolder | undefined
}): OrderOwnership {
  const tag = orderTagFor(o.orders.tag)
  const fleet = o.fleet
  return {
    tag,
    isOurs:
      o.orders.foreign !== 'adopt'
        ? (x: { coid?: string | undefined }): boolean => isOwnOrder(x.coid, tag)
        : undefined,
    clientOrderIds: () => createClientOrderIds({ tag, epoch: fleet?.epoch ?? 0, startMs: o.clock.now() }),
    cancelForeign: (perps) =>
      o.orders.foreign === 'cancel'
        ? (oids) => perps.cancelOrders([...oids], { priority: 'risk' })
        : undefined,
    exitOnly: () =>
      fleet === undefined || fleet.canWrite()
        ? undefined
        : (x) => parseClientOrderId(x.coid)?.epoch === fleet.epoch,
  }
}
