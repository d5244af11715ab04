/**
 * Connects instrument actors to the batcher: a plan's modifies, creates and cancels go to the batcher
 * unchanged (the client's own parameters; each resolved with its own per-order outcome), and a halted
 * actor's cancel-all goes to the client as risk work (its request gate charges it). Each item's
 * outcome is the batcher's own `ItemOutcome` (quoting/orderPlan.ts), handed to the actor unchanged.
 *
 * When the venue refuses our modify signature (see `ModifyCapability`), each modify is sent as a
 * cancel of the order and then, once the cancel went through, a create of the same side and flags at
 * the new price and quantity; the pair is reported as the modify's one outcome: the cancel's when it
 * did not go through, else `replaced` with the create's.
 *
 * Every create carries our client order id (`orderIds`, src/perps/orderTag.ts), so a restarted or
 * crashed run's orders are still recognised as ours. While orders the bot did not place rest (the
 * open-order book's `foreign`), a cancel-all (a halt, the exit policy) cancels ours by id instead, so
 * a trader's manual orders stay on the book.
 */

import { RequestRejectedError, TransportError, UnknownOutcomeError } from '../../errors.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { CancelResult, CreateOrderInput, ModifyOrderInput, Order } from '../../perps/schemas/orders.ts'
import type { ModifyOutcome, PlanOutcome, SubmitPlanInput, WorkPriority } from '../quoting/orderPlan.ts'
import type { Batcher } from './batcher.ts'
import type { ModifyCapability } from './modifyCapability.ts'
import type { OwedCancelLedger } from './owedCancels.ts'

export interface OrderGateway {
  submitPlan(input: SubmitPlanInput): Promise<PlanOutcome>
  /**
   * Cancels every open order of ours (of one instrument when given), at `halt` priority (the fleet's
   * halt reserve; risk work locally) and owed until it succeeds (`owedCancels.ts`); with `exit`,
   * at the stop sequence's own priority (held by nothing local) and signed with the local clock while
   * the venue's is refused. `only` narrows it to some of our orders (a fleet process that lost its
   * lease cancels its own epoch's); then it always goes by id.
   */
  cancelAll(
    instrumentId: number | undefined,
    options?: {
      signal?: AbortSignal | undefined
      exit?: boolean | undefined
      only?: ((order: Order) => boolean) | undefined
    },
  ): Promise<void>
}

/** What the gateway needs to cancel by id (the perps client's `cancelOrders`, at any priority). */
export interface CancelById {
  cancelOrders(
    oids: readonly number[],
    options: {
      priority: 'halt' | 'exit'
      signal: AbortSignal
      localClockIfUntrusted?: boolean
    },
  ): Promise<readonly CancelResult[]>
}

/** Counts and journals the cancel-all's own requests (the desk's batch recorder). */
export interface CancelRecorder {
  recordBatch(batch: { command: string; size: number; outcome: 'ok' | 'error' | 'unknown' }): void
}

/** Order ids per cancel request (the venue's batch limit is higher; this keeps requests small). */
const CANCEL_BY_ID_CHUNK = 99

export function createOrderGateway(deps: {
  batcher: Batcher
  perps: Pick<PerpsClient, 'cancelAll'> & Partial<Pick<PerpsClient, 'getOpenOrders'>> & CancelById
  /** Absent: modifies are always sent as modifies. */
  modify?: Pick<ModifyCapability, 'mode'> | undefined
  /** Our client order ids for creates; absent: creates carry none. */
  orderIds?: { next(): string } | undefined
  /** Whether foreign orders rest (on an instrument, or any); absent: cancel-all cancels everything. */
  book?: { foreignRestOn(iid: number | undefined): boolean } | undefined
  /** Which orders are ours (by coid tag): while others rest, what a cancel-all cancels. */
  isOurs?: ((order: Order) => boolean) | undefined
  /** Where a cancel-all is owed until it succeeds (the dead-man switch reads it). */
  owed?: OwedCancelLedger | undefined
  /**
   * Where each cancel-all request is counted and journaled like a batch (the exit's and a halt's
   * cancels do not pass the batcher).
   */
  record?: CancelRecorder | undefined
}): OrderGateway {
  const { batcher } = deps
  const tagged = <T extends { coid?: string | undefined }>(order: T): T =>
    deps.orderIds && order.coid === undefined ? { ...order, coid: deps.orderIds.next() } : order

  /** One modify as cancel, then create of the same order at the new price and quantity. */
  async function replace(
    iid: number,
    m: ModifyOrderInput,
    order: Order | undefined,
    priority: WorkPriority,
  ): Promise<ModifyOutcome> {
    const cancel = await batcher.submit({ type: 'cancelOrders', iid, oid: m.oid, priority: 'risk' })
    // Not cancelled (gone, refused, unknown): the cancel's outcome is the modify's; nothing is created.
    if (cancel.status !== 'ok') return cancel
    if (order === undefined) return { status: 'replaced', create: undefined }
    const create = await batcher.submit({
      type: 'createOrders',
      order: tagged<CreateOrderInput>({
        iid,
        buy: order.buy,
        p: m.p,
        qty: m.qty,
        tif: 'gtc',
        po: order.po,
        ...(order.ro ? { ro: true } : {}),
      }),
      priority: order.ro ? 'risk' : priority,
    })
    return { status: 'replaced', create }
  }

  /**
   * One cancel request, counted and journaled with its outcome: refused by the venue, `error`; sent
   * without an answer, `unknown`; refused before sending (the limiter, the lease fence), not at all.
   */
  async function recorded<T>(command: string, size: number, send: () => Promise<T>): Promise<T> {
    try {
      const r = await send()
      deps.record?.recordBatch({ command, size, outcome: 'ok' })
      return r
    } catch (e) {
      if (e instanceof RequestRejectedError) deps.record?.recordBatch({ command, size, outcome: 'error' })
      else if (e instanceof UnknownOutcomeError || e instanceof TransportError)
        deps.record?.recordBatch({ command, size, outcome: 'unknown' })
      throw e
    }
  }

  async function cancelAllNow(
    instrumentId: number | undefined,
    options: Parameters<OrderGateway['cancelAll']>[1] = {},
  ): Promise<void> {
    const foreign = deps.book?.foreignRestOn(instrumentId) ?? false
    const { only } = options
    const isOurs = deps.isOurs
    const exit = options.exit === true
    const priority = exit ? 'exit' : 'halt'
    const command = {
      priority,
      signal: options.signal,
      ...(exit ? { localClockIfUntrusted: true } : {}),
    } as const
    if (only === undefined && (isOurs === undefined || deps.perps.getOpenOrders === undefined || !foreign)) {
      await recorded('cancelAll', 1, () =>
        deps.perps.cancelAll(instrumentId === undefined ? {} : { iid: instrumentId }, command),
      )
      return
    }
    // Others' orders rest (or only some of ours go): by id, read fresh (creates since the last read
    // count); theirs stay.
    const signal = options.signal ?? new AbortController().signal
    const open =
      (await deps.perps.getOpenOrders?.(instrumentId === undefined ? undefined : { instrumentId }, {
        signal,
        priority,
      })) ?? []
    const ids = open.filter((x) => (isOurs?.(x) ?? true) && (only?.(x) ?? true)).map((x) => x.oid)
    for (let i = 0; i < ids.length; i += CANCEL_BY_ID_CHUNK) {
      const chunk = ids.slice(i, i + CANCEL_BY_ID_CHUNK)
      const results = await recorded('cancelOrders', chunk.length, () =>
        deps.perps.cancelOrders(chunk, { ...command, signal }),
      )
      const refused = results.filter(
        (r) => r.status !== 'ok' && !/not.?found|not_in_orderbook/i.test(r.error ?? ''),
      )
      if (refused.length > 0)
        throw new Error(
          `cancel by id: ${refused.length} order(s) refused (${refused[0]?.error ?? 'unknown'})`,
        )
    }
  }

  return {
    async submitPlan({ instrumentId, plan, priority, lazy, openOrders = [] }) {
      // Quoting again: the actor manages its orders itself; nothing of a past halt is owed.
      deps.owed?.paid(instrumentId)
      const fallback = deps.modify?.mode === 'cancel+create'
      // The open orders by id only for the cancel+create fallback, the one reader.
      const byOid = fallback ? new Map(openOrders.map((o) => [o.oid, o])) : undefined
      const [modify, create, cancel] = await Promise.all([
        byOid !== undefined
          ? Promise.all(plan.modify.map((m) => replace(instrumentId, m, byOid.get(m.oid), priority)))
          : Promise.all(
              plan.modify.map((order) =>
                batcher.submit({ type: 'modifyOrders', iid: instrumentId, order, priority, lazy }),
              ),
            ),
        Promise.all(
          plan.create.map((order) =>
            batcher.submit({
              type: 'createOrders',
              order: tagged(order),
              priority: order.ro ? 'risk' : priority,
              lazy,
            }),
          ),
        ),
        // Cancels reduce risk: always at risk priority.
        Promise.all(
          plan.cancel.map((oid) =>
            batcher.submit({ type: 'cancelOrders', iid: instrumentId, oid, priority: 'risk' }),
          ),
        ),
      ])
      return { modify, create, cancel }
    },
    async cancelAll(instrumentId, options = {}) {
      const scope = instrumentId ?? 'all'
      deps.owed?.owe(scope)
      await cancelAllNow(instrumentId, options)
      deps.owed?.paid(scope)
    },
  }
}
