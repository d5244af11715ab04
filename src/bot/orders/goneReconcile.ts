/**
 * A modify or cancel answered "order is gone" (`ORDER_GONE_CODES`: filled, cancelled or rejected
 * while the command was in flight) is no rejection, but the bot does not yet know how the order
 * ended. The `orders` stream usually says it within moments; if after `settleMs` the open-order book
 * still lists the order as open (no push, no poll told it), that instrument is reconciled over REST, so
 * a fill or a cancel we did not see is read from the venue rather than guessed. Reconciles are
 * coalesced: instruments found gone while one runs are read together in the next.
 */
import type { Clock, TimerId } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import type { CancelResult, CreateOrderAck, ModifyResult } from '../../perps/schemas/orders.ts'
import { isOrderGoneCode } from '../../perps/schemas/orders.ts'
import type { Batcher, CancelCommand, CreateCommand, ItemOutcome, ModifyCommand } from './batcher.ts'

export interface GoneReconcileOptions {
  reconcile(instrumentIds: readonly number[]): Promise<void>
  logger: Pick<Logger, 'info' | 'error'>
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>
  /** Whether the open-order book still lists the order as open (absent: always reconcile). */
  stillOpen?: ((oid: number) => boolean) | undefined
  /** How long the stream gets to report the order's end first. Default 2 s. */
  settleMs?: number | undefined
}

export interface GoneReconcileState {
  /** Items answered with a gone code so far. */
  gone: number
  /** Reconciles run for them. */
  reconciles: number
}

/** The batcher, with a reconcile of the instrument after each item answered with a gone code. */
export function withGoneReconcile(
  batcher: Batcher,
  o: GoneReconcileOptions,
): Batcher & { goneState(): GoneReconcileState } {
  const s: GoneReconcileState = { gone: 0, reconciles: 0 }
  const waiting = new Set<number>()
  let running: Promise<void> | undefined

  const drain = async (): Promise<void> => {
    while (waiting.size > 0) {
      const ids = [...waiting]
      waiting.clear()
      s.reconciles++
      try {
        await o.reconcile(ids)
      } catch (e) {
        o.logger.error({ instruments: ids, err: e }, 'reconcile after a gone order failed')
      }
    }
    running = undefined
  }

  const settleMs = o.settleMs ?? 2_000
  let stopped = false
  /** The settle timers pending, cleared at the stop (none is left behind). */
  const timers = new Set<TimerId>()
  const found = (iid: number, oid: number, code: string): void => {
    s.gone++
    o.logger.info({ iid, oid, code }, 'order already gone at the venue')
    if (stopped) return
    const timer = o.clock.setTimeout(() => {
      timers.delete(timer)
      if (stopped || (o.stillOpen !== undefined && !o.stillOpen(oid))) return
      waiting.add(iid)
      running ??= Promise.resolve().then(drain)
    }, settleMs)
    timers.add(timer)
  }

  const goneCode = (r: { status: string; error?: unknown }): string | undefined =>
    r.status === 'err' && typeof r.error === 'string' && isOrderGoneCode(r.error) ? r.error : undefined

  function submit(c: ModifyCommand): Promise<ItemOutcome<ModifyResult>>
  function submit(c: CreateCommand): Promise<ItemOutcome<CreateOrderAck>>
  function submit(c: CancelCommand): Promise<ItemOutcome<CancelResult>>
  async function submit(
    c: ModifyCommand | CreateCommand | CancelCommand,
  ): Promise<ItemOutcome<ModifyResult | CreateOrderAck | CancelResult>> {
    switch (c.type) {
      case 'modifyOrders': {
        const r = await batcher.submit(c)
        const code = goneCode(r)
        if (code !== undefined) found(c.iid, c.order.oid, code)
        return r
      }
      case 'cancelOrders': {
        const r = await batcher.submit(c)
        const code = goneCode(r)
        if (code !== undefined) found(c.iid, c.oid, code)
        return r
      }
      case 'createOrders':
        return batcher.submit(c)
    }
  }
  return {
    submit,
    flush: () => batcher.flush(),
    state: () => batcher.state(),
    stop: async () => {
      await batcher.stop()
      stopped = true
      for (const t of timers) o.clock.clearTimeout(t)
      timers.clear()
      await running
    },
    goneState: () => ({ ...s }),
  }
}
