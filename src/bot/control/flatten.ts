/**
 * Flatten: close positions with reduce-only IOC orders at a bounded price — a sell at no less than
 * the mark less `slippageBps`, a buy at no more than the mark plus it (rounded inward to the price
 * decimals and the venue's 5 significant figures). Reduce-only, so a fill can only shrink the
 * position; IOC, so nothing rests. What does not fill at that bound stays open and is said so.
 * The caller holds the instruments first (the flattened instrument must not quote again at once).
 */

import { compareDecimal, fromTicks, roundTicksToSigFigs, toTicks } from '../../decimal.ts'
import { describeError } from '../../errors.ts'
import { componentLogger, type Logger } from '../../logging/logger.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { CreateOrderInput } from '../../perps/schemas/orders.ts'

/** The venue's significant-figure rule for prices (the strategies keep it too). */
const PRICE_SIG_FIGS = 5

export interface FlattenLine {
  symbol: string
  /** What was sent: side, quantity, limit; or why nothing was. */
  outcome: 'sent' | 'flat' | 'no mark' | 'rejected' | 'failed'
  detail: string
}

export interface Flattener {
  /** Sends one reduce-only IOC order per instrument with a position (`ids` undefined: all). */
  flatten(ids: readonly number[] | undefined): Promise<FlattenLine[]>
}

export interface FlattenInstrument {
  id: number
  symbol: string
  priceDecimals: number
}

/** The bounded limit price (exact ticks): a sell rounds up, a buy down, so the bound is never passed. */
export function flattenPrice(mark: string, buy: boolean, slippageBps: number, priceDecimals: number): string {
  const scale = 10_000n
  const markTicks = toTicks(mark, priceDecimals + 4, 'half-even')
  const bps = BigInt(slippageBps)
  const raw = (markTicks * (buy ? scale + bps : scale - bps)) / scale
  const rounding = buy ? 'down' : 'up'
  const ticks = toTicks(fromTicks(raw, priceDecimals + 4), priceDecimals, rounding)
  return fromTicks(roundTicksToSigFigs(ticks, priceDecimals, PRICE_SIG_FIGS, rounding), priceDecimals)
}

export function createFlattener(o: {
  perps: Pick<PerpsClient, 'createOrders'>
  instruments: readonly FlattenInstrument[]
  /** Signed position and mark (or index) now; undefined while unknown. */
  position(id: number): string | undefined
  mark(id: number): string | undefined
  slippageBps: number
  orderIds?: { next(): string } | undefined
  logger: Logger
}): Flattener {
  const log = componentLogger(o.logger, 'flatten')
  return {
    async flatten(ids) {
      const lines: FlattenLine[] = []
      const orders: { symbol: string; order: CreateOrderInput }[] = []
      for (const i of o.instruments) {
        if (ids !== undefined && !ids.includes(i.id)) continue
        const position = o.position(i.id) ?? '0'
        if (compareDecimal(position, '0') === 0) {
          lines.push({ symbol: i.symbol, outcome: 'flat', detail: 'no position' })
          continue
        }
        const mark = o.mark(i.id)
        if (mark === undefined) {
          lines.push({ symbol: i.symbol, outcome: 'no mark', detail: 'no mark price yet: nothing sent' })
          continue
        }
        const buy = position.startsWith('-')
        const qty = buy ? position.slice(1) : position
        const p = flattenPrice(mark, buy, o.slippageBps, i.priceDecimals)
        orders.push({
          symbol: i.symbol,
          order: { iid: i.id, buy, qty, p, tif: 'ioc', ro: true, po: false, coid: o.orderIds?.next() },
        })
      }
      if (orders.length === 0) return lines
      try {
        const acks = await o.perps.createOrders(
          orders.map((x) => x.order),
          { priority: 'risk' },
        )
        orders.forEach((x, k) => {
          const ack = acks[k]
          const what = `${x.order.buy ? 'buy' : 'sell'} ${x.order.qty} reduce-only IOC, limit ${x.order.p}`
          if (ack?.status === 'ok')
            lines.push({
              symbol: x.symbol,
              outcome: 'sent',
              detail: `${what} (what the book does not fill at the limit is cancelled: see the fills)`,
            })
          else
            lines.push({
              symbol: x.symbol,
              outcome: 'rejected',
              detail: `${what}: refused (${ack === undefined ? 'no answer' : JSON.stringify(ack)})`,
            })
        })
      } catch (e) {
        for (const x of orders)
          lines.push({ symbol: x.symbol, outcome: 'failed', detail: `not placed: ${describeError(e)}` })
      }
      for (const l of lines)
        if (l.outcome !== 'flat')
          log[l.outcome === 'sent' ? 'warn' : 'error'](
            { instrument: l.symbol, outcome: l.outcome },
            `flatten ${l.symbol}: ${l.detail}`,
          )
      return lines
    },
  }
}
